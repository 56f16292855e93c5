// The HTTP face of the accounts (SPEC 4): /users/v1/signup, login, me, passwd and logout.
import type { IncomingMessage } from 'node:http';
import { readJsonBody, sendJson, type Router } from '../../lib/http-kit.js';
import type { RateLimiter } from '../http/http-rate-limit.js';
import { parseBody } from '../http/http-validation.js';
import { loginSchema, logoutSchema, passwdSchema, signupSchema } from './accounts-schemas.js';
import type { Accounts } from './index.js';

export interface AccountRouteDeps {
  /** Per client IP, on the routes that hash a password: scrypt is deliberately slow, so floods must stop early. */
  limiter: RateLimiter;
  now: () => number;
}

export function registerAccountRoutes(router: Router, accounts: Accounts, deps: AccountRouteDeps): void {
  const throttle = (req: IncomingMessage) => deps.limiter.take(req.socket.remoteAddress ?? 'unknown', deps.now());

  router.post('/users/v1/signup', async ({ req, res }) => {
    accounts.assertSignupOpen();
    throttle(req);
    const input = parseBody(signupSchema, await readJsonBody(req), 'email, password, name and organization');
    sendJson(res, 201, await accounts.signup(input));
  });

  router.post('/users/v1/login', async ({ req }) => {
    throttle(req);
    return accounts.login(parseBody(loginSchema, await readJsonBody(req), 'email and password'));
  });

  router.get('/users/v1/me', async ({ req }) => {
    const { id: _id, ...profile } = await accounts.authenticate(req.headers.authorization);
    return profile;
  });

  router.patch('/users/v1/passwd', async ({ req }) => {
    // Authenticate before reading the body, so a caller without a token learns nothing about body rules.
    await accounts.authenticate(req.headers.authorization);
    throttle(req);
    const input = parseBody(passwdSchema, await readJsonBody(req), 'password and newPassword');
    return accounts.changePassword(req.headers.authorization, input);
  });

  // 204 once this token is revoked. Not throttled: it hashes no password, and each token can be revoked only once (a
  // second logout with it is the 401 of any revoked token), so its rows are bounded by the throttled logins.
  router.post('/users/v1/logout', async ({ req, res }) => {
    await accounts.authenticate(req.headers.authorization);
    const body = await readJsonBody(req);
    if (body !== undefined) parseBody(logoutSchema, body, 'nothing (or {})');
    await accounts.logout(req.headers.authorization);
    res.writeHead(204, { 'cache-control': 'no-store' });
    res.end();
  });
}
