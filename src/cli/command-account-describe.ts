// `txdesk account:describe`: the logged-in account's e-mail, name, organization and client ID (docs/api.md, Accounts).
import { z } from 'zod';
import { createAccountsClient } from './accounts-client.js';
import { liveSession, type CliContext } from './cli-context.js';
import { parseOptions } from './cli-options.js';

const describeOptions = z.object({ json: z.boolean().optional() });

export async function runAccountDescribe(raw: Record<string, unknown>, context: () => CliContext): Promise<void> {
  const opts = parseOptions(describeOptions, raw);
  const ctx = context();
  const { endpoint, token } = liveSession(ctx);
  const me = await createAccountsClient(endpoint.url).me(token);
  if (opts.json) {
    ctx.out(JSON.stringify({ email: me.email, name: me.name, organization: me.organization, clientId: me.clientId }));
    return;
  }
  ctx.out(`Email: ${me.email}`);
  ctx.out(`Name: ${me.name}`);
  ctx.out(`Organization: ${me.organization}`);
  ctx.out(`ClientId: ${me.clientId}`);
}
