// `txdesk account:describe`: the logged-in account's e-mail, name, organization and client ID (docs/api.md, Accounts).
import { z } from 'zod';
import { createAccountsClient } from './accounts-client.js';
import { CliError, notLoggedInMessage } from './cli-errors.js';
import type { CliContext } from './cli-context.js';
import { parseOptions } from './cli-options.js';
import { tokenExpiry } from './session-store.js';

const describeOptions = z.object({ json: z.boolean().optional() });

export async function runAccountDescribe(raw: Record<string, unknown>, context: () => CliContext): Promise<void> {
  const opts = parseOptions(describeOptions, raw);
  const ctx = context();
  const endpoint = ctx.endpoint();
  const session = ctx.sessions.load(new URL(endpoint.url).origin);
  if (!session) throw new CliError(notLoggedInMessage(endpoint));
  const exp = tokenExpiry(session.token);
  if (exp !== null && exp * 1000 < Date.now()) throw new CliError('Your session has expired: run `txdesk login` again.');
  const me = await createAccountsClient(endpoint.url).me(session.token);
  if (opts.json) {
    ctx.out(JSON.stringify({ email: me.email, name: me.name, organization: me.organization, clientId: me.clientId }));
    return;
  }
  ctx.out(`Email: ${me.email}`);
  ctx.out(`Name: ${me.name}`);
  ctx.out(`Organization: ${me.organization}`);
  ctx.out(`ClientId: ${me.clientId}`);
}
