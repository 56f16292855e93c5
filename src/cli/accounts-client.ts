// HTTP client of the data service's accounts API (docs/api.md, Accounts); turns every failure into one line that says what to do.
import { z } from 'zod';
import { CliError, exitCodes } from './cli-errors.js';

export const profileSchema = z.object({
  email: z.string(),
  name: z.string(),
  organization: z.string(),
  clientId: z.string(),
});
export type AccountProfile = z.infer<typeof profileSchema>;

const loginSchema = profileSchema.extend({ jwtToken: z.string().min(1) });
export type LoginResult = z.infer<typeof loginSchema>;

const apiSecretSchema = z.object({ apiSecret: z.string().min(1), createdAt: z.string() });
export type ApiSecretResult = z.infer<typeof apiSecretSchema>;

const errorBodySchema = z.object({ error: z.object({ code: z.string(), message: z.string() }) });

export interface SignupInput {
  email: string;
  password: string;
  name: string;
  organization: string;
}

/** What became of a session token at `logout`: `invalid` means the service already refused it (expired, revoked, the
 * password changed), so nothing is left to revoke; `kept` means the service was not reached or failed, and `why` says so. */
export type LogoutOutcome = { kind: 'revoked' } | { kind: 'invalid' } | { kind: 'kept'; why: string };

export interface AccountsClient {
  /** The new account's session when the service hands one out with the sign-up (txdesk's does), else null. */
  signup(input: SignupInput): Promise<LoginResult | null>;
  login(email: string, password: string): Promise<LoginResult>;
  me(token: string): Promise<AccountProfile>;
  /** Makes the account's API secret (POST /users/v1/api-secret); `rotate` replaces the one it has. */
  createApiSecret(token: string, rotate: boolean): Promise<ApiSecretResult>;
  /** Ends the account's API secret; false when it had none. */
  revokeApiSecret(token: string): Promise<boolean>;
  /** Asks the service to revoke the token (POST /users/v1/logout). Never throws: logout goes on locally whatever happens. */
  logout(token: string): Promise<LogoutOutcome>;
  /** Throws the "cannot reach" error when nothing answers HTTP at the endpoint; any answer will do. */
  assertReachable(): Promise<void>;
}

type Operation = 'signup' | 'login' | 'me' | 'api-secret';

interface Answer {
  status: number;
  body: unknown;
  retryAfter: string | null;
  location: string | null;
}

export function createAccountsClient(baseUrl: string, { timeoutMs = 15_000 }: { timeoutMs?: number } = {}): AccountsClient {
  /** One request; `{ unreachable }` holds why nothing answered HTTP (refused, DNS, timeout). */
  const send = async (method: string, path: string, body?: unknown, token?: string): Promise<Answer | { unreachable: string }> => {
    const headers: Record<string, string> = { accept: 'application/json' };
    if (body !== undefined) headers['content-type'] = 'application/json';
    if (token !== undefined) headers.authorization = `Bearer ${token}`;
    let response: Response;
    try {
      response = await fetch(`${baseUrl}${path}`, {
        method,
        headers,
        body: body === undefined ? undefined : JSON.stringify(body),
        signal: AbortSignal.timeout(timeoutMs),
        // Not followed: a password is not sent on to wherever a redirect points.
        redirect: 'manual',
      });
    } catch (e) {
      return { unreachable: unreachableReason(e, timeoutMs) };
    }
    // An empty body, or one that is not JSON, is no body.
    const parsed: unknown = await response.json().catch(() => undefined);
    return {
      status: response.status,
      body: parsed,
      retryAfter: response.headers.get('retry-after'),
      location: response.headers.get('location'),
    };
  };

  const request = async (method: string, path: string, body?: unknown, token?: string): Promise<Answer> => {
    const answer = await send(method, path, body, token);
    if ('unreachable' in answer) throw unreachable(baseUrl, answer.unreachable);
    return answer;
  };

  const expect = <T>(schema: z.ZodType<T>, answer: Answer, op: Operation): T => {
    if (answer.status < 200 || answer.status > 299) throw failure(baseUrl, answer, op);
    const parsed = schema.safeParse(answer.body);
    if (!parsed.success) {
      throw new CliError(
        `The server at ${baseUrl} did not answer like a txdesk service: check the endpoint with \`txdesk config:get endpoint\`.`,
      );
    }
    return parsed.data;
  };

  return {
    async signup(input) {
      const session = loginSchema.safeParse(expect(z.unknown(), await request('POST', '/users/v1/signup', input), 'signup'));
      return session.success ? session.data : null;
    },
    async login(email, password) {
      return expect(loginSchema, await request('POST', '/users/v1/login', { email, password }), 'login');
    },
    async me(token) {
      return expect(profileSchema, await request('GET', '/users/v1/me', undefined, token), 'me');
    },
    async createApiSecret(token, rotate) {
      return expect(apiSecretSchema, await request('POST', '/users/v1/api-secret', rotate ? { rotate: true } : {}, token), 'api-secret');
    },
    async revokeApiSecret(token) {
      return expect(z.object({ revoked: z.boolean() }), await request('DELETE', '/users/v1/api-secret', undefined, token), 'api-secret')
        .revoked;
    },
    async logout(token) {
      const answer = await send('POST', '/users/v1/logout', undefined, token);
      if ('unreachable' in answer) return { kind: 'kept', why: `cannot reach it: ${answer.unreachable}` };
      if (answer.status >= 200 && answer.status <= 299) return { kind: 'revoked' };
      if (answer.status === 401) return { kind: 'invalid' };
      const message = errorBodySchema.safeParse(answer.body);
      const detail = message.success
        ? `: ${message.data.error.message
            .replace(/\s+/g, ' ')
            .trim()
            .slice(0, 200)
            .replace(/[.;]+$/, '')}`
        : '';
      return { kind: 'kept', why: `HTTP ${answer.status}${detail}` };
    },
    async assertReachable() {
      await request('GET', '/health');
    },
  };
}

