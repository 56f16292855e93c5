// The one place zod issues become people's sentences: one per problem, naming the field and what it accepts (docs/api.md).
import type { z } from 'zod';

/** One sentence per issue; `noun` is "field" for bodies and "query parameter" for query strings. */
export function describeIssues(issues: readonly z.core.$ZodIssue[], noun: string): string {
  const sentences: string[] = [];
  for (const issue of issues.slice(0, 3)) {
    const name = issue.path.map(String).join('.');
    if (issue.code === 'unrecognized_keys') {
      const keys = issue.keys.map((k) => `'${k}'`).join(', ');
      sentences.push(`Unknown ${noun}${issue.keys.length > 1 ? 's' : ''} ${keys}; remove ${issue.keys.length > 1 ? 'them' : 'it'}.`);
    } else if (isMissing(issue)) {
      sentences.push(`The ${noun} '${name}' is required.`);
    } else if (issue.code === 'custom') {
      // Custom issues from our own transforms already are whole sentences.
      sentences.push(issue.message);
    } else {
      sentences.push(`The ${noun} '${name}' ${phrase(issue)}.`);
    }
  }
  return sentences.join(' ');
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
