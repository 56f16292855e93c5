// How the accounts client turns service answers into one-line CLI errors: a table of canned HTTP answers.
import { createServer, type Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAccountsClient } from '../../src/cli/accounts-client.js';
import { CliError } from '../../src/cli/cli-errors.js';

interface Canned {
  status: number;
  body: string;
  headers?: Record<string, string>;
}

let server: Server;
let base: string;
let next: Canned = { status: 200, body: '{}' };

beforeAll(async () => {
  server = createServer((_req, res) => {
    res.writeHead(next.status, { 'content-type': 'application/json', ...next.headers });
    res.end(next.body);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
});
afterAll(() => new Promise<void>((r) => server.close(() => r())));

const envelope = (code: string, message: string) => JSON.stringify({ error: { code, message } });

async function failure(op: 'login' | 'me' | 'signup' | 'api-secret', canned: Canned): Promise<CliError> {
  next = canned;
  const client = createAccountsClient(base);
  try {
    if (op === 'login') await client.login('a@example.com', 'pw');
    else if (op === 'me') await client.me('token');
    else if (op === 'api-secret') await client.createApiSecret('token', false);
    else await client.signup({ email: 'a@example.com', password: 'pw', name: 'n', organization: 'o' });
  } catch (e) {
    expect(e).toBeInstanceOf(CliError);
    return e as CliError;
  }
  throw new Error('expected a failure');
}

describe('accounts client errors', () => {
  it.each([
    [
      'login',
      { status: 401, body: envelope('UNAUTHORIZED', 'The e-mail or password is wrong.') },
      1,
      'Wrong e-mail or password: check both and run `txdesk login` again.',
    ],
    [
      'me',
      { status: 401, body: envelope('UNAUTHORIZED', 'The session token has expired; log in again.') },
      1,
      'Your session has expired: run `txdesk login` again.',
    ],
    [
      'me',
      { status: 401, body: envelope('UNAUTHORIZED', 'The session token is not valid; log in again.') },
      1,
      'Your session is no longer valid: run `txdesk login` again.',
    ],
    [
      'signup',
      { status: 403, body: envelope('FORBIDDEN', 'Sign-up is closed on this service.') },
      1,
      'Sign-up is closed on BASE: ask whoever runs that service for an account, or run your own with `txdesk service --dev`.',
    ],
    [
      'signup',
      { status: 409, body: envelope('CONFLICT', 'exists') },
      1,
      'An account with that e-mail already exists on BASE: run `txdesk login` instead.',
    ],
    [
      'signup',
      { status: 400, body: envelope('INVALID_PARAMETER', "The field 'password' must have at least 8 characters.") },
      1,
      "The service refused: The field 'password' must have at least 8 characters.",
    ],
    [
      'login',
      { status: 429, body: envelope('RATE_LIMITED', 'slow down'), headers: { 'retry-after': '7' } },
      1,
      'Too many attempts: wait 7 seconds and try again.',
    ],
    [
      'login',
      { status: 404, body: '<html>not found</html>' },
      1,
      'The server at BASE has no txdesk accounts API (HTTP 404): check the endpoint with `txdesk config:get endpoint`.',
    ],
    [
      'me',
      { status: 200, body: '{"hello":"world"}' },
      1,
      'The server at BASE did not answer like a txdesk service: check the endpoint with `txdesk config:get endpoint`.',
    ],
    [
      'login',
      { status: 301, body: '', headers: { location: 'https://elsewhere.example/users/v1/login' } },
      1,
      "The server at BASE redirects to https://elsewhere.example/users/v1/login: set the service's own URL with `txdesk config:set endpoint <url>`.",
    ],
    [
      'me',
      { status: 500, body: envelope('INTERNAL', 'Something broke.') },
      1,
      'The txdesk service at BASE failed (HTTP 500: Something broke): try again, or check its log.',
    ],
    [
      'api-secret',
      { status: 409, body: envelope('CONFLICT', 'This account already has an API secret.') },
      1,
      'This account already has an API secret, shown only when it was made: run `txdesk account:api-secret --rotate` to ' +
        'replace it (the old one stops working at once).',
    ],
    [
      'api-secret',
      { status: 404, body: envelope('NOT_FOUND', 'No endpoint POST /users/v1/api-secret.') },
      1,
      'The txdesk service at BASE issues no API secrets (HTTP 404): it predates them, so its webhook API takes the clientId ' +
        'alone; `txdesk webhook` works with it as it is.',
    ],
    [
      'api-secret',
      { status: 401, body: envelope('UNAUTHORIZED', 'The session token has expired; log in again.') },
      1,
      'Your session has expired: run `txdesk login` again.',
    ],
  ] as const)('%s answered %j -> exit %i', async (op, canned, exitCode, message) => {
    const error = await failure(op, canned);
    expect(error.message).toBe(message.replace('BASE', base));
    expect(error.exitCode).toBe(exitCode);
  });

  it('returns the session a sign-up hands out, and null when it hands none', async () => {
    const session = { email: 'a@example.com', name: 'n', organization: 'o', clientId: 'c', jwtToken: 'x.y.z' };
    next = { status: 201, body: JSON.stringify(session) };
    expect(await createAccountsClient(base).signup({ email: 'a@example.com', password: 'pw', name: 'n', organization: 'o' })).toEqual(
      session,
    );
    next = { status: 201, body: '{}' };
    expect(await createAccountsClient(base).signup({ email: 'a@example.com', password: 'pw', name: 'n', organization: 'o' })).toBeNull();
  });
});
