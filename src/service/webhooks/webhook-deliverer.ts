// Sends one network's webhook deliveries: reads what waits in the outbox, claims it (so of a fleet's instances only one
// sends a delivery, and the webhook's requests in flight stay within its limit fleet-wide), POSTs it signed, and records
// the answer: a 2xx marks it sent, anything else schedules a retry with backoff and, after the retry window, turns the
// webhook failing. Every instance runs one per network; a fleet shares the per-client rate through rateLimiter().
import { randomBytes } from 'node:crypto';
import { setMaxListeners } from 'node:events';
import { createRateLimiter, type BatchRateLimiter } from '../../lib/http-rate-limit.js';
import type { Logger } from '../../lib/log.js';
import { signWebhook, WEBHOOK_SIGNATURE_HEADER } from '@txdesk/tracker/webhook-signature';
import type { BackoffPolicy } from './webhook-backoff.js';
import { afterFailure, chooseDeliveries, signingSecrets, webhookConcurrency, webhookSlots } from './webhook-delivery-policy.js';
import { postWebhook, type WebhookAttempt } from './webhook-post.js';
import type { LookupAll } from './webhook-address-guard.js';
import { SENT_KEPT_MS } from './webhook-store-rows.js';
import type { PendingDelivery, SentDelivery, WebhookRow, WebhookStore } from './webhook-store.js';

export interface WebhookDelivererOptions {
  store: WebhookStore;
  platform: string;
  network: string;
  /** Lets webhooks reach loopback and private addresses (`--allow-private-webhooks`, on with `--dev`). */
  allowPrivate: boolean;
  /**
   * Deliveries per second per clientId, over all its webhooks of this network, with one second's burst; across a fleet
   * once rateLimiter() is shared (pg-rate-limits.ts), else on this instance.
   */
  perClientPerSecond: number;
  /** True when no other instance shares the store: claims left by a previous run are released at start. */
  alone: boolean;
  log: Logger;
  backoff?: BackoffPolicy;
  /** The retry window before a webhook turns failing (24 h unless set; tests shorten it). */
  retryWindowMs?: number;
  timeoutMs?: number;
  /** How long a claim outlives the timeout (LEASE_MARGIN_MS unless set; tests shorten it, see TXDESK_WEBHOOK_LEASE_MARGIN_MS). */
  leaseMarginMs?: number;
  pollMs?: number;
  lookup?: LookupAll;
  now?: () => number;
}

export interface WebhookDeliverer {
  /** Something was stored or changed (a new delivery, a webhook created or patched): look now. */
  nudge(): void;
  /** Sent deliveries were made due again (below the pages' floors): look from the start now. */
  replayed(): void;
  /** Sends a `test` message to the webhook now, outside the outbox, and returns the answer. */
  test(w: WebhookRow): Promise<WebhookAttempt>;
  /** Tries by this instance since start: answered 2xx (sent) or not (failed). */
  counts(): { sent: number; failed: number };
  /** The per-clientId bucket of deliveries: a fleet trades what each instance took (shareRateLimits). */
  rateLimiter(): BatchRateLimiter;
  stop(): Promise<void>;
}

/** A claim outlives the longest try (the timeout) by a margin; after it, another instance may send the delivery. */
export const LEASE_MARGIN_MS = 20_000;
const PAGE = 200;
const WEBHOOKS_REFRESH_MS = 1_000;
/** The floors (see `floor`) are forgotten this often, so a replay asked of another instance is seen here too. */
const FLOOR_RESET_MS = 30_000;
const PRUNE_MS = 60_000;
/** A webhook with nothing waiting is looked at again after this long even without a nudge (another instance stored). */
const IDLE_RECHECK_MS = 1_000;
/** A cached page of waiting deliveries is read again after this long at the latest. */
const PAGE_TTL_MS = 1_000;
export const DEFAULT_WEBHOOK_TIMEOUT_MS = 10_000;

