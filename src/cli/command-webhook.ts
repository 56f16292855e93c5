// `txdesk webhook add|list|remove|test|replay|update`: the logged-in account's webhooks (docs/webhooks.md), managed
// through the data service's webhook API with the login session as the credential (nothing to paste); a refusal is
// shown as the service's own sentence.
import { z } from 'zod';
import { ADDRESS_PATTERN } from '../shared/address.js';
import {
  attemptReply,
  webhookReply,
  webhookWithSecret,
  type CreateWebhook,
  type ReplayRequest,
  type UpdateWebhook,
  type WebhookReply,
} from '../service/webhooks/webhook-schemas.js';
import { createAccountsClient } from './accounts-client.js';
import { CliError, usageError } from './cli-errors.js';
import { liveSession, type CliContext } from './cli-context.js';
import { parseOptions } from './cli-options.js';
import { MAX_SECRET_OVERLAP_SECONDS } from '../shared/defaults.js';

/** Longer than the service's own 10 s limit on a test delivery, so its answer about a slow receiver arrives. */
const REQUEST_TIMEOUT_MS = 30_000;

const addressList = z
  .array(
    z
      .string()
      .trim()
      .regex(ADDRESS_PATTERN, { error: (i) => `${JSON.stringify(i.input)} is not an address; give 0x followed by 40 hex digits` }),
  )
  .optional();
const networkOption = z
  .string()
  .trim()
  .regex(
    /^([a-z0-9-]{1,40}\/)?[a-z0-9-]{1,40}$/,
    'give <platform>/<network> (e.g. ethereum/local-2) or a network of the default platform, in lowercase letters, digits and dashes',
  );
/** ms since 1970, or an ISO 8601 date-time; sent as the service reads it. */
const timeOption = z
  .string()
  .trim()
  .refine(
    (v) => /^\d{1,15}$/.test(v) || (/^\d{4}-\d{2}-\d{2}T/.test(v) && !Number.isNaN(Date.parse(v))),
    'give an ISO 8601 time such as 2026-01-31T12:00:00Z, or milliseconds since 1970',
  )
  .transform((v) => (/^\d+$/.test(v) ? Number(v) : new Date(v).toISOString()));
const overlapOption = z
  .string()
  .trim()
  .regex(/^\d{1,7}$/, `give a whole number of seconds from 0 to ${MAX_SECRET_OVERLAP_SECONDS}`)
  .transform(Number)
  .pipe(z.number().max(MAX_SECRET_OVERLAP_SECONDS, `give a whole number of seconds from 0 to ${MAX_SECRET_OVERLAP_SECONDS}`));

const addOptions = z.object({
  network: networkOption.optional(),
  trackerMessages: z.boolean(),
  address: addressList,
  json: z.boolean().optional(),
});
const jsonOnly = z.object({ json: z.boolean().optional() });
const replayOptions = z.object({
  from: timeOption.optional(),
  to: timeOption.optional(),
  fromMessage: z.string().trim().min(1, 'give a messageId').optional(),
  json: z.boolean().optional(),
});
const updateOptions = z.object({
  url: z.string().trim().min(1, 'give the new URL').optional(),
  state: z.enum(['active', 'paused'], { error: 'give active (resumes a paused or failing webhook) or paused' }).optional(),
  rotateSecret: z.boolean().optional(),
  overlap: overlapOption.optional(),
  address: addressList,
  clearAddresses: z.boolean().optional(),
  trackerMessages: z.boolean().optional(),
  json: z.boolean().optional(),
});

/** The webhook API of one service, as the logged-in account. */
interface WebhookApi {
  call<T>(method: string, path: string, reply: z.ZodType<T>, body?: unknown): Promise<T>;
}

/**
 * The endpoint's webhook API as the logged-in account: the session token is the credential (docs/webhooks.md, "Who
 * may manage webhooks"). The clientId, asked of the service as `account:describe` does, goes into the query too: a
 * service that predates the credential knows the account only by it, and a current one checks that both agree.
 */
