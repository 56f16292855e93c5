// Start-up configuration: the seed's environment variables plus txdesk's own, validated with zod into one
// CoreConfig, one clear line per bad value. Nothing set means the embedded default (dev chain + in-process service).
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';
import { z } from 'zod';
import type { ReplacementPolicy } from '../shared/desktop-api.js';
import type { PersistedSettings } from './ports.js';
import { DEFAULT_SERVICE_URL, MIN_BUMP_PERCENT } from '../shared/defaults.js';

/** The policy's defaults: the seed preset's numbers; loadConfig makes `pricing` the market on a configured network. */
export const defaultPolicy: ReplacementPolicy = {
  pricing: 'seed',
  speed: 'normal',
  txType: 'legacy',
  initialFeeWei: '1000000000',
  bumpPercent: MIN_BUMP_PERCENT,
  maxFeeWei: '500000000000',
  maxReplacements: 5,
  timeoutMs: 10_000,
  confirmations: 6,
};

export interface NetworkConfig {
  nodeUrl: string;
  serviceUrl: string;
  clientId: string;
  /** Null when neither the environment nor the saved settings name one: the data service's /health says. */
  platform: string | null;
  network: string | null;
  /** Where each value came from, so an error can name the variable (env) or the app's settings (saved). */
  origin: Record<NetworkSetting, 'env' | 'saved'>;
}

export type NetworkSetting = 'nodeUrl' | 'serviceUrl' | 'clientId' | 'platform' | 'network';

export interface CoreConfig {
  /** `configured`: NODE_ENDPOINT/TXDESK_SERVICE_URL (or saved settings) point at a chain and a data service. */
  mode: 'embedded' | 'configured';
  dataDir: string;
  /** Only in configured mode. */
  network: NetworkConfig | null;
  /** PRIVATE_KEY from the environment: used as is, never stored, never shown. */
  envPrivateKey: string | null;
  /** TXDESK_KEY_PASSPHRASE: unlocks the encrypted key file where no keychain exists. */
  keyPassphrase: string | null;
  /** TXDESK_KEYCHAIN=off: never use the OS keychain (encrypted file or, on the dev chain, memory instead). */
  useKeychain: boolean;
  /** TXDESK_METADATA_ORIGINS: origins whose token metadata may come from local addresses (a dev chain of your own). */
  metadataOrigins: string[];
  policy: ReplacementPolicy;
}

/** Bad input (environment, flags, saved settings): start-up stops and the process exits with code 2. */
export class ConfigError extends Error {
  readonly exitCode = 2;
  constructor(readonly problems: string[]) {
    super(problems.join('\n'));
    this.name = 'ConfigError';
  }
}

/** secp256k1's group order: a private key is an integer in 1..n-1. */
const SECP256K1_N = 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n;

const slug = /^[a-z0-9-]{1,40}$/;
const envSchemas = {
  CLIENT_ID: z.string().regex(/^[\x21-\x7e]{1,200}$/, 'must be 1-200 visible characters without spaces (see `txdesk account:describe`)'),
  // The message never echoes the value: it is a secret.
  PRIVATE_KEY: z
    .string()
    .regex(/^(0x)?[0-9a-fA-F]{64}$/, 'must be 64 hex digits, optionally after 0x (the value is not shown)')
    .refine((v) => {
      // zod runs this even after the regex failed; a malformed value is reported by the regex alone, never echoed.
      if (!/^(0x)?[0-9a-fA-F]{64}$/.test(v)) return true;
      const k = BigInt(v.startsWith('0x') ? v : `0x${v}`);
      return k > 0n && k < SECP256K1_N;
    }, 'is not a usable key: it must be above zero and below the secp256k1 order (the value is not shown); export the key ' +
      'from your wallet again, or unset PRIVATE_KEY and generate one in the app'),
  NODE_ENDPOINT: z.url({
    protocol: /^(https?|wss?)$/,
    error: 'must be an http(s):// or ws(s):// URL of an Ethereum JSON-RPC node, e.g. http://127.0.0.1:8545',
  }),
  PLATFORM: z.string().regex(slug, 'must be lowercase letters, digits or dashes, e.g. ethereum'),
  NETWORK: z.string().regex(slug, 'must be lowercase letters, digits or dashes, e.g. sepolia or local'),
  TXDESK_SERVICE_URL: z.url({
    protocol: /^https?$/,
    error: `must be the http(s):// base URL of a txdesk data service, e.g. ${DEFAULT_SERVICE_URL}`,
  }),
  TXDESK_DATA_DIR: z.string().min(1, 'must be a directory path'),
  TXDESK_KEY_PASSPHRASE: z.string().min(8, 'must be at least 8 characters long (the value is not shown)'),
  TXDESK_KEYCHAIN: z.enum(['on', 'off'], { error: 'must be on or off' }),
  TXDESK_METADATA_ORIGINS: z
    .string()
    .refine((v) => v.split(',').every((o) => isOrigin(o.trim())), 'must be comma-separated http(s) origins such as http://127.0.0.1:8546'),
} as const;

