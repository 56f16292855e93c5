// Types for fault-proxy.js (fault injection between the app and its node or data service, shared by tests and benchmarks).

export interface TcpProxy {
  url: string;
  port: number;
  /** Refuses connections and cuts open ones, as a dead or restarting process does. */
  down(): Promise<void>;
  /**
   * A dead route or a hung peer: open connections stay open and nothing crosses them either way, new ones are accepted
   * and get nothing (no refusal, no reset: a client learns only from its own timeout).
   */
  blackhole(): Promise<void>;
  /** Forwards again: after down(), on new connections; after blackhole(), also what the held connections sent meanwhile. */
  up(): Promise<void>;
  /** The longest a client waited on the blackhole, with a request held, before it closed the connection (ms; 0 if none did). */
  longestHeldMs(): number;
  close(): Promise<void>;
}

export interface RpcFaults {
  /** The URL to give the app as its node. */
  url: string;
  /** The next `count` eth_sendRawTransaction calls get this JSON-RPC error instead of reaching the node. */
  refuseSends(count: number, message: string): void;
  /** How many sends were refused so far. */
  refused(): number;
  /**
   * From now on, answers a random `share` of requests (seeded) with back-pressure instead of forwarding them: HTTP 429
   * with `Retry-After: retryAfterS` (default 1), or (`as: 'rpc-error'`) HTTP 200 with Alchemy's "exceeded its ...
   * capacity" JSON-RPC error and no header. `null` turns it off.
   */
  pushBack(o: { share: number; retryAfterS?: number; as?: 'http-429' | 'rpc-error'; seed?: number } | null): void;
  /** Requests answered with back-pressure so far. */
  pushedBack(): number;
  /** HTTP requests received so far (a batch is one). */
  requests(): number;
  /** eth_getLogs over more than `blocks` blocks is refused as providers do (-32005 "query exceeds max block range"); null lifts it. */
  limitLogRange(blocks: number | null): void;
  /** eth_getLogs answers of more than `count` logs are refused as providers do (-32005 "query returned more than N results"); null lifts it. */
  limitLogResults(count: number | null): void;
  /** eth_getLogs calls refused for their range or their answer's size so far. */
  logRangeRefusals(): number;
  /** The node goes away (connections refused) until `up()`. */
  down(): Promise<void>;
  /** The node stops answering (connections accepted, nothing comes back) until `up()`. */
  blackhole(): Promise<void>;
  up(): Promise<void>;
  close(): Promise<void>;
}

/** A TCP proxy to `target` (http(s)://host:port); `url` is the same URL pointing at the proxy. */
export function startTcpProxy(target: string, listenPort?: number): Promise<TcpProxy>;

/** A JSON-RPC proxy to `nodeUrl` that can refuse sends and go down (behind a TCP proxy for the down/up part). */
export function startRpcFaults(nodeUrl: string): Promise<RpcFaults>;
