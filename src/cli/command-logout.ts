// `txdesk logout`: revokes the session token on the service, then forgets it here (keychain and fallback file), the
// latter also when the service cannot be reached, so a user can always log out of this machine.
import { createAccountsClient, type LogoutOutcome } from './accounts-client.js';
import type { CliContext } from './cli-context.js';
import { tokenExpiry } from './session-store.js';

export async function runLogout(context: () => CliContext): Promise<void> {
  const ctx = context();
  const endpoint = ctx.endpoint();
  const origin = new URL(endpoint.url).origin;
  const session = ctx.sessions.load(origin);
  let outcome: LogoutOutcome | null = null;
  try {
    if (session) outcome = await revoke(endpoint.url, session.token);
  } finally {
    // Whatever the service said (or if it said nothing), the session leaves this machine.
    const removed = ctx.sessions.remove(origin);
    ctx.out(removed || session ? `Logged out of ${endpoint.url}.` : `Not logged in to ${endpoint.url}; nothing to remove.`);
  }
  if (outcome?.kind === 'kept') ctx.err(keptWarning(endpoint.url, outcome.why, session ? tokenExpiry(session.token) : null));
}

/** A token past its `exp` is refused by the service already; asking it to revoke one would only add a needless warning
 * when the service is down. */
async function revoke(url: string, token: string): Promise<LogoutOutcome> {
  const exp = tokenExpiry(token);
  if (exp !== null && exp * 1000 <= Date.now()) return { kind: 'invalid' };
  return createAccountsClient(url).logout(token);
}

function keptWarning(url: string, why: string, exp: number | null): string {
  const until = exp === null ? 'until it expires' : `until it expires at ${new Date(exp * 1000).toISOString().replace(/\.\d{3}Z$/, 'Z')}`;
  return `Warning: the session token could not be revoked on ${url} (${why}); it stays valid there ${until}.`;
}
