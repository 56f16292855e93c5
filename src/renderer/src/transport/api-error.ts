// The one error shape the renderer shows: `{ code, message }`, whichever bridge (IPC or HTTP) produced the failure.
import type { ErrorCode } from '../../../shared/errors.js';

export class ApiError extends Error {
  constructor(
    readonly code: ErrorCode | 'NETWORK',
    message: string,
  ) {
    super(message);
    this.name = 'ApiError';
  }
}

/** Anything a bridge call rejected with, as an ApiError: plain `{code,message}` from the preload, ApiError from HTTP, or a stray Error. */
export function toApiError(e: unknown): ApiError {
  if (e instanceof ApiError) return e;
  if (e && typeof e === 'object') {
    const { code, message } = e as { code?: unknown; message?: unknown };
    if (typeof code === 'string' && typeof message === 'string') return new ApiError(code as ErrorCode, message);
    if (typeof message === 'string' && message) return new ApiError('INTERNAL', message);
  }
  return new ApiError('INTERNAL', 'Something went wrong; try again.');
}

/** What a slice keeps of a failure: plain data, so state stays serialisable. */
export interface ErrorInfo {
  code: string;
  message: string;
}

export const errorInfo = (e: unknown): ErrorInfo => {
  const { code, message } = toApiError(e);
  return { code, message };
};
