// Webhooks (docs/webhooks.md): per network a deliverer and an address-activity scanner over the network's store, and
// the operations the HTTP API and the CLI use, each checked for its clientId. A webhook belongs to one network; its
// id is unique across them, so the API needs no network in its paths.
import { randomBytes } from 'node:crypto';
import type { SharedRateLimiter } from '../../lib/http-rate-limit.js';
import type { Logger } from '../../lib/log.js';
import { TxdeskError } from '../../shared/errors.js';
import type { IndexStore } from '../indexer/indexer-store.js';
import { orderedId } from '../tracker/tracker-ids.js';
import type { BackoffPolicy } from './webhook-backoff.js';
import { resolveWebhookAddress, webhookUrlProblem, WebhookAddressError, type LookupAll } from './webhook-address-guard.js';
import { startActivityScanner } from './webhook-activity.js';
import { startWebhookDeliverer, type WebhookDeliverer } from './webhook-deliverer.js';
import type { WebhookAttempt } from './webhook-post.js';
import {
  DEFAULT_SECRET_OVERLAP_SECONDS,
  type CreateWebhook,
  type ReplayRequest,
  type UpdateWebhook,
  type WebhookReply,
} from './webhook-schemas.js';
import type { WebhookPatch, WebhookRow, WebhookStore } from './webhook-store.js';

export interface WebhookNetwork {
  key: string;
  platform: string;
  network: string;
  store: WebhookStore;
  index: IndexStore;
  nodeUrl(): string;
  /**
   * The block after which address activity counts for a webhook watching from now: the index's tip, or while nothing
   * is indexed yet, the block the index will reach first (head less the lag; -1 on a chain younger than the lag).
   */
  activityStart(): Promise<number>;
}

export interface WebhooksOptions {
  /** The default network first. */
  networks: WebhookNetwork[];
  allowPrivate: boolean;
  /** True when no other instance shares the stores (SQLite). */
  alone: boolean;
  log: Logger;
  maxWebhooksPerClient?: number;
  /** Deliveries per second per clientId and network; default 50; fleet-wide once rateLimiters() are shared. */
  perClientPerSecond?: number;
  backoff?: BackoffPolicy;
  retryWindowMs?: number;
  timeoutMs?: number;
  leaseMarginMs?: number;
  lookup?: LookupAll;
  pollMs?: number;
  activityPollMs?: number;
}

export const DEFAULT_MAX_WEBHOOKS_PER_CLIENT = 20;
export const DEFAULT_WEBHOOK_DELIVERIES_PER_SECOND = 50;

interface Runtime {
  net: WebhookNetwork;
  deliverer: WebhookDeliverer;
  scanner: ReturnType<typeof startActivityScanner>;
}

const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());
const newSecret = () => `whsec_${randomBytes(32).toString('base64url')}`;

export type Webhooks = ReturnType<typeof startWebhooks>;

