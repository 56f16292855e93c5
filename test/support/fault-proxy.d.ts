// Types for fault-proxy.js (fault injection between the app and its node or data service, shared by tests and benchmarks).

export interface TcpProxy {
  url: string;
  port: number;
  /** Refuses connections and cuts open ones, as a dead or restarting process does. */
  down(): Promise<void>;
  up(): Promise<void>;
  close(): Promise<void>;
}

export interface RpcFaults {
  /** The URL to give the app as its node. */
  url: string;
  /** The next `count` eth_sendRawTransaction calls get this JSON-RPC error instead of reaching the node. */
  refuseSends(count: number, message: string): void;
  /** How many sends were refused so far. */
  refused(): number;
  /** The node goes away (connections refused) until `up()`. */
  down(): Promise<void>;
  up(): Promise<void>;
  close(): Promise<void>;
}

/** A TCP proxy to `target` (http(s)://host:port); `url` is the same URL pointing at the proxy. */
export function startTcpProxy(target: string, listenPort?: number): Promise<TcpProxy>;

/** A JSON-RPC proxy to `nodeUrl` that can refuse sends and go down (behind a TCP proxy for the down/up part). */
export function startRpcFaults(nodeUrl: string): Promise<RpcFaults>;
