// One network's tracker WebSocket: authorises an upgrade the router (tracker-ws-router.ts) sent to it by its clientId,
// then speaks JSON-RPC 2.0 per connection (parsing in tracker-rpc.ts, delivery in tracker-delivery-hub.ts).
import type { IncomingMessage } from 'node:http';
import type { Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import { WebSocketServer, type RawData, type WebSocket } from 'ws';
import type { Logger } from '../../lib/log.js';
import { MAX_FRAME_BYTES, RPC_INTERNAL_ERROR, RPC_INVALID_REQUEST, RPC_LIMIT_EXCEEDED } from '@txdesk/tracker/tracker-wire';
import type { DeliveryHub, DeliveryTarget } from './tracker-delivery-hub.js';
import { errorFrame, parseFrame, resultFrame, type FrameItem, type TrackerCommand } from './tracker-rpc.js';
import type { TrackerStore } from './tracker-store.js';
import { refuseUpgrade as refuse, type UpgradeHandler } from './tracker-ws-router.js';

export interface TrackerWsOptions {
  isClientId(id: string): boolean | Promise<boolean>;
  minAckTimeoutMs: number;
  store: TrackerStore;
  intake: TrackerIntake;
  hub: DeliveryHub;
  log: Logger;
  maxOpenTrackingsPerClient?: number;
  maxSubscriptionsPerClient?: number;
  /**
   * While the chain watcher runs a round: a promise of its end, else undefined. Frames arriving during a round are
   * handled after it (in order, at most `frameHoldMaxMs` later): the block's receipts go out first, and the acks
   * that stream in meanwhile cost the node's cores nothing until then.
   */
  watcherRound?: () => Promise<void> | undefined;
  /** Longest a frame waits for the watcher's round (default FRAME_HOLD_MAX_MS). */
  frameHoldMaxMs?: number;
}

/** Where track_transaction goes: the local watcher, or the store of a shared database whose leader watches. */
export interface TrackerIntake {
  /** Stores the tracking (the watcher picks it up); false, storing nothing, when the client is at `maxOpen`. */
  track(clientId: string, txHash: string, confirmation: number, timeoutMs: number, maxOpen: number): Promise<boolean>;
}

/** The socket closes (code 1009) above this; between MAX_FRAME_BYTES and this a frame is answered with -32600. */
const HARD_FRAME_LIMIT = 1024 * 1024;
const PING_MS = 30_000;
export const FRAME_HOLD_MAX_MS = 250;
/** Unsent bytes owed to one client above which we stop reading its frames (see applyBackPressure). */
const SEND_BUFFER_HIGH_WATER = 4 * 1024 * 1024;

export function startTrackerWs(o: TrackerWsOptions): { upgrade: UpgradeHandler; stop(): Promise<void> } {
  const wss = new WebSocketServer({ noServer: true, maxPayload: HARD_FRAME_LIMIT, perMessageDeflate: false });
  const maxTracked = o.maxOpenTrackingsPerClient ?? 100_000;
  const maxSubs = o.maxSubscriptionsPerClient ?? 100;

  /** `url`: the request's URL, parsed and routed to this network by the router. */
  async function onUpgrade(req: IncomingMessage, socket: Duplex, head: Buffer, url: URL): Promise<void> {
    // Until ws takes the socket over, a reset by the peer must not become an uncaught 'error'.
    socket.on('error', () => socket.destroy());
    const clientId = url.searchParams.get('clientId') ?? '';
    let known = false;
    try {
      known = clientId.length > 0 && clientId.length <= 256 && (await o.isClientId(clientId));
    } catch (e) {
      o.log.error(`clientId check failed: ${e instanceof Error ? e.message : String(e)}`);
    }
    if (!known) {
      return refuse(
        socket,
        401,
        'UNAUTHORIZED',
        clientId
          ? 'This clientId is unknown; run `txdesk account:describe` to see yours.'
          : 'The clientId query parameter is missing; add ?clientId=<your clientId>.',
      );
    }
    if (socket.destroyed) return;
    wss.handleUpgrade(req, socket, head, (ws) => onConnection(ws, clientId));
  }

  function onConnection(ws: WebSocket, clientId: string): void {
    const subs = new Set<string>();
    let alive = true;
    // Frames sent together leave in one write: a chunk of pushes costs one syscall, not hundreds. The hub flushes after
    // each batch of pushes; the next tick flushes whatever else was sent.
    const raw = (ws as unknown as { _socket?: Socket })._socket;
    let corked = false;
    let paused = false;
    /** Frames held until the watcher's round ends (null when none are). */
    let held: string[] | null = null;
    const uncork = () => {
      if (!corked) return;
      corked = false;
      raw!.uncork();
    };
    const target: DeliveryTarget = {
      send(frame) {
        if (ws.readyState !== ws.OPEN) return;
        if (!corked && raw) {
          corked = true;
          raw.cork();
          process.nextTick(uncork);
        }
        ws.send(frame);
      },
      flush: uncork,
    };
    ws.on('pong', () => {
      alive = true;
    });
    const pinger = setInterval(() => {
      if (!alive) return ws.terminate();
      alive = false;
      ws.ping();
    }, PING_MS);
    pinger.unref();

    ws.on('message', (data: RawData, isBinary: boolean) => {
      const size = Array.isArray(data) ? data.reduce((n, b) => n + b.length, 0) : (data as Buffer).byteLength;
      if (size > MAX_FRAME_BYTES) {
        target.send(
          errorFrame(null, RPC_INVALID_REQUEST, `Invalid request: frames are limited to ${MAX_FRAME_BYTES} bytes; send smaller batches.`),
        );
        return;
      }
      const text = Array.isArray(data) ? Buffer.concat(data).toString('utf8') : Buffer.from(data as ArrayBuffer).toString('utf8');
      void isBinary;
      if (held) return void held.push(text);
      const round = o.watcherRound?.();
      if (!round) return void handleFrame(text);
      hold(text, round);
    });
    ws.on('close', () => {
      clearInterval(pinger);
      for (const s of subs) o.hub.unbind(clientId, s, target);
    });
    ws.on('error', () => {});

    /** Holds `first` and what follows it until `round` ends or the hold times out; the socket is not read meanwhile. */
    function hold(first: string, round: Promise<void>): void {
      held = [first];
      ws.pause();
      let timer: NodeJS.Timeout | undefined;
      const timeout = new Promise<void>((r) => (timer = setTimeout(r, o.frameHoldMaxMs ?? FRAME_HOLD_MAX_MS)));
      void Promise.race([round.catch(() => {}), timeout]).then(() => {
        clearTimeout(timer);
        const frames = held ?? [];
        held = null;
        // A socket closed meanwhile gets no answers: its frames are dropped unanswered, as a client that reconnects
        // expects of requests it saw no answer to (the SDK sends them again).
        if (ws.readyState !== ws.OPEN) return;
        if (!paused) ws.resume();
        for (const f of frames) void handleFrame(f);
      });
    }

    async function handleFrame(text: string): Promise<void> {
      const frame = parseFrame(text, o.minAckTimeoutMs);
      const afters: (() => void)[] = [];
      const replies = await Promise.all(frame.items.map((item) => answer(item, afters)));
      const out = replies.filter((r): r is string => r !== null);
      if (out.length > 0) target.send(frame.batch ? `[${out.join(',')}]` : out[0]!);
      for (const a of afters) a();
      applyBackPressure();
    }

    // A client that sends requests but never reads the answers would grow our send buffer without bound:
    // stop reading its frames until the kernel has taken what we owe it.
    function applyBackPressure(): void {
      if (paused || !raw || ws.bufferedAmount < SEND_BUFFER_HIGH_WATER) return;
      paused = true;
      ws.pause();
      raw.once('drain', () => {
        paused = false;
        if (!held && ws.readyState === ws.OPEN) ws.resume();
      });
    }

    async function answer(item: FrameItem, afters: (() => void)[]): Promise<string | null> {
      if (!item.ok) return item.notify ? null : errorFrame(item.id, item.code, item.message);
      let reply: string;
      try {
        const r = await run(item.command, afters);
        reply = 'error' in r ? errorFrame(item.id, r.error.code, r.error.message) : resultFrame(item.id, r.result);
      } catch (e) {
        o.log.error(`tracker ${item.command.method} failed: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}`);
        reply = errorFrame(
          item.id,
          RPC_INTERNAL_ERROR,
          'Internal error: the tracker could not do that; try again, and report it if it keeps happening.',
        );
      }
      return item.notify ? null : reply;
    }

    async function run(
      c: TrackerCommand,
      afters: (() => void)[],
    ): Promise<{ result: unknown } | { error: { code: number; message: string } }> {
      switch (c.method) {
        case 'track_transaction':
          if (!(await o.intake.track(clientId, c.hash, c.confirmation, c.timeout, maxTracked))) {
            return {
              error: {
                code: RPC_LIMIT_EXCEEDED,
                message: `Limit exceeded: at most ${maxTracked} transactions may be tracked at once per clientId; wait for confirmations.`,
              },
            };
          }
          return { result: true };
        case 'tracker_subscribe': {
          const { created } = await o.store.subscribe(clientId, c.subscriptionId, c.ackTimeout, Date.now());
          if (created && (await o.store.countSubscriptions(clientId)) > maxSubs) {
            await o.store.unsubscribe(clientId, c.subscriptionId);
            return {
              error: {
                code: RPC_LIMIT_EXCEEDED,
                message: `Limit exceeded: at most ${maxSubs} subscriptions per clientId; unsubscribe unused ones.`,
              },
            };
          }
          subs.add(c.subscriptionId);
          // Bound after the reply is sent, so the client sees its result before the first push.
          afters.push(() => {
            if (ws.readyState === ws.OPEN) o.hub.bind(clientId, c.subscriptionId, c.ackTimeout, target);
          });
          return { result: c.subscriptionId };
        }
        case 'tracker_unsubscribe':
          subs.delete(c.subscriptionId);
          o.hub.unbind(clientId, c.subscriptionId);
          await o.store.unsubscribe(clientId, c.subscriptionId);
          return { result: true };
        case 'ack':
          await o.hub.ack(clientId, c.ackId);
          return { result: true };
        case 'HEARTBEAT':
          return { result: true };
      }
    }
  }

  return {
    upgrade: (req, socket, head, url) =>
      onUpgrade(req, socket, head, url).catch((e) => {
        o.log.error(`tracker upgrade failed: ${e instanceof Error ? e.message : String(e)}`);
        socket.destroy();
      }),
    async stop() {
      for (const ws of wss.clients) ws.close(1001, 'service stopping');
      await new Promise<void>((resolve) => {
        const t = setTimeout(() => {
          for (const ws of wss.clients) ws.terminate();
          resolve();
        }, 1000);
        t.unref();
        wss.close(() => {
          clearTimeout(t);
          resolve();
        });
      });
    },
  };
}
