// `txdesk config:set` and `config:get`: the persisted settings of the CLI (today only the service endpoint).
import { z } from 'zod';
import type { CliContext } from './cli-context.js';
import { usageError } from './cli-errors.js';
import { isServiceUrl, normalizeServiceUrl } from './cli-options.js';
import { DEFAULT_SERVICE_URL } from '../shared/defaults.js';

const settingKey = z.enum(['endpoint']);

function parseKey(key: string): 'endpoint' {
  const parsed = settingKey.safeParse(key);
  if (!parsed.success) throw usageError(`Unknown setting "${key}": the only setting is endpoint.`);
  return parsed.data;
}

/** `config:set <key> <value>`. */
export function runConfigSet(key: string, value: string, context: () => CliContext): void {
  parseKey(key);
  if (!isServiceUrl(value.trim())) {
    throw usageError(`Invalid endpoint URL "${value}": give an http:// or https:// URL such as ${DEFAULT_SERVICE_URL}.`);
  }
  const ctx = context();
  const url = normalizeServiceUrl(value.trim());
  ctx.config.update({ endpoint: url });
  ctx.out(`Endpoint set to ${url} (saved in ${ctx.config.file}).`);
  if (ctx.place.env.TXDESK_ENDPOINT) ctx.err(`Note: TXDESK_ENDPOINT is set and takes precedence (${ctx.place.env.TXDESK_ENDPOINT}).`);
}

/** `config:get [key]`: the value on stdout, where it comes from on stderr. */
export function runConfigGet(key: string, context: () => CliContext): void {
  parseKey(key);
  const ctx = context();
  const endpoint = ctx.endpoint();
  const from = endpoint.source === 'config' ? ctx.config.file : endpoint.source;
  ctx.out(endpoint.url);
  ctx.err(`(from ${from})`);
}
