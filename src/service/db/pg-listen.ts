// LISTEN on a dedicated connection: wakes this instance when another one stored something (the rows are the truth;
// a notification only says where to look). Reconnects by itself and tells its users, who then re-read what they hold.
import pg from 'pg';
import type { Logger } from '../../lib/log.js';

export interface PgListener {
  /** Calls `fn` with each notification's payload on `channel`. */
  on(channel: string, fn: (payload: string) => void): void;
  /** Called after a reconnect: notifications sent while disconnected are lost, so state must be re-read. */
  onReconnect(fn: () => void): void;
  /** Resolves once LISTEN is active on every channel registered so far. */
  ready(): Promise<void>;
  stop(): Promise<void>;
}

export function startPgListener(url: string, log: Logger, retryMs = 1_000): PgListener {
  const handlers = new Map<string, ((payload: string) => void)[]>();
  const reconnects: (() => void)[] = [];
  let client: pg.Client | null = null;
  let stopped = false;
  let everConnected = false;
  let connecting: Promise<void> | null = null;
  let timer: NodeJS.Timeout | null = null;

  async function connect(): Promise<void> {
    const c = new pg.Client({ connectionString: url, keepAlive: true, application_name: 'txdesk-listen' });
    c.on('notification', (n) => {
      for (const fn of handlers.get(n.channel) ?? []) {
        try {
          fn(n.payload ?? '');
        } catch (e) {
          log.error(`handling a ${n.channel} notification failed: ${e instanceof Error ? e.message : String(e)}`);
        }
      }
    });
    c.on('error', (e) => lost(c, e.message));
    c.on('end', () => lost(c, 'connection ended'));
    await c.connect();
    for (const ch of handlers.keys()) await c.query(`LISTEN ${ch}`);
    client = c;
    if (everConnected) {
      log.info('database notifications are back; re-reading shared state');
      for (const fn of reconnects) fn();
    }
    everConnected = true;
  }

  function lost(c: pg.Client, why: string): void {
    if (client !== c || stopped) return;
    client = null;
    log.warn(`database notifications lost (${why}); reconnecting`);
    c.end().catch(() => {});
    retry();
  }

  function retry(): void {
    if (stopped || timer) return;
    timer = setTimeout(() => {
      timer = null;
      connecting = connect().catch((e) => {
        log.warn(`cannot listen to database notifications yet: ${e instanceof Error ? e.message : String(e)}`);
        retry();
      });
    }, retryMs);
    timer.unref();
  }

  connecting = connect().catch((e) => {
    log.warn(`cannot listen to database notifications yet: ${e instanceof Error ? e.message : String(e)}`);
    retry();
  });

  return {
    on(channel, fn) {
      if (!/^[a-z_][a-z0-9_]*$/.test(channel)) throw new Error(`bad channel name ${channel}`);
      const list = handlers.get(channel);
      if (list) list.push(fn);
      else {
        handlers.set(channel, [fn]);
        client?.query(`LISTEN ${channel}`).catch(() => {});
      }
    },
    onReconnect(fn) {
      reconnects.push(fn);
    },
    async ready() {
      await connecting;
      if (client) for (const ch of handlers.keys()) await client.query(`LISTEN ${ch}`);
    },
    async stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
      await connecting;
      const c = client;
      client = null;
      await c?.end().catch(() => {});
    },
  };
}
