// `txdesk account:api-secret [--rotate | --revoke]`: the logged-in account's API secret, the long-lived credential a
// program sends to manage webhooks (docs/webhooks.md, "Who may manage webhooks"); shown once, when made.
import { z } from 'zod';
import { createAccountsClient } from './accounts-client.js';
import { usageError } from './cli-errors.js';
import { liveSession, type CliContext } from './cli-context.js';
import { parseOptions } from './cli-options.js';

const apiSecretOptions = z.object({ rotate: z.boolean().optional(), revoke: z.boolean().optional(), json: z.boolean().optional() });

/** The sentence that goes with a new secret: it is shown this once, and says how a program uses it. */
const secretNotice =
  'This API secret is shown only this once: give it to the program that manages your webhooks, which sends it as ' +
  '"Authorization: Bearer <secret>" (docs/webhooks.md); `txdesk account:api-secret --rotate` replaces it.';

export async function runAccountApiSecret(raw: Record<string, unknown>, context: () => CliContext): Promise<void> {
  const opts = parseOptions(apiSecretOptions, raw);
  if (opts.rotate && opts.revoke) throw usageError('--rotate and --revoke contradict each other: give one of them.');
  const ctx = context();
  const { endpoint, token } = liveSession(ctx);
  const client = createAccountsClient(endpoint.url);

  if (opts.revoke) {
    const revoked = await client.revokeApiSecret(token);
    if (opts.json) return ctx.out(JSON.stringify({ revoked }));
    return ctx.out(
      revoked
        ? 'Revoked the API secret: programs using it can no longer manage webhooks.'
        : 'This account has no API secret; nothing to revoke.',
    );
  }
  const made = await client.createApiSecret(token, opts.rotate === true);
  if (opts.json) {
    ctx.out(JSON.stringify(made));
    ctx.err(secretNotice);
    return;
  }
  ctx.out(`API secret: ${made.apiSecret}`);
  ctx.out(secretNotice);
}
