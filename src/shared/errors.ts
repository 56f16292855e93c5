// The error envelope every txdesk HTTP API and IPC call returns, and the codes it may carry.

export const ERROR_CODES = [
  'BAD_REQUEST',
  'INVALID_PARAMETER',
  'UNAUTHORIZED',
  'FORBIDDEN',
  'DECLINED',
  'NOT_FOUND',
  'METHOD_NOT_ALLOWED',
  'CONFLICT',
  'WOULD_REVERT',
  'PAYLOAD_TOO_LARGE',
  'UNSUPPORTED_MEDIA_TYPE',
  'RATE_LIMITED',
  'UPSTREAM_UNAVAILABLE',
  'CHAIN_ERROR',
  'INTERNAL',
] as const;
export type ErrorCode = (typeof ERROR_CODES)[number];

/** What goes over the wire: `{ error: { code, message } }`. */
export interface ErrorBody {
  error: { code: ErrorCode; message: string };
}

/** A failure a caller can act on. `message` is one sentence that says what to do. */
export class TxdeskError extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly status: number = statusOf(code),
    /** True when trying the same thing again later can succeed. */
    readonly retryable: boolean = code === 'UPSTREAM_UNAVAILABLE' || code === 'RATE_LIMITED',
    /** Facts for programs beside the sentence (a revert's encoded reason for /rpc); never part of the HTTP body. */
    readonly data?: unknown,
  ) {
    super(message);
    this.name = 'TxdeskError';
  }

  toBody(): ErrorBody {
    return { error: { code: this.code, message: this.message } };
  }
}

export function isTxdeskError(e: unknown, code?: ErrorCode): e is TxdeskError {
  return e instanceof TxdeskError && (code === undefined || e.code === code);
}

export function statusOf(code: ErrorCode): number {
  switch (code) {
    case 'BAD_REQUEST':
    case 'INVALID_PARAMETER':
      return 400;
    case 'UNAUTHORIZED':
      return 401;
    case 'FORBIDDEN':
    case 'DECLINED':
      return 403;
    case 'NOT_FOUND':
      return 404;
    case 'METHOD_NOT_ALLOWED':
      return 405;
    case 'CONFLICT':
      return 409;
    case 'WOULD_REVERT':
      return 422;
    case 'PAYLOAD_TOO_LARGE':
      return 413;
    case 'UNSUPPORTED_MEDIA_TYPE':
      return 415;
    case 'RATE_LIMITED':
      return 429;
    case 'UPSTREAM_UNAVAILABLE':
    case 'CHAIN_ERROR':
      return 502;
    case 'INTERNAL':
      return 500;
  }
}
