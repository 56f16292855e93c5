// Validation of command-line option values (zod): one clear line and exit code 2 for anything a user mistyped.
import { z } from 'zod';
import { congestionLevels } from '../shared/desktop-api.js';
import { usageError, type CliError } from './cli-errors.js';
import { DEFAULT_SERVICE_URL } from '../shared/defaults.js';

/** A whole number from 0 to `max` (at most `digits` digits), with one `message` for every way to miss it. */
const wholeNumberOption = (digits: number, max: number, message: string) =>
  z
    .string()
    .trim()
    .regex(new RegExp(`^\\d{1,${digits}}$`), message)
    .transform(Number)
    .pipe(z.number().max(max, message));

export const portOption = wholeNumberOption(5, 65535, 'give a whole number from 0 to 65535 (0 picks a free port)');

export const congestionOption = z.enum(congestionLevels, { error: `give one of ${congestionLevels.join(', ')}` });

/** The seed of `--congestion market`'s load: mulberry32 takes 32 bits. */
export const seedOption = wholeNumberOption(10, 2 ** 32 - 1, 'give a whole number from 0 to 4294967295');

export const blockTimeOption = z
  .string()
  .trim()
  .regex(/^\d+(\.\d+)?$/, 'give a number of seconds greater than 0, e.g. 1 or 0.5')
  .transform(Number)
  .pipe(z.number().gt(0, 'give a number of seconds greater than 0, e.g. 1 or 0.5').max(3600, 'give at most 3600 seconds'));

export const confirmationsOption = wholeNumberOption(4, 1000, 'give a whole number from 0 to 1000');

export const dirOption = z.string().trim().min(1, 'give a folder path');

/** True for an absolute http(s) URL without credentials, query or fragment. */
export function isServiceUrl(value: string): boolean {
  return isUrlOf(value, ['http:', 'https:']);
}

function isUrlOf(value: string, protocols: readonly string[]): boolean {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return false;
  }
  return (
    protocols.includes(url.protocol) &&
    url.hostname !== '' &&
    url.username === '' &&
    url.password === '' &&
    url.search === '' &&
    url.hash === ''
  );
}

/** The canonical spelling of a service URL: what `new URL` makes of it, without a trailing slash. */
export function normalizeServiceUrl(value: string): string {
  return new URL(value).href.replace(/\/+$/, '');
}

export const httpUrlOption = z
  .string()
  .trim()
  .refine(isServiceUrl, `give an http:// or https:// URL such as ${DEFAULT_SERVICE_URL} (no user, query or #fragment)`)
  .transform(normalizeServiceUrl);

/** An Ethereum node's JSON-RPC URL (`service --node`): the same rules, a WebSocket URL too, a node's port in the example. */
export const nodeUrlOption = z
  .string()
  .trim()
  .refine(
    (v) => isUrlOf(v, ['http:', 'https:', 'ws:', 'wss:']),
    "give the node's JSON-RPC URL, http(s):// or ws(s)://, such as http://127.0.0.1:8545 (no user, query or #fragment)",
  )
  .transform(normalizeServiceUrl);

/** `blockTime` -> `--block-time`, the spelling users typed. */
export function flagName(key: string): string {
  return `--${key.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}`;
}

/** Parses commander's option bag with `schema`; the first problem becomes a CliError naming the flag and the value. */
export function parseOptions<S extends z.ZodType>(schema: S, raw: Record<string, unknown>): z.output<S> {
  const result = schema.safeParse(raw);
  if (result.success) return result.data;
  throw optionError(result.error, raw);
}

function optionError(error: z.ZodError, raw: Record<string, unknown>): CliError {
  const issue = error.issues[0];
  const key = issue?.path[0];
  if (issue === undefined || typeof key !== 'string') return usageError(`Invalid options: ${issue?.message ?? 'unknown problem'}.`);
  const value = raw[key];
  const shown = typeof value === 'string' ? ` "${value}"` : '';
  return usageError(`Invalid ${flagName(key)}${shown}: ${issue.message}.`);
}
