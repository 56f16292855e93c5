// `txdesk signup`: creates an account on the txdesk service (open sign-up only) and logs in to it.
import { z } from 'zod';
import { createAccountsClient } from './accounts-client.js';
import type { CliContext } from './cli-context.js';
import { parseOptions } from './cli-options.js';
import { collectCredentials } from './prompt-credentials.js';

const signupOptions = z.object({
  name: z.string().optional(),
  organization: z.string().optional(),
  email: z.string().optional(),
  passwordStdin: z.boolean().optional(),
});

export async function runSignup(raw: Record<string, unknown>, context: () => CliContext): Promise<void> {
  const opts = parseOptions(signupOptions, raw);
  const ctx = context();
  const endpoint = ctx.endpoint();
  const client = createAccountsClient(endpoint.url);
  const { values, password } = await collectCredentials({
    command: 'signup',
    beforePrompting: () => client.assertReachable(),
    fields: [
      { key: 'name', label: 'Name', flag: '--name', given: opts.name },
      { key: 'organization', label: 'Organization', flag: '--organization', given: opts.organization },
      { key: 'email', label: 'Email', flag: '--email', given: opts.email },
    ],
    passwordStdin: opts.passwordStdin === true,
    confirmPassword: true,
  });
  const email = values.email ?? '';
  const created = await client.signup({ email, password, name: values.name ?? '', organization: values.organization ?? '' });
  const session = created ?? (await client.login(email, password));
  const saved = ctx.sessions.save(new URL(endpoint.url).origin, session.jwtToken);
  if (saved.warning) ctx.err(saved.warning);
  ctx.out(`Signed up and logged in to ${endpoint.url} as ${session.email}.`);
  ctx.out(`ClientId: ${session.clientId}`);
}
