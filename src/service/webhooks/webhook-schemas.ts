// The webhook API's contract (docs/webhooks.md): request bodies and the webhook as answered, in zod, from which the
// routes validate and the OpenAPI document is generated.
import { z } from 'zod';
import { ADDRESS_PATTERN } from '../../shared/address.js';
import { MAX_SECRET_OVERLAP_SECONDS } from '../../shared/defaults.js';

/** Addresses one webhook may watch. */
export const MAX_WATCHED_ADDRESSES = 100;
export const DEFAULT_SECRET_OVERLAP_SECONDS = 24 * 60 * 60;

const netName = z.string().regex(/^[a-z0-9-]{1,40}$/, { error: 'must be 1 to 40 lowercase letters, digits or dashes' });
const addresses = z
  .array(z.string().regex(ADDRESS_PATTERN, { error: 'must be 0x followed by 40 hex digits' }))
  .max(MAX_WATCHED_ADDRESSES, { error: `at most ${MAX_WATCHED_ADDRESSES} addresses per webhook` })
  .meta({ description: 'Addresses whose ERC-721 and ERC-1155 moves (into or out of them) are delivered as `activity` messages.' });
const url = z
  .string()
  .min(1)
  .max(2048)
  .meta({ description: 'https://, or http:// on loopback (only where the operator allows private addresses).' });

export const createWebhookSchema = z
  .strictObject({
    url,
    platform: netName.optional().meta({ description: "The network's platform; the default network's unless set." }),
    network: netName.optional().meta({ description: 'The network; the default network unless set (GET /nft/v1/networks lists them).' }),
    trackerMessages: z
      .boolean()
      .optional()
      .meta({ description: "Deliver the tracker's messages of the transactions the client tracks (default true)." }),
    addresses: addresses.optional(),
  })
  .meta({ id: 'WebhookCreate' });

export const updateWebhookSchema = z
  .strictObject({
    url: url.optional(),
    trackerMessages: z.boolean().optional(),
    addresses: addresses.optional(),
    state: z
      .enum(['active', 'paused'])
      .optional()
      .meta({ description: '`active` resumes a paused or failing webhook (its retries start afresh); `paused` holds its deliveries.' }),
    rotateSecret: z
      .boolean()
      .optional()
      .meta({ description: 'A new secret, answered once in `secret`; the old one keeps signing too for `secretOverlapSeconds`.' }),
    secretOverlapSeconds: z.int().min(0).max(MAX_SECRET_OVERLAP_SECONDS).optional().meta({ description: 'Default 86400 (one day).' }),
  })
  .meta({ id: 'WebhookUpdate' });

const when = z.union([z.int().min(0), z.iso.datetime({ offset: true })]);
export const replaySchema = z
  .strictObject({
    from: when
      .optional()
      .meta({ description: 'Start of the range: ms since 1970 or an ISO 8601 time; the messages stored in [from, to] are sent again.' }),
    to: when.optional().meta({ description: 'End of the range (now unless set).' }),
    fromMessageId: z.string().min(1).max(128).optional().meta({ description: 'Or: this message and every later one.' }),
  })
  .refine((r) => (r.from !== undefined) !== (r.fromMessageId !== undefined), {
    error: 'give either from (with an optional to) or fromMessageId',
  })
  .meta({ id: 'WebhookReplay' });

export const webhookReply = z
  .object({
    id: z.string(),
    platform: z.string(),
    network: z.string(),
    url: z.string(),
    trackerMessages: z.boolean(),
    addresses: z.array(z.string()),
    state: z
      .enum(['active', 'failing', 'paused'])
      .meta({ description: '`failing`: the receiver failed for 24 hours; deliveries wait until it is set `active` again.' }),
    pending: z.int().meta({ description: 'Deliveries waiting to be sent.' }),
    createdAt: z.string(),
    lastAttemptAt: z.string().nullable(),
    lastSuccessAt: z.string().nullable(),
    failingSince: z.string().nullable().meta({ description: 'First failed try since the last success.' }),
    lastError: z.string().nullable(),
    previousSecretUntil: z.string().nullable().meta({ description: 'Until then deliveries are signed with the previous secret too.' }),
  })
  .meta({ id: 'Webhook' });

export const webhookWithSecret = webhookReply
  .extend({ secret: z.string().meta({ description: 'Shown once: keep it to verify signatures.' }) })
  .meta({ id: 'WebhookWithSecret' });

export const attemptReply = z
  .object({ ok: z.boolean(), status: z.int().nullable(), error: z.string().nullable(), durationMs: z.number() })
  .meta({ id: 'WebhookAttempt' });

export type CreateWebhook = z.infer<typeof createWebhookSchema>;
export type UpdateWebhook = z.infer<typeof updateWebhookSchema>;
export type ReplayRequest = z.infer<typeof replaySchema>;
export type WebhookReply = z.infer<typeof webhookReply>;
