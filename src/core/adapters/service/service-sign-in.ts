// Signs in to the data service with e-mail and password (POST /users/v1/login) and returns the account's client ID;
// each refusal is one sentence that says what to do.
import { RateLimitedError } from '../../../lib/http-kit.js';
import type { SignIn } from '../../../shared/desktop-api.js';
import { TxdeskError } from '../../../shared/errors.js';

const SIGN_IN_TIMEOUT_MS = 15_000;

export async function signInToService(serviceUrl: string, credentials: SignIn): Promise<string> {
  let res: Response;
  try {
    res = await fetch(`${serviceUrl}/users/v1/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(credentials),
      signal: AbortSignal.timeout(SIGN_IN_TIMEOUT_MS),
    });
  } catch {
    throw new TxdeskError(
      'UPSTREAM_UNAVAILABLE',
      `The data service at ${serviceUrl} could not be reached; check that it runs, then retry.`,
    );
  }
  const body = (await res.json().catch(() => null)) as { clientId?: unknown } | null;
  if (res.status === 401) throw new TxdeskError('UNAUTHORIZED', 'The e-mail or password is wrong; check them and retry.');
  if (res.status === 429) {
    const wait = Math.max(1, Number(res.headers.get('retry-after')) || 60);
    throw new RateLimitedError(wait, `Too many sign-in attempts; wait ${wait} s, then retry.`);
  }
  if (!res.ok || typeof body?.clientId !== 'string')
    throw new TxdeskError('UPSTREAM_UNAVAILABLE', `The data service answered HTTP ${res.status} to the sign-in; try again later.`);
  return body.clientId;
}
