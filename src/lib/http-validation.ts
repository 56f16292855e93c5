// Parses JSON request bodies with zod; a failure is a 400 worded by lib/zod-issues.
import type { z } from 'zod';
import { TxdeskError } from '../shared/errors.js';
import { describeIssues } from './zod-issues.js';

/** Parses a JSON body with `schema`; a failure is a 400 whose message names every bad field (at most three). */
export function parseBody<S extends z.ZodType>(schema: S, body: unknown, what: string): z.output<S> {
  if (body === undefined) {
    throw new TxdeskError('BAD_REQUEST', `The request body is empty; send ${what} as a JSON object.`);
  }
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw new TxdeskError('BAD_REQUEST', `The request body must be a JSON object with ${what}.`);
  }
  const parsed = schema.safeParse(body, { reportInput: true });
  if (parsed.success) return parsed.data;
  throw new TxdeskError('INVALID_PARAMETER', describeIssues(parsed.error.issues, 'field'));
}