function unreachableReason(e: unknown, timeoutMs: number): string {
  const err = e as Error & { cause?: { code?: string; message?: string } };
  return err.name === 'TimeoutError'
    ? `no answer within ${Math.round(timeoutMs / 1000)} s`
    : (err.cause?.code ?? err.cause?.message ?? err.message);
}

function unreachable(baseUrl: string, why: string): CliError {
  return new CliError(
    `Cannot reach the txdesk service at ${baseUrl} (${why}): start one with \`txdesk service --dev\`, ` +
      'or point txdesk at another with `txdesk config:set endpoint <url>`.',
    exitCodes.unreachable,
  );
}

/** The line for a non-2xx answer; the service's own message is used where it already says what to do. */
function failure(baseUrl: string, { status, body, retryAfter, location }: Answer, op: Operation): CliError {
  const envelope = errorBodySchema.safeParse(body);
  const serviceMessage = envelope.success ? envelope.data.error.message.replace(/\s+/g, ' ').trim() : undefined;
  if (status === 401 && op === 'login') return new CliError('Wrong e-mail or password: check both and run `txdesk login` again.');
  if (status === 401 && serviceMessage && /expired/i.test(serviceMessage)) {
    return new CliError('Your session has expired: run `txdesk login` again.');
  }
  if (status === 401) return new CliError('Your session is no longer valid: run `txdesk login` again.');
  if (op === 'signup' && status === 403) {
    return new CliError(
      `Sign-up is closed on ${baseUrl}: ask whoever runs that service for an account, or run your own with \`txdesk service --dev\`.`,
    );
  }
  if (op === 'signup' && status === 409) {
    return new CliError(`An account with that e-mail already exists on ${baseUrl}: run \`txdesk login\` instead.`);
  }
  if (op === 'api-secret' && status === 409) {
    return new CliError(
      'This account already has an API secret, shown only when it was made: run `txdesk account:api-secret --rotate` ' +
        'to replace it (the old one stops working at once).',
    );
  }
  if (op === 'api-secret' && status === 404) {
    return new CliError(
      `The txdesk service at ${baseUrl} issues no API secrets (HTTP 404): it predates them, so its webhook API takes ` +
        'the clientId alone; `txdesk webhook` works with it as it is.',
    );
  }
  if (status >= 300 && status < 400) {
    return new CliError(
      `The server at ${baseUrl} redirects${location ? ` to ${location}` : ''}: set the service's own URL with \`txdesk config:set endpoint <url>\`.`,
    );
  }
  if (status === 429) {
    const wait = retryAfter && /^\d+$/.test(retryAfter) ? `${retryAfter} seconds` : 'a minute';
    return new CliError(`Too many attempts: wait ${wait} and try again.`);
  }
  if (status === 400 && serviceMessage) return new CliError(`The service refused: ${serviceMessage}`);
  if (status === 404 && !envelope.success) {
    return new CliError(
      `The server at ${baseUrl} has no txdesk accounts API (HTTP 404): check the endpoint with \`txdesk config:get endpoint\`.`,
    );
  }
  const detail = serviceMessage ? `: ${serviceMessage.replace(/[.;]+$/, '')}` : '';
  return new CliError(`The txdesk service at ${baseUrl} failed (HTTP ${status}${detail}): try again, or check its log.`);
}
