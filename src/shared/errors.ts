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

/**
 * One thing a request got wrong, as data beside its sentence: `path` names the field ("to", "policy.maxFeeWei"; empty
 * for the request as a whole), `problem` says what is wrong with it as a predicate to follow the field's own name ("must
 * be an amount of wei: …"; absent when the sentence cannot be split that way), `sentence` is what the message says.
 */
export interface FieldIssue {
  path: string;
  problem?: string;
  sentence: string;
}

/** The issue of one field, its sentence made the one way: "The field 'to' has a wrong checksum: …". */
export function fieldIssue(path: string, problem: string, noun = 'field'): FieldIssue {
  return { path, problem, sentence: `The ${noun} '${path}' ${problem}.` };
}

/** What goes over the wire: `{ error: { code, message } }`, and for a refused request the `fields` it got wrong. */
export interface ErrorBody {
  error: { code: ErrorCode; message: string; fields?: FieldIssue[] };
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

  /** The fields a refused request got wrong (set by FieldsError); none for any other failure. */
  readonly fields?: FieldIssue[];

  toBody(): ErrorBody {
    const fields = this.fields;
    return { error: { code: this.code, message: this.message, ...(fields ? { fields } : {}) } };
  }
}

/** INVALID_PARAMETER for a request with these issues: the message is their sentences, and each names its field. */
export class FieldsError extends TxdeskError {
  override readonly fields: FieldIssue[];
  constructor(issues: readonly FieldIssue[]) {
    super('INVALID_PARAMETER', issues.map((i) => i.sentence).join(' '));
    this.fields = [...issues];
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
