// The one error shape the renderer shows: `{ code, message }`, and the `fields` a refused request got wrong, whichever
// bridge (IPC or HTTP) produced the failure.
import type { ErrorCode, FieldIssue } from '../../../shared/errors.js';

export class ApiError extends Error {
  constructor(
    readonly code: ErrorCode | 'NETWORK',
    message: string,
    /** The fields a refused request got wrong, as the core named them (shared/errors.ts). */
    readonly fields?: FieldIssue[],
  ) {
    super(message);
    this.name = 'ApiError';
  }
}

/** The `fields` of an error body or a preload rejection, keeping only well-formed issues. */
export function fieldIssuesOf(value: unknown): FieldIssue[] | undefined {
  if (!Array.isArray(value)) return undefined;
  const issues = value.filter(
    (i): i is FieldIssue =>
      !!i &&
      typeof i === 'object' &&
      typeof i.path === 'string' &&
      typeof i.sentence === 'string' &&
      (i.problem === undefined || typeof i.problem === 'string'),
  );
  return issues.map(({ path, problem, sentence }) => (problem === undefined ? { path, sentence } : { path, problem, sentence }));
}

/** Anything a bridge call rejected with, as an ApiError: plain `{code,message,fields?}` from the preload, ApiError from HTTP, or a stray Error. */
export function toApiError(e: unknown): ApiError {
  if (e instanceof ApiError) return e;
  if (e && typeof e === 'object') {
    const { code, message, fields } = e as { code?: unknown; message?: unknown; fields?: unknown };
    if (typeof code === 'string' && typeof message === 'string') return new ApiError(code as ErrorCode, message, fieldIssuesOf(fields));
    if (typeof message === 'string' && message) return new ApiError('INTERNAL', message);
  }
  return new ApiError('INTERNAL', 'Something went wrong; try again.');
}

/** What a slice keeps of a failure: plain data, so state stays serialisable. */
export interface ErrorInfo {
  code: string;
  message: string;
  fields?: FieldIssue[];
}

export const errorInfo = (e: unknown): ErrorInfo => {
  const { code, message, fields } = toApiError(e);
  return fields ? { code, message, fields } : { code, message };
};
