// `txdesk config:set` and `config:get`: the persisted settings of the CLI (today only the service endpoint).
import type { Command } from 'commander';
import { z } from 'zod';
import type { CliContext } from './cli-context.js';
import { usageError } from './cli-errors.js';
import { isServiceUrl, normalizeServiceUrl } from './cli-options.js';
import { defaultEndpoint } from './config-store.js';

const settingKey = z.enum(['endpoint']);

function parseKey(key: string): 'endpoint' {
  const parsed = settingKey.safeParse(key);
  if (!parsed.success) throw usageError(`Unknown setting "${key}": the only setting is endpoint.`);
  return parsed.data;
}

export function registerConfig(program: Command, context: () => CliContext): void {
  program
    .command('config:set')
    .description('save a setting; `config:set endpoint <url>` points the account commands at a txdesk service')
    .argument('<key>', 'the setting: endpoint')
    .argument('<value>', `its value, e.g. ${defaultEndpoint}`)
    .action((key: string, value: string) => {
      parseKey(key);
      if (!isServiceUrl(value.trim())) {
        throw usageError(`Invalid endpoint URL "${value}": give an http:// or https:// URL such as ${defaultEndpoint}.`);
      }
      const ctx = context();
      const url = normalizeServiceUrl(value.trim());
      ctx.config.update({ endpoint: url });
      ctx.out(`Endpoint set to ${url} (saved in ${ctx.config.file}).`);
      if (ctx.place.env.TXDESK_ENDPOINT) ctx.err(`Note: TXDESK_ENDPOINT is set and takes precedence (${ctx.place.env.TXDESK_ENDPOINT}).`);
    });

  program
    .command('config:get')
    .description('print a setting and where its value comes from')
    .argument('[key]', 'the setting: endpoint', 'endpoint')
    .action((key: string) => {
      parseKey(key);
      const ctx = context();
      const endpoint = ctx.endpoint();
      const from = endpoint.source === 'config' ? ctx.config.file : endpoint.source;
      ctx.out(endpoint.url);
      ctx.err(`(from ${from})`);
    });
}
