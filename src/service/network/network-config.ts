// Which networks one data service serves, as `--network <platform>/<network>=<url>[,<url>...]` and the
// `--config txdesk-service.json` file give them (docs/deploy.md): checked once, before anything starts.
import { readFileSync } from 'node:fs';
import { z } from 'zod';
import { TxdeskError } from '../../shared/errors.js';
import { networkKey } from '../../shared/networks.js';
import { describeIssues } from '../../lib/zod-issues.js';

export const NAME_PATTERN = /^[a-z0-9-]{1,40}$/;
const NAME_RULE = 'must be 1 to 40 lowercase letters, digits or dashes';

/** One network: the first of a service's list is its default (the seed's paths without a network serve it). */
export interface NetworkConfig {
  platform: string;
  network: string;
  /** Tried in order: the first that answers with the right chain is used, the next when it refuses, stalls or lags. */
  nodeUrls: string[];
  /** Checked against every node at start and on reconnect; the first node's answer unless set. */
  chainId?: number;
  /** Blocks the indexer stays behind the head: 0 on dev chains, else 12, unless set. */
  indexerLag?: number;
  /** First block indexed when the index is empty (default 0; a contract's deployment block saves a long catch-up). */
  startBlock?: number;
}

// The one rule lives in src/shared/networks.ts; passed on so the service's callers keep importing it from here.
export { networkKey };

/** Null for an http(s) or ws(s) URL; else what to give instead. */
export function nodeUrlProblem(url: string): string | null {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return `The node URL ${JSON.stringify(url.slice(0, 80))} is not a URL; give one like http://127.0.0.1:8545.`;
  }
  if (!['http:', 'https:', 'ws:', 'wss:'].includes(u.protocol))
    return `The node URL must start with http://, https://, ws:// or wss://; got ${JSON.stringify(url.slice(0, 80))}.`;
  return null;
}

const nodeUrl = z.string().refine((v) => nodeUrlProblem(v) === null, { error: (i) => nodeUrlProblem(String(i.input)) ?? 'invalid' });

export const networkConfigSchema = z.strictObject({
  platform: z.string().regex(NAME_PATTERN, { error: NAME_RULE }),
  network: z.string().regex(NAME_PATTERN, { error: NAME_RULE }),
  nodeUrls: z.array(nodeUrl).min(1, { error: 'must list at least one node URL' }).max(16),
  chainId: z.int().min(1).optional(),
  indexerLag: z.int().min(0).max(10_000).optional(),
  startBlock: z.int().min(0).optional(),
});

export const networkListSchema = z
  .array(networkConfigSchema)
  .min(1, { error: 'must name at least one network' })
  .refine((list) => new Set(list.map(networkKey)).size === list.length, {
    error: 'names a network twice; give each platform/network once',
  });

/** The configuration file: `{ "networks": [ { "platform", "network", "nodeUrls", "chainId"?, "indexerLag"?, "startBlock"? } ] }`. */
const configFileSchema = z.strictObject({ networks: networkListSchema });

/** Reads and checks a configuration file; a problem is one sentence naming the file and the field. */
export function readNetworkConfigFile(path: string): NetworkConfig[] {
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(path, 'utf8'));
  } catch (e) {
    const why =
      (e as NodeJS.ErrnoException).code === 'ENOENT'
        ? 'it does not exist'
        : e instanceof SyntaxError
          ? `it is not JSON (${e.message})`
          : (e as Error).message;
    throw new TxdeskError('INVALID_PARAMETER', `Cannot read the configuration file ${path}: ${why}.`);
  }
  const parsed = configFileSchema.safeParse(raw, { reportInput: true });
  if (!parsed.success) throw new TxdeskError('INVALID_PARAMETER', `${path}: ${describeIssues(parsed.error.issues, 'field')}`);
  return parsed.data.networks;
}

/** `ethereum/sepolia=https://a.example,https://b.example` (the `--network` flag) as a network. */
export function parseNetworkFlag(value: string): NetworkConfig {
  const eq = value.indexOf('=');
  const name = eq < 0 ? value : value.slice(0, eq);
  const [platform, network, extra] = name.split('/');
  if (eq < 0 || platform === undefined || network === undefined || extra !== undefined) {
    throw new TxdeskError(
      'INVALID_PARAMETER',
      `--network ${JSON.stringify(value.slice(0, 80))} must look like <platform>/<network>=<node url>[,<node url>...], e.g. ` +
        `ethereum/sepolia=https://rpc.example.`,
    );
  }
  const parsed = networkConfigSchema.safeParse({
    platform,
    network,
    nodeUrls: value
      .slice(eq + 1)
      .split(',')
      .map((u) => u.trim())
      .filter((u) => u.length > 0),
  });
  if (!parsed.success) throw new TxdeskError('INVALID_PARAMETER', `--network ${name}: ${describeIssues(parsed.error.issues, 'part')}`);
  return parsed.data;
}