async function openWebhookApi(ctx: CliContext): Promise<WebhookApi> {
  const { endpoint, token } = liveSession(ctx);
  const base = endpoint.url;
  const { clientId } = await createAccountsClient(base).me(token);
  return {
    async call(method, path, reply, body) {
      let response: Response;
      try {
        response = await fetch(`${base}/tracker/v1/webhooks${path}?clientId=${encodeURIComponent(clientId)}`, {
          method,
          headers: {
            accept: 'application/json',
            authorization: `Bearer ${token}`,
            ...(body === undefined ? {} : { 'content-type': 'application/json' }),
          },
          body: body === undefined ? undefined : JSON.stringify(body),
          signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
          // Not followed: the session token is not sent on to wherever a redirect points.
          redirect: 'manual',
        });
      } catch (e) {
        // The accounts client's check says "cannot reach" in the CLI's words; a service that answers it only took too long.
        await createAccountsClient(base).assertReachable();
        const err = e as Error & { cause?: { code?: string } };
        const why = err.name === 'TimeoutError' ? `no answer within ${REQUEST_TIMEOUT_MS / 1000} s` : (err.cause?.code ?? err.message);
        throw new CliError(`The txdesk service at ${base} did not complete the request (${why}): try again, or check its log.`);
      }
      const answer: unknown = await response.json().catch(() => undefined);
      if (response.status < 200 || response.status > 299) throw refusal(base, response, answer);
      const parsed = reply.safeParse(answer);
      if (!parsed.success) {
        throw new CliError(
          `The server at ${base} did not answer like a txdesk service with webhooks: check the endpoint with \`txdesk config:get endpoint\`.`,
        );
      }
      return parsed.data;
    },
  };
}

const errorBody = z.object({ error: z.object({ code: z.string(), message: z.string() }) });

/** A non-2xx answer as one line: the service's sentence where it sent one (it says what to do), else what we know. */
function refusal(base: string, response: Response, answer: unknown): CliError {
  const envelope = errorBody.safeParse(answer);
  const message = envelope.success ? envelope.data.error.message.replace(/\s+/g, ' ').trim() : undefined;
  const status = response.status;
  if (status >= 300 && status < 400) {
    const location = response.headers.get('location');
    return new CliError(
      `The server at ${base} redirects${location ? ` to ${location}` : ''}: set the service's own URL with \`txdesk config:set endpoint <url>\`.`,
    );
  }
  if (status === 401) {
    // The session was checked a moment ago (GET /users/v1/me); it ended since, or the service refuses it for webhooks.
    return new CliError(
      message && /expired/i.test(message)
        ? 'Your session has expired: run `txdesk login` again.'
        : 'Your session is no longer valid: run `txdesk login` again.',
    );
  }
  if (status === 429 && !message) {
    const retryAfter = response.headers.get('retry-after');
    return new CliError(
      `Too many requests for this account: wait ${retryAfter && /^\d+$/.test(retryAfter) ? `${retryAfter} seconds` : 'a minute'} and try again.`,
    );
  }
  if (status < 500 && message) return new CliError(message);
  if (status === 404) {
    return new CliError(
      `The server at ${base} has no webhook API (HTTP 404): check the endpoint with \`txdesk config:get endpoint\`, or update the txdesk service there.`,
    );
  }
  return new CliError(
    `The txdesk service at ${base} failed (HTTP ${status}${message ? `: ${message.replace(/[.;]+$/, '')}` : ''}): try again, or check its log.`,
  );
}

/** The path of webhook `id` (or of `rest` below it) after /tracker/v1/webhooks. */
const member = (id: string, rest = '') => `/${encodeURIComponent(id)}${rest}`;
const plural = (n: number, one: string, many: string) => `${n} ${n === 1 ? one : many}`;

