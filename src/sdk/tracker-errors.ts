// Errors the tracker SDK reports: a code to branch on, one sentence saying what to do, and whether a retry can help.

export type TrackerErrorCode =
  /** The service refused the clientId (HTTP 401 on the upgrade). Not retried. */
  | 'UNKNOWN_CLIENT_ID'
  /** The service does not serve this platform/network (HTTP 404). Not retried. */
  | 'NOT_FOUND'
  /** The service could not be reached or the connection dropped; the SDK keeps reconnecting. */
  | 'UNREACHABLE'
  /** An option or argument is out of range; fix the call. */
  | 'INVALID_OPTIONS'
  /** The service answered a request with a JSON-RPC error (`rpcCode`). */
  | 'RPC_ERROR'
  /** No answer within the request timeout. */
  | 'TIMEOUT'
  /** The tracker was closed with `close()`. */
  | 'CLOSED';

export class TrackerError extends Error {
  constructor(
    readonly code: TrackerErrorCode,
    message: string,
    readonly retryable: boolean = code === 'UNREACHABLE' || code === 'TIMEOUT',
    /** The JSON-RPC error code when `code` is RPC_ERROR. */
    readonly rpcCode?: number,
  ) {
    super(message);
    this.name = 'TrackerError';
  }
}

export function isTrackerError(e: unknown, code?: TrackerErrorCode): e is TrackerError {
  return e instanceof TrackerError && (code === undefined || e.code === code);
}