export function startWebhooks(o: WebhooksOptions) {
  const log = o.log;
  const maxPerClient = o.maxWebhooksPerClient ?? DEFAULT_MAX_WEBHOOKS_PER_CLIENT;
  const runtimes: Runtime[] = o.networks.map((net) => {
    const deliverer = startWebhookDeliverer({
      store: net.store,
      platform: net.platform,
      network: net.network,
      allowPrivate: o.allowPrivate,
      perClientPerSecond: o.perClientPerSecond ?? DEFAULT_WEBHOOK_DELIVERIES_PER_SECOND,
      alone: o.alone,
      log: log.child(net.key),
      ...(o.backoff ? { backoff: o.backoff } : {}),
      ...(o.retryWindowMs !== undefined ? { retryWindowMs: o.retryWindowMs } : {}),
      ...(o.timeoutMs !== undefined ? { timeoutMs: o.timeoutMs } : {}),
      ...(o.leaseMarginMs !== undefined ? { leaseMarginMs: o.leaseMarginMs } : {}),
      ...(o.lookup ? { lookup: o.lookup } : {}),
      ...(o.pollMs !== undefined ? { pollMs: o.pollMs } : {}),
    });
    const scanner = startActivityScanner({
      store: net.store,
      index: net.index,
      nodeUrl: () => net.nodeUrl(),
      log: log.child(net.key),
      onStored: () => deliverer.nudge(),
      ...(o.activityPollMs !== undefined ? { pollMs: o.activityPollMs } : {}),
    });
    return { net, deliverer, scanner };
  });
  const byKey = new Map(runtimes.map((r) => [r.net.key, r]));

  async function reply(r: Runtime, w: WebhookRow): Promise<WebhookReply> {
    return {
      id: w.id,
      platform: r.net.platform,
      network: r.net.network,
      url: w.url,
      trackerMessages: w.trackerMessages,
      addresses: w.addresses,
      state: w.state,
      pending: await r.net.store.countPending(w.id, w.clientId),
      createdAt: iso(w.createdAtMs)!,
      lastAttemptAt: iso(w.lastAttemptMs),
      lastSuccessAt: iso(w.lastSuccessMs),
      failingSince: iso(w.failingSinceMs),
      lastError: w.lastError,
      previousSecretUntil: w.previousSecret !== null && (w.previousSecretUntilMs ?? 0) > Date.now() ? iso(w.previousSecretUntilMs) : null,
    };
  }

  /** A URL webhooks may reach: its form, then where its host resolves now (checked again at every delivery). */
  async function checkUrl(url: string): Promise<void> {
    const problem = webhookUrlProblem(url, { allowPrivate: o.allowPrivate });
    if (problem) throw new TxdeskError('INVALID_PARAMETER', problem);
    try {
      await resolveWebhookAddress(new URL(url).hostname.replace(/^\[|\]$/g, ''), {
        allowPrivate: o.allowPrivate,
        ...(o.lookup ? { lookup: o.lookup } : {}),
      });
    } catch (e) {
      if (e instanceof WebhookAddressError) throw new TxdeskError('INVALID_PARAMETER', e.message);
      throw e;
    }
  }

  /** The webhook `id` of `clientId` (another client's is answered as unknown too: ids are not secrets). */
  async function find(clientId: string, id: string): Promise<{ r: Runtime; w: WebhookRow }> {
    for (const r of runtimes) {
      const w = await r.net.store.get(id);
      if (w && w.clientId === clientId) return { r, w };
    }
    throw new TxdeskError(
      'NOT_FOUND',
      `No webhook ${JSON.stringify(id.slice(0, 80))} belongs to this clientId; list yours with GET /tracker/v1/webhooks or \`txdesk webhook list\`.`,
    );
  }

  const lower = (list: readonly string[] | undefined) => [...new Set((list ?? []).map((a) => a.toLowerCase()))];

  return {
    async create(clientId: string, input: CreateWebhook): Promise<WebhookReply & { secret: string }> {
      const main = runtimes[0]!;
      const key = `${input.platform ?? main.net.platform}/${input.network ?? main.net.network}`;
      const r = byKey.get(key);
      if (!r)
        throw new TxdeskError(
          'NOT_FOUND',
          `This service does not serve ${key}; it serves ${runtimes.map((x) => x.net.key).join(', ')} (GET /nft/v1/networks lists them).`,
        );
      const trackerMessages = input.trackerMessages ?? true;
      const addresses = lower(input.addresses);
      if (!trackerMessages && addresses.length === 0) {
        throw new TxdeskError(
          'INVALID_PARAMETER',
          'This webhook would deliver nothing: set trackerMessages to true, or give addresses to watch.',
        );
      }
      await checkUrl(input.url);
      let count = 0;
      for (const x of runtimes) count += await x.net.store.countOfClient(clientId);
      if (count >= maxPerClient) {
        throw new TxdeskError(
          'FORBIDDEN',
          `A clientId may have at most ${maxPerClient} webhooks; remove one you no longer use (\`txdesk webhook remove <id>\`).`,
        );
      }
      const now = Date.now();
      const w: WebhookRow = {
        id: orderedId(now),
        clientId,
        url: input.url,
        trackerMessages,
        addresses,
        secret: newSecret(),
        previousSecret: null,
        previousSecretUntilMs: null,
        state: 'active',
        failingSinceMs: null,
        failures: 0,
        retryAtMs: null,
        lastError: null,
        lastAttemptMs: null,
        lastSuccessMs: null,
        // Address activity starts now: moves in later blocks are delivered.
        activityBlock: await r.net.activityStart(),
        // The index's hash there is taken at the first scan.
        activityHash: null,
        activityMarks: [],
        createdAtMs: now,
      };
      await r.net.store.create(w);
      r.deliverer.nudge();
      log.info(`webhook ${w.id} of ${clientId} created on ${key}`);
      return { ...(await reply(r, w)), secret: w.secret };
    },

    async list(clientId: string): Promise<WebhookReply[]> {
      const out: WebhookReply[] = [];
      for (const r of runtimes) for (const w of await r.net.store.listOfClient(clientId)) out.push(await reply(r, w));
      return out;
    },

    async get(clientId: string, id: string): Promise<WebhookReply> {
      const { r, w } = await find(clientId, id);
      return reply(r, w);
    },

    async update(clientId: string, id: string, input: UpdateWebhook): Promise<WebhookReply & { secret?: string }> {
      const { r, w } = await find(clientId, id);
      if (input.url !== undefined) await checkUrl(input.url);
      const patch: WebhookPatch = {};
      if (input.url !== undefined) patch.url = input.url;
      if (input.trackerMessages !== undefined) patch.trackerMessages = input.trackerMessages;
      if (input.addresses !== undefined) {
        patch.addresses = lower(input.addresses);
        // A webhook that watched nothing starts watching now, not from its creation (its cursor stood still meanwhile).
        if (w.addresses.length === 0 && patch.addresses.length > 0) patch.activityBlock = await r.net.activityStart();
      }
      if (input.state !== undefined) patch.state = input.state;
      if ((patch.trackerMessages ?? w.trackerMessages) === false && (patch.addresses ?? w.addresses).length === 0) {
        throw new TxdeskError(
          'INVALID_PARAMETER',
          'This webhook would deliver nothing: keep trackerMessages true, or give addresses to watch.',
        );
      }
      let secret: string | undefined;
      if (input.rotateSecret) {
        secret = newSecret();
        patch.secret = secret;
        patch.previousSecret = w.secret;
        patch.previousSecretUntilMs = Date.now() + (input.secretOverlapSeconds ?? DEFAULT_SECRET_OVERLAP_SECONDS) * 1000;
      }
      const updated = await r.net.store.update(id, patch);
      if (!updated) throw new TxdeskError('NOT_FOUND', `The webhook ${id} was removed meanwhile; list yours with \`txdesk webhook list\`.`);
      r.deliverer.nudge();
      r.scanner.nudge();
      return { ...(await reply(r, updated)), ...(secret ? { secret } : {}) };
    },

    async remove(clientId: string, id: string): Promise<void> {
      const { r } = await find(clientId, id);
      await r.net.store.remove(id);
      log.info(`webhook ${id} of ${clientId} removed`);
    },

    async test(clientId: string, id: string): Promise<WebhookAttempt> {
      const { r, w } = await find(clientId, id);
      return r.deliverer.test(w);
    },

    async replay(clientId: string, id: string, input: ReplayRequest): Promise<{ replayed: number }> {
      const { r, w } = await find(clientId, id);
      const ms = (v: number | string) => (typeof v === 'number' ? v : Date.parse(v));
      const range =
        input.fromMessageId !== undefined
          ? { fromMessageId: input.fromMessageId }
          : { fromMs: ms(input.from!), toMs: input.to === undefined ? Date.now() : ms(input.to) };
      const n = await r.net.store.replay(w.id, clientId, range);
      if (n === null)
        throw new TxdeskError(
          'NOT_FOUND',
          `No message ${JSON.stringify(input.fromMessageId)} is kept for this clientId; sent messages are kept for 7 days.`,
        );
      r.deliverer.replayed();
      return { replayed: n };
    },

    /** The tracker stored deliveries on network `key`: its deliverer looks now instead of at its next poll. */
    nudge(key: string): void {
      byKey.get(key)?.deliverer.nudge();
    },

    /**
     * Each network's per-clientId delivery bucket, by rate-limit scope: a fleet shares them with the request limits
     * (shareRateLimits), so a client's deliveries per second hold across instances.
     */
    rateLimiters: (): Record<string, SharedRateLimiter> =>
      Object.fromEntries(runtimes.map((r) => [`webhooks:${r.net.key}`, r.deliverer.rateLimiter()])),

    /** Webhook tries by this instance on network `key` (for /metrics). */
    counts: (key: string) => byKey.get(key)?.deliverer.counts() ?? { sent: 0, failed: 0 },

    async stop(): Promise<void> {
      for (const r of runtimes) r.scanner.stop();
      await Promise.all(runtimes.map((r) => r.deliverer.stop()));
    },
  };
}