/** What a webhook delivers, in a few words. */
function deliveries(w: Pick<WebhookReply, 'trackerMessages' | 'addresses'>): string {
  const parts = [
    w.trackerMessages ? 'tracker messages' : '',
    w.addresses.length > 0 ? `activity of ${plural(w.addresses.length, 'address', 'addresses')}` : '',
  ];
  return parts.filter(Boolean).join(' + ');
}

/** Rows as columns padded to their widest cell; the last column is left as is (a long error stays readable). */
function table(rows: string[][]): string[] {
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => r[i]!.length)));
  return rows.map((r) =>
    r
      .map((cell, i) => (i === r.length - 1 ? cell : cell.padEnd(widths[i]!)))
      .join('  ')
      .trimEnd(),
  );
}

/** The sentence that goes with a secret: it is shown this once. */
const secretNotice = (id: string) =>
  "This secret is shown only this once: keep it to verify each delivery's Txdesk-Signature header (docs/webhooks.md); " +
  `\`txdesk webhook update ${id} --rotate-secret\` makes a new one.`;

export async function runWebhookAdd(url: string, raw: Record<string, unknown>, context: () => CliContext): Promise<void> {
  const opts = parseOptions(addOptions, raw);
  if (!opts.trackerMessages && !opts.address?.length) {
    throw usageError('This webhook would deliver nothing: drop --no-tracker-messages, or give --address for each address to watch.');
  }
  const [platform, network] = opts.network?.includes('/') ? opts.network.split('/') : [undefined, opts.network];
  const body: CreateWebhook = {
    url: url.trim(),
    ...(platform ? { platform } : {}),
    ...(network ? { network } : {}),
    trackerMessages: opts.trackerMessages,
    ...(opts.address ? { addresses: opts.address } : {}),
  };
  const ctx = context();
  const created = await (await openWebhookApi(ctx)).call('POST', '', webhookWithSecret, body);
  if (opts.json) {
    ctx.out(JSON.stringify(created));
    ctx.err(secretNotice(created.id));
    return;
  }
  ctx.out(`Created webhook ${created.id} on ${created.platform}/${created.network}: ${deliveries(created)} to ${created.url}`);
  ctx.out(`Secret: ${created.secret}`);
  ctx.out(secretNotice(created.id));
}

export async function runWebhookList(raw: Record<string, unknown>, context: () => CliContext): Promise<void> {
  const opts = parseOptions(jsonOnly, raw);
  const ctx = context();
  const { data } = await (await openWebhookApi(ctx)).call('GET', '', z.object({ data: z.array(webhookReply) }));
  if (opts.json) return ctx.out(JSON.stringify(data));
  if (data.length === 0) return ctx.out('No webhooks yet: add one with `txdesk webhook add <url>`.');
  const rows = data.map((w) => [w.id, `${w.platform}/${w.network}`, w.state, String(w.pending), w.url, deliveries(w), w.lastError ?? '-']);
  for (const line of table([['ID', 'NETWORK', 'STATE', 'PENDING', 'URL', 'DELIVERS', 'LAST ERROR'], ...rows])) ctx.out(line);
}

export async function runWebhookRemove(id: string, context: () => CliContext): Promise<void> {
  const ctx = context();
  await (await openWebhookApi(ctx)).call('DELETE', member(id), z.object({ deleted: z.literal(true) }));
  ctx.out(`Removed webhook ${id}.`);
}