export function startWebhookDeliverer(o: WebhookDelivererOptions): WebhookDeliverer {
  const now = o.now ?? Date.now;
  const log = o.log.child('webhooks');
  const timeoutMs = o.timeoutMs ?? DEFAULT_WEBHOOK_TIMEOUT_MS;
  const leaseMarginMs = o.leaseMarginMs ?? LEASE_MARGIN_MS;
  const inFlight = new Map<string, Set<string>>();
  /** Per webhook, a seq below which everything was sent when last read: pages start above it. */
  const floor = new Map<string, number>();
  const rate = createRateLimiter(o.perClientPerSecond * 60, undefined, undefined, o.perClientPerSecond);
  /** Webhooks whose last page was empty, and when: polls skip them (one query each saved) until a nudge or a recheck. */
  const idleSince = new Map<string, number>();
  /**
   * Per webhook, the page last read, minus what was sent since: the next deliveries are chosen from it instead of a
   * read per finished delivery (which was half the deliverer's CPU). Read again when marked stale (new deliveries, a
   * failed try or a lost claim), when it runs low, or after PAGE_TTL_MS (another instance's work).
   */
  const pages = new Map<string, { rows: PendingDelivery[]; full: boolean; readAt: number; stale: boolean }>();
  let webhooks: WebhookRow[] = [];
  let webhooksAt = 0;
  let running = false;
  let again = false;
  let stopped = false;
  let sentCount = 0;
  let failedCount = 0;
  const sends = new Set<Promise<unknown>>();
  /** Aborts the tries in flight when the deliverer stops, so a slow receiver does not hold the service's shutdown. */
  const stopping = new AbortController();
  // Every try in flight listens on it (8 per webhook at most): more than Node's default of 10 listeners is expected.
  setMaxListeners(0, stopping.signal);

  const bodyOf = (w: WebhookRow, d: Pick<PendingDelivery, 'deliveryId' | 'messageId' | 'payload'>) =>
    `{"deliveryId":${JSON.stringify(d.deliveryId)},"messageId":${JSON.stringify(d.messageId)},"webhookId":${JSON.stringify(w.id)},` +
    `"platform":${JSON.stringify(o.platform)},"network":${JSON.stringify(o.network)},"payload":${d.payload}}`;

  function post(
    w: WebhookRow,
    d: Pick<PendingDelivery, 'deliveryId' | 'messageId' | 'payload'>,
    attempt: number,
    replay: boolean,
  ): Promise<WebhookAttempt> {
    const body = bodyOf(w, d);
    const t = now();
    return postWebhook({
      url: w.url,
      body,
      headers: {
        [WEBHOOK_SIGNATURE_HEADER]: signWebhook(body, signingSecrets(w, t), Math.floor(t / 1000)),
        'txdesk-delivery': d.deliveryId,
        'txdesk-webhook': w.id,
        'txdesk-attempt': String(attempt),
        ...(replay ? { 'txdesk-replay': '1' } : {}),
      },
      allowPrivate: o.allowPrivate,
      timeoutMs,
      signal: stopping.signal,
      ...(o.lookup ? { lookup: o.lookup } : {}),
    });
  }

  /**
   * 2xx answers are recorded together, one transaction for all that came in the same turn of the event loop (two
   * writes per delivery were a third of the deliverer's work). A crash before the write sends them again: at least once.
   */
  let sentBatch: { sent: SentDelivery[]; done: Promise<void> } | null = null;
  function recordSent(d: SentDelivery): Promise<void> {
    if (!sentBatch) {
      const batch: { sent: SentDelivery[]; done: Promise<void> } = { sent: [], done: Promise.resolve() };
      batch.done = new Promise<void>((resolve) => setImmediate(resolve)).then(() => {
        sentBatch = null;
        return o.store.markSent(batch.sent, now());
      });
      sentBatch = batch;
    }
    sentBatch.sent.push(d);
    return sentBatch.done;
  }

  /** Sends one claimed delivery and records the answer; true when it was sent (2xx) and recorded. */
  async function send(w: WebhookRow, d: PendingDelivery): Promise<boolean> {
    const attempt = d.attempts + 1;
    const result = await post(w, d, attempt, d.replay);
    // Cut short by a stop: not the receiver's failure. The claim stays until a restart releases it or it runs out.
    if (stopping.signal.aborted) return false;
    const t = now();
    try {
      if (result.ok) {
        await recordSent({ webhookId: w.id, clientId: w.clientId, deliveryId: d.deliveryId });
        sentCount++;
        return true;
      } else {
        failedCount++;
        const error = result.error ?? `the receiver answered ${result.status}`;
        const fresh = (await o.store.get(w.id)) ?? w;
        const f = afterFailure(fresh, attempt, t, Math.random(), o.backoff, o.retryWindowMs);
        await o.store.markFailed(w.id, w.clientId, d.deliveryId, { nowMs: t, error, ...f });
        // The webhook's backoff and probe count from its stored row: read the rows again before the next try.
        webhooksAt = 0;
        if (f.failing && fresh.state === 'active')
          log.warn(`webhook ${w.id} of ${w.clientId} is failing (${error}); its deliveries wait until it is resumed`);
      }
    } catch (e) {
      // The claim runs out and the delivery is tried again: at least once holds, the receiver may see it twice.
      log.warn(`could not record the answer to delivery ${d.deliveryId}: ${e instanceof Error ? e.message : String(e)}`);
    }
    return false;
  }

  /** The webhook's waiting deliveries: the cached page, or a fresh one when it is stale, low or old. */
  async function pageOf(w: WebhookRow, t: number): Promise<PendingDelivery[]> {
    const cached = pages.get(w.id);
    if (cached && !cached.stale && t - cached.readAt < PAGE_TTL_MS && !(cached.full && cached.rows.length < PAGE / 2)) return cached.rows;
    const rows = await o.store.pending(w.id, w.clientId, floor.get(w.id) ?? 0, PAGE);
    if (rows.length > 0) floor.set(w.id, rows[0]!.seq - 1);
    pages.set(w.id, { rows, full: rows.length === PAGE, readAt: t, stale: false });
    return rows;
  }
  const markStale = (webhookId: string) => {
    const page = pages.get(webhookId);
    if (page) page.stale = true;
  };

  async function refreshWebhooks(): Promise<void> {
    if (now() - webhooksAt < WEBHOOKS_REFRESH_MS) return;
    webhooks = await o.store.all();
    webhooksAt = now();
    // Forget what was kept for webhooks deleted meanwhile (their tries in flight finish on their own).
    const live = new Set(webhooks.map((w) => w.id));
    for (const map of [pages, floor, idleSince]) for (const id of map.keys()) if (!live.has(id)) map.delete(id);
    for (const [id, set] of inFlight) if (!live.has(id) && set.size === 0) inFlight.delete(id);
  }

  async function tickWebhook(w: WebhookRow): Promise<void> {
    const mine = inFlight.get(w.id) ?? new Set<string>();
    inFlight.set(w.id, mine);
    const t = now();
    const slots = webhookSlots(w, t, mine.size);
    if (slots === 0) return;
    const idle = idleSince.get(w.id);
    if (idle !== undefined && t - idle < IDLE_RECHECK_MS) return;
    const page = await pageOf(w, t);
    if (page.length === 0 && mine.size === 0) idleSince.set(w.id, t);
    else idleSince.delete(w.id);
    const wanted = chooseDeliveries(page, t, mine, slots);
    // Tokens are spent on what was claimed, not on what was asked for: a claim cut short by the fleet's limit in flight
    // (or lost to another instance) must not use up the client's rate.
    const allowed = wanted.slice(0, rate.available(w.clientId, t));
    if (allowed.length === 0) return;
    const terms = { nowMs: t, untilMs: t + timeoutMs + leaseMarginMs, maxHeld: webhookConcurrency(w) };
    const claimed = await o.store.claim(
      w.id,
      w.clientId,
      allowed.map((d) => d.deliveryId),
      terms,
    );
    rate.spend(w.clientId, claimed.size, now());
    if (claimed.size < allowed.length) markStale(w.id);
    for (const d of allowed) {
      if (!claimed.has(d.deliveryId)) continue;
      mine.add(d.deliveryId);
      const p = send(w, d)
        .then((sent) => {
          const cached = pages.get(w.id);
          if (!sent) markStale(w.id);
          else if (cached) cached.rows = cached.rows.filter((r) => r.deliveryId !== d.deliveryId);
        })
        .finally(() => {
          mine.delete(d.deliveryId);
          sends.delete(p);
          nudge();
        });
      sends.add(p);
    }
  }

  async function tick(): Promise<void> {
    if (running) {
      again = true;
      return;
    }
    running = true;
    try {
      do {
        again = false;
        await refreshWebhooks();
        for (const w of webhooks) {
          if (stopped) return;
          await tickWebhook(w);
        }
      } while (again && !stopped);
    } catch (e) {
      log.warn(`could not read webhook deliveries (trying again): ${e instanceof Error ? e.message : String(e)}`);
    } finally {
      running = false;
    }
  }

  function nudge(): void {
    if (!stopped) void tick();
  }

  const start = o.alone
    ? o.store.releaseLeases().catch((e: unknown) => log.warn(`could not release old claims: ${String(e)}`))
    : Promise.resolve();
  void start.then(nudge);
  const poller = setInterval(nudge, o.pollMs ?? 250);
  const floorReset = setInterval(() => floor.clear(), FLOOR_RESET_MS);
  const pruner = setInterval(() => {
    o.store.pruneSent(now() - SENT_KEPT_MS).catch((e: unknown) => log.warn(`could not prune sent deliveries: ${String(e)}`));
  }, PRUNE_MS);
  for (const t of [poller, floorReset, pruner]) t.unref();

  return {
    nudge() {
      idleSince.clear();
      for (const id of pages.keys()) markStale(id);
      webhooksAt = 0;
      nudge();
    },
    replayed() {
      floor.clear();
      pages.clear();
      idleSince.clear();
      nudge();
    },
    test: (w) =>
      post(
        w,
        { deliveryId: `test-${randomBytes(8).toString('hex')}`, messageId: 'test', payload: '{"type":"test","result":{}}' },
        1,
        false,
      ),
    counts: () => ({ sent: sentCount, failed: failedCount }),
    rateLimiter: () => rate,
    async stop() {
      stopped = true;
      for (const t of [poller, floorReset, pruner]) clearInterval(t);
      stopping.abort();
      await Promise.allSettled([...sends]);
    },
  };
}
