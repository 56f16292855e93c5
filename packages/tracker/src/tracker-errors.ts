// Errors the tracker SDK reports: a code to branch on, the facts behind it (why a service was unreachable, which
// option was wrong), one sentence saying what to do, and whether a retry can help. Programs read the code and the
// facts; the sentence is for people and may be reworded.

export type TrackerErrorCode =
  /** The service refused the clientId (HTTP 401 on the upgrade). Not retried. */
  | 'UNKNOWN_CLIENT_ID'
  /** The service does not serve this platform/network (HTTP 404). Not retried. */
  | 'NOT_FOUND'
  /** The service could not be reached or the connection dropped (`reason` says which); the SDK keeps reconnecting. */
  | 'UNREACHABLE'
  /** An option or argument is out of range (`option` names it); fix the call. */
  | 'INVALID_OPTIONS'
  /** The service answered a request with a JSON-RPC error (`rpcCode`). */
  | 'RPC_ERROR'
  /** No answer within the request timeout. */
  | 'TIMEOUT'
  /** The tracker was closed with `close()`. */
  | 'CLOSED';

/** Why the service was UNREACHABLE. */
export type TrackerUnreachableReason =
  /** No connection could be opened (refused, no such host, TLS, handshake timeout); `detail` has the socket's words. */
  | 'CONNECT_FAILED'
  /** An open connection was lost (the service stopped, the network dropped it, a heartbeat went unanswered). */
  | 'CONNECTION_DROPPED'
  /** The upgrade was answered with an HTTP status other than 101, 401 and 404 (`httpStatus`; `detail` the body's words). */
  | 'HTTP_STATUS'
  /** A request's timeout passed while no connection was open, so it was never sent. */
  | 'NOT_SENT';

/** The facts behind an error, beside its sentence. URLs in them never carry the clientId. */
export interface TrackerErrorFacts {
  /** With UNREACHABLE: what went wrong. */
  reason?: TrackerUnreachableReason;
  /** With UNREACHABLE: the socket's error text, or the service's error message on an HTTP_STATUS answer. */
  detail?: string;
  /** With HTTP_STATUS: the status the service answered the upgrade with. */
  httpStatus?: number;
  /** The tracker URL that failed (without its query). */
  url?: string;
  /** With UNREACHABLE while reconnecting: the delay before the next attempt, and the URL it goes to. */
  retryInMs?: number;
  nextUrl?: string;
  /** With INVALID_OPTIONS: the option or argument at fault, as written in the message (`options.ackTimeout`, `hash`). */
  option?: string;
}

export class TrackerError extends Error {
  // Declared, not defined: an error carries only the facts that apply to it.
  declare readonly reason?: TrackerUnreachableReason;
  declare readonly detail?: string;
  declare readonly httpStatus?: number;
  declare readonly url?: string;
  declare readonly retryInMs?: number;
  declare readonly nextUrl?: string;
  declare readonly option?: string;

  constructor(
    readonly code: TrackerErrorCode,
    message: string,
    readonly retryable: boolean = code === 'UNREACHABLE' || code === 'TIMEOUT',
    /** The JSON-RPC error code when `code` is RPC_ERROR. */
    readonly rpcCode?: number,
    facts: TrackerErrorFacts = {},
  ) {
    super(message);
    this.name = 'TrackerError';
    Object.assign(this, facts);
  }
}

export function isTrackerError(e: unknown, code?: TrackerErrorCode): e is TrackerError {
  return e instanceof TrackerError && (code === undefined || e.code === code);
}
