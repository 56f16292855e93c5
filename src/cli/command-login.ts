// `txdesk login`: exchanges e-mail and password for a session token and keeps it in the keychain.
import { z } from 'zod';
import { createAccountsClient } from './accounts-client.js';
import type { CliContext } from './cli-context.js';
import { parseOptions } from './cli-options.js';
import { collectCredentials } from './prompt-credentials.js';

const loginOptions = z.object({ email: z.string().optional(), passwordStdin: z.boolean().optional() });

export async function runLogin(raw: Record<string, unknown>, context: () => CliContext): Promise<void> {
  const opts = parseOptions(loginOptions, raw);
  const ctx = context();
  const endpoint = ctx.endpoint();
  const client = createAccountsClient(endpoint.url);
  const { values, password } = await collectCredentials({
    command: 'login',
    beforePrompting: () => client.assertReachable(),
    fields: [{ key: 'email', label: 'Email', flag: '--email', given: opts.email }],
    passwordStdin: opts.passwordStdin === true,
  });
  const email = values.email ?? '';
  const session = await client.login(email, password);
  const saved = ctx.sessions.save(new URL(endpoint.url).origin, session.jwtToken);
  if (saved.warning) ctx.err(saved.warning);
  ctx.out(`Logged in to ${endpoint.url} as ${session.email}.`);
}
