// One way to run a zod schema on input from outside (HTTP, IPC): a 400 whose message names the bad field.
import type { z } from 'zod';
import { TxdeskError } from '../../shared/errors.js';

export function parseInput<S extends z.ZodType>(schema: S, input: unknown, what: string): z.infer<S> {
  const r = schema.safeParse(input);
  if (r.success) return r.data;
  const issue = r.error.issues[0];
  const path = issue && issue.path.length ? issue.path.join('.') : what;
  throw new TxdeskError('INVALID_PARAMETER', `${path}: ${issue?.message ?? 'invalid value'}; fix it and retry.`);
}