function isOrigin(value: string): boolean {
  try {
    const u = new URL(value);
    return /^https?:$/.test(u.protocol) && u.origin === value.replace(/\/+$/, '');
  } catch {
    return false;
  }
}
type EnvName = keyof typeof envSchemas;

/** Reads and validates every variable; throws ConfigError listing each bad one on its own line. */
export function readEnv(env: NodeJS.ProcessEnv): Partial<Record<EnvName, string>> {
  const out: Partial<Record<EnvName, string>> = {};
  const problems: string[] = [];
  for (const name of Object.keys(envSchemas) as EnvName[]) {
    const raw = env[name];
    if (raw === undefined || raw === '') continue;
    const r = envSchemas[name].safeParse(raw.trim());
    if (r.success) out[name] = r.data;
    else problems.push(`${name} ${r.error.issues[0]?.message ?? 'is invalid'}.`);
  }
  if (problems.length) throw new ConfigError(problems);
  return out;
}

export function resolveDataDir(explicit: string | undefined, env: NodeJS.ProcessEnv): string {
  const fromEnv = env.TXDESK_DATA_DIR?.trim();
  return resolve(explicit ?? (fromEnv ? fromEnv : join(homedir(), '.txdesk')));
}

/**
 * Environment first, then what the user saved in the app, then the embedded default.
 * A half-configured network (a node without a data service, or no client ID) is an error, not a silent fallback.
 */
export function loadConfig(opts: {
  env: NodeJS.ProcessEnv;
  dataDir?: string;
  saved: PersistedSettings;
  policy?: Partial<ReplacementPolicy>;
}): CoreConfig {
  const e = readEnv(opts.env);
  const nodeUrl = e.NODE_ENDPOINT ?? opts.saved.nodeUrl;
  const serviceUrl = e.TXDESK_SERVICE_URL ?? opts.saved.serviceUrl;
  const clientId = e.CLIENT_ID ?? opts.saved.clientId ?? undefined;
  // The dev chain keeps the seed's example (1 gwei, +12.5 % every 10 s), so the demo still shows replacement.
  const pricing: ReplacementPolicy['pricing'] = nodeUrl || serviceUrl ? 'market' : 'seed';
  const policy = { ...defaultPolicy, pricing, ...opts.saved.policy, ...opts.policy };
  const base = {
    dataDir: resolveDataDir(opts.dataDir, opts.env),
    envPrivateKey: e.PRIVATE_KEY ? (e.PRIVATE_KEY.startsWith('0x') ? e.PRIVATE_KEY : `0x${e.PRIVATE_KEY}`) : null,
    keyPassphrase: e.TXDESK_KEY_PASSPHRASE ?? null,
    useKeychain: e.TXDESK_KEYCHAIN !== 'off',
    metadataOrigins: e.TXDESK_METADATA_ORIGINS ? e.TXDESK_METADATA_ORIGINS.split(',').map((o) => new URL(o.trim()).origin) : [],
    policy,
  };
  if (!nodeUrl && !serviceUrl) return { mode: 'embedded', network: null, ...base };
  const problems: string[] = [];
  if (!nodeUrl)
    problems.push(
      'NODE_ENDPOINT is not set: with TXDESK_SERVICE_URL, also say which Ethereum node to use (or unset both for the embedded dev chain).',
    );
  if (!serviceUrl)
    problems.push(
      'TXDESK_SERVICE_URL is not set: with NODE_ENDPOINT, also say which txdesk data service to use (or unset both for the embedded dev chain).',
    );
  if (!clientId) problems.push('CLIENT_ID is not set: get one with `txdesk login` then `txdesk account:describe`, and set CLIENT_ID.');
  if (problems.length) throw new ConfigError(problems);
  // A value neither set nor saved counts as the variable's: that is what a person would set.
  const from = (envValue: string | undefined, savedValue: unknown): 'env' | 'saved' => (!envValue && savedValue ? 'saved' : 'env');
  return {
    mode: 'configured',
    network: {
      nodeUrl: nodeUrl!,
      serviceUrl: serviceUrl!.replace(/\/+$/, ''),
      clientId: clientId!,
      platform: e.PLATFORM ?? opts.saved.platform ?? null,
      network: e.NETWORK ?? opts.saved.network ?? null,
      origin: {
        nodeUrl: from(e.NODE_ENDPOINT, opts.saved.nodeUrl),
        serviceUrl: from(e.TXDESK_SERVICE_URL, opts.saved.serviceUrl),
        clientId: from(e.CLIENT_ID, opts.saved.clientId),
        platform: from(e.PLATFORM, opts.saved.platform),
        network: from(e.NETWORK, opts.saved.network),
      },
    },
    ...base,
  };
}
