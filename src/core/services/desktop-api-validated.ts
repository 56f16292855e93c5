// The core's face: every call's arguments are checked here, once, against desktop-schemas.ts, whichever transport
// brought them (IPC, HTTP, a test), and so is any other outside input the core parses (parseInput); a refusal is one
// INVALID_PARAMETER sentence per problem, naming the field, with the field paths as data (FieldsError).
import type { z } from 'zod';
import { fieldIssues } from '../../lib/zod-issues.js';
import { callMethods, desktopMethods, type ArgPlace, type CallMethod, type DesktopApi } from '../../shared/desktop-api.js';
import { desktopArgs } from '../../shared/desktop-schemas.js';
import { FieldsError, TxdeskError } from '../../shared/errors.js';

/** The name a person knows an argument by: `hash` for `path:hash`, `uris` for `body.uris`; none for a whole body. */
function argName(place: ArgPlace | undefined): string | null {
  if (!place || place === 'body' || place === 'body?' || place === 'query') return null;
  return place.slice(place.indexOf(place.startsWith('path:') ? ':' : '.') + 1);
}

/** Issues of a tuple schema, with the argument index replaced by the argument's name (or dropped for a body). */
function namedIssues(method: CallMethod, issues: readonly z.core.$ZodIssue[]): z.core.$ZodIssue[] {
  const places = desktopMethods[method].args as readonly ArgPlace[];
  return issues.map((issue) => {
    const [index, ...rest] = issue.path;
    // The argument list itself is short: say how many the method takes.
    if (index === undefined)
      return {
        code: 'custom',
        path: [],
        input: undefined,
        message: `${method} takes ${places.length} argument${places.length === 1 ? '' : 's'}; give all of them.`,
      };
    if (typeof index !== 'number') return issue;
    const name = argName(places[index]);
    return { ...issue, path: name ? [name, ...rest] : rest.length ? rest : [method === 'listTokens' ? 'query' : 'input'] };
  });
}

/** Checks the arguments of a call; returns them parsed (defaults applied) or throws INVALID_PARAMETER. */
export function checkArgs<M extends CallMethod>(method: M, args: readonly unknown[]): Parameters<DesktopApi[M]> {
  // Trailing undefined arguments are absent ones (an optional argument left out over IPC or HTTP).
  let n = args.length;
  while (n > 0 && args[n - 1] === undefined) n--;
  const takes = desktopMethods[method].args.length;
  if (n > takes)
    throw new TxdeskError('INVALID_PARAMETER', `${method} takes ${takes} argument${takes === 1 ? '' : 's'}, not ${n}; remove the others.`);
  const parsed = desktopArgs[method].safeParse(args.slice(0, n));
  if (parsed.success) return parsed.data as Parameters<DesktopApi[M]>;
  throw new FieldsError(fieldIssues(namedIssues(method, parsed.error.issues), 'field'));
}

/** `input` (from HTTP, IPC or a settings file) parsed by `schema`, or INVALID_PARAMETER naming `what` for a bare value. */
export function parseInput<S extends z.ZodType>(schema: S, input: unknown, what: string): z.infer<S> {
  const r = schema.safeParse(input);
  if (r.success) return r.data;
  throw new FieldsError(
    fieldIssues(
      r.error.issues.map((issue) => (issue.path.length ? issue : { ...issue, path: [what] })),
      'field',
    ),
  );
}

/** `api` with every call's arguments checked first; events pass through. */
export function validatedApi<T extends DesktopApi>(api: T): T {
  const checked = Object.fromEntries(
    callMethods.map((method) => {
      const impl = api[method] as (...a: unknown[]) => Promise<unknown>;
      return [method, async (...args: unknown[]) => impl.apply(api, checkArgs(method, args) as unknown[])];
    }),
  );
  return { ...api, ...checked };
}
