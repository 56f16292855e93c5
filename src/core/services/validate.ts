// One way to run a zod schema on input from outside (HTTP, IPC, a settings file): INVALID_PARAMETER with one sentence
// per problem, naming the field (lib/zod-issues.ts), as the core's validating face words it.
import type { z } from 'zod';
import { describeIssues } from '../../lib/zod-issues.js';
import { TxdeskError } from '../../shared/errors.js';

export function parseInput<S extends z.ZodType>(schema: S, input: unknown, what: string): z.infer<S> {
  const r = schema.safeParse(input);
  if (r.success) return r.data;
  const issues = r.error.issues.map((issue) => (issue.path.length ? issue : { ...issue, path: [what] }));
  throw new TxdeskError('INVALID_PARAMETER', describeIssues(issues, 'field'));
}