export async function runWebhookTest(id: string, raw: Record<string, unknown>, context: () => CliContext): Promise<void> {
  const opts = parseOptions(jsonOnly, raw);
  const ctx = context();
  const answer = await (await openWebhookApi(ctx)).call('POST', member(id, '/test'), attemptReply);
  if (opts.json) ctx.out(JSON.stringify(answer));
  if (!answer.ok) {
    // The service's reasons are clauses ("the receiver answered 500") or whole sentences ("The URL's host ..."): one clause here.
    const why = (answer.error ?? `the receiver answered ${answer.status}`)
      .replace(/[.;]+$/, '')
      .replace(/^[A-Z](?=[a-z' ])/, (c) => c.toLowerCase());
    throw new CliError(
      `The test delivery failed after ${answer.durationMs} ms: ${why}; fix that and run \`txdesk webhook test ${id}\` again.`,
    );
  }
  if (!opts.json) ctx.out(`Test delivery to webhook ${id}: the receiver answered ${answer.status} in ${answer.durationMs} ms.`);
}

export async function runWebhookReplay(id: string, raw: Record<string, unknown>, context: () => CliContext): Promise<void> {
  const opts = parseOptions(replayOptions, raw);
  if ((opts.from === undefined) === (opts.fromMessage === undefined))
    throw usageError('Give --from <time> (with an optional --to <time>) or --from-message <messageId>, one of the two.');
  if (opts.to !== undefined && opts.from === undefined) throw usageError('--to ends a range that --from starts: add --from <time>.');
  const ms = (t: number | string) => (typeof t === 'number' ? t : Date.parse(t));
  if (opts.from !== undefined && opts.to !== undefined && ms(opts.from) > ms(opts.to))
    throw usageError('--from is later than --to: give the earlier time to --from.');
  const body: ReplayRequest =
    opts.fromMessage !== undefined
      ? { fromMessageId: opts.fromMessage }
      : { from: opts.from!, ...(opts.to !== undefined ? { to: opts.to } : {}) };
  const ctx = context();
  const { replayed } = await (await openWebhookApi(ctx)).call('POST', member(id, '/replay'), z.object({ replayed: z.number() }), body);
  if (opts.json) return ctx.out(JSON.stringify({ replayed }));
  ctx.out(
    replayed === 0
      ? 'Nothing to replay: this webhook sent no delivery of a message stored in that range (sent deliveries are kept for 7 days).'
      : `Replaying ${plural(replayed, 'delivery', 'deliveries')} to webhook ${id}: each keeps its deliveryId and carries Txdesk-Replay: 1.`,
  );
}

export async function runWebhookUpdate(id: string, raw: Record<string, unknown>, context: () => CliContext): Promise<void> {
  const opts = parseOptions(updateOptions, raw);
  if (opts.overlap !== undefined && !opts.rotateSecret) throw usageError('--overlap goes with --rotate-secret: add it, or drop --overlap.');
  if (opts.address && opts.clearAddresses) throw usageError('--address and --clear-addresses contradict each other: give one of them.');
  const body: UpdateWebhook = {
    ...(opts.url !== undefined ? { url: opts.url } : {}),
    ...(opts.state !== undefined ? { state: opts.state } : {}),
    ...(opts.trackerMessages !== undefined ? { trackerMessages: opts.trackerMessages } : {}),
    ...(opts.address ? { addresses: opts.address } : opts.clearAddresses ? { addresses: [] } : {}),
    ...(opts.rotateSecret ? { rotateSecret: true, ...(opts.overlap !== undefined ? { secretOverlapSeconds: opts.overlap } : {}) } : {}),
  };
  if (Object.keys(body).length === 0) {
    throw usageError('Nothing to change: give --url, --state, --rotate-secret, --address, --clear-addresses or --[no-]tracker-messages.');
  }
  const ctx = context();
  const updated = await (await openWebhookApi(ctx)).call('PATCH', member(id), webhookReply.extend({ secret: z.string().optional() }), body);
  if (opts.json) ctx.out(JSON.stringify(updated));
  else ctx.out(`Updated webhook ${updated.id}: ${updated.state}, ${deliveries(updated)} to ${updated.url}`);
  if (updated.secret === undefined) return;
  if (!opts.json) ctx.out(`New secret: ${updated.secret}`);
  const overlap = updated.previousSecretUntil ? ` The old secret also signs deliveries until ${updated.previousSecretUntil}.` : '';
  (opts.json ? ctx.err : ctx.out)(`${secretNotice(updated.id)}${overlap}`);
}
