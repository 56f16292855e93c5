// The one place zod issues become people's sentences: one per problem, naming the field and what it accepts (docs/api.md).
import type { z } from 'zod';
import { fieldIssue, type FieldIssue } from '../shared/errors.js';

/** One sentence per issue; `noun` is "field" for bodies and "query parameter" for query strings. */
export function describeIssues(issues: readonly z.core.$ZodIssue[], noun: string): string {
  return fieldIssues(issues, noun)
    .map((i) => i.sentence)
    .join(' ');
}

/**
 * The first issues as data: each one's field path, what is wrong with it (a predicate, for a form to put after the
 * field's own name) and its sentence. A custom issue is a whole sentence of our own; its predicate, when it has one,
 * comes in its params (`{ problem }`).
 */
export function fieldIssues(issues: readonly z.core.$ZodIssue[], noun: string): FieldIssue[] {
  return issues.slice(0, 3).map((issue) => {
    const path = issue.path.map(String).join('.');
    if (issue.code === 'unrecognized_keys') {
      const keys = issue.keys.map((k) => `'${k}'`).join(', ');
      return {
        path,
        sentence: `Unknown ${noun}${issue.keys.length > 1 ? 's' : ''} ${keys}; remove ${issue.keys.length > 1 ? 'them' : 'it'}.`,
      };
    }
    if (issue.code === 'custom') {
      const problem = (issue.params as { problem?: unknown } | undefined)?.problem;
      return typeof problem === 'string' ? { path, problem, sentence: issue.message } : { path, sentence: issue.message };
    }
    return fieldIssue(path, isMissing(issue) ? 'is required' : phrase(issue), noun);
  });
}

/**
 * A value that is absent, not one of the wrong type: zod 4 leaves `input` out of issues unless asked (reportInput), so
 * its default message ("…, received undefined") tells them apart.
 */
function isMissing(issue: z.core.$ZodIssue): boolean {
  if (issue.code !== 'invalid_type') return false;
  return 'input' in issue ? issue.input === undefined : /received undefined$/.test(issue.message);
}

/** Our schemas word their messages as predicates ("must be ..."); zod's own defaults (capitalised) are reworded. */
function phrase(issue: z.core.$ZodIssue): string {
  if (/^[a-z]/.test(issue.message)) return issue.message;
  switch (issue.code) {
    case 'too_small':
      return issue.origin === 'string' ? `must have at least ${issue.minimum} characters` : `must be at least ${issue.minimum}`;
    case 'too_big':
      return issue.origin === 'string' ? `must have at most ${issue.maximum} characters` : `must be at most ${issue.maximum}`;
    case 'invalid_type':
      return `must be ${issue.expected === 'int' ? 'a whole number' : `${/^[aeiou]/.test(issue.expected) ? 'an' : 'a'} ${issue.expected}`}`;
    default:
      return `is invalid (${issue.message})`;
  }
}
