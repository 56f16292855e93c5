// What the data service is started with and what a started one offers: the options (checked by zod before anything
// starts, so a bad one is one clear error), the running service's surface and the default limits.
import type { Server } from 'node:http';
import { z } from 'zod';
import { DEFAULT_SERVICE_PORT } from '../shared/defaults.js';
import { TxdeskError } from '../shared/errors.js';
import type { Logger } from '../lib/log.js';
import type { Db } from '../lib/sqlite.js';
import { describeIssues } from '../lib/zod-issues.js';
import type { Accounts } from './accounts/accounts.js';
import { databaseUrlProblem } from './db/service-database.js';
import { publicUrlProblem } from './http/service-hosts.js';
import { networkListSchema, type NetworkConfig } from './network/network-config.js';
import type { ServedNetwork } from './network/served-network.js';
import type { WebhooksOptions } from './webhooks/webhook-service.js';

export { DEFAULT_SERVICE_PORT };
export const DEFAULT_RATE_LIMIT_PER_MINUTE = 6000;
/** Token refreshes per clientId and minute: each costs the node an eth_call. */
export const DEFAULT_REFRESH_RATE_LIMIT_PER_MINUTE = 30;
/** Webhook tests per clientId and minute (per instance): each sends a request to a URL the client chose. */
export const WEBHOOK_TESTS_PER_MINUTE = 30;

export interface ServiceOptions {
  /** The one-network short form (`--node`): its network is `platform`/`network`; give this or `networks`. */
  nodeUrl?: string;
  /** Every network served (`--network`, `--config`); the first is the default. */
  networks?: NetworkConfig[];
  /** Where `service.sqlite` lives; needed without `database`, unused with it (a fleet instance keeps no files). */
  dataDir?: string;
  /**
   * postgres:// URL of a database shared by every instance: accounts, sessions, the token index, trackings,
   * subscriptions and messages live there, and one instance (by advisory lock) indexes and one watches receipts.
   * SQLite in `dataDir` unless set.
   */
  database?: string;
  /** 4000 unless set; 0 picks a free port. */
  port?: number;
  /** 127.0.0.1 unless set. */
  host?: string;
  /**
   * The URL clients reach the service at (e.g. https://txdesk.example.com behind a proxy): its host is answered
   * besides loopback, and page links and OpenAPI servers are built from it. The listening address unless set.
   */
  publicUrl?: string;
  /** Blocks the indexer stays behind the head: 0 on dev chains (31337, 1337), else 12; with `networks`, for those that set none. */
  confirmations?: number;
  /** Lets anyone create an account with POST /users/v1/signup; off unless set. */
  openSignup?: boolean;
  platform?: string;
  /** Derived from the chain id unless set (1 = mainnet, 31337 = local, ...). */
  network?: string;
  minAckTimeoutMs?: number;
  /** Listing requests per clientId per minute (burst: one minute's worth); <= 0 or Infinity disables the limit. */
  rateLimitPerMinute?: number;
  /** POST .../tokens/{id}/refresh per clientId and minute (default 30). */
  refreshRateLimitPerMinute?: number;
  /** Session token lifetime; 7 days unless set. */
  tokenTtlSeconds?: number;
  /** Sign-up/login/passwd requests per client IP per minute; 120 unless set, <= 0 disables. */
  authRateLimitPerMinute?: number;
  /** Node probing period and timeout per probe (node-watch.ts defaults unless set; tests shorten them). */
  probeMs?: number;
  probeTimeoutMs?: number;
  /** Lets webhooks reach loopback, private and link-local addresses (`--allow-private-webhooks`, on with `--dev`). */
  allowPrivateWebhooks?: boolean;
  /** Webhooks per clientId (default 20) and deliveries per second per clientId and network (default 50). */
  maxWebhooksPerClient?: number;
  webhookDeliveriesPerSecond?: number;
  /** Tests shorten the webhooks' backoff, retry window, timeout, claim lease and polls. */
  webhookTuning?: Pick<
    WebhooksOptions,
    'backoff' | 'retryWindowMs' | 'timeoutMs' | 'leaseMarginMs' | 'pollMs' | 'activityPollMs' | 'lookup'
  >;
  /**
   * Ends a start that is still waiting for its node (`nodeUrl` whose chain id is not known yet): the start rejects
   * with the signal's reason. The CLI aborts it on Ctrl-C.
   */
  signal?: AbortSignal;
  log?: Logger;
}

export type ServiceRole = 'indexer-leader' | 'watcher-leader' | 'follower';

export interface RunningService {
  url: string;
  /** The default network's first node, chain id, names and indexer lag. */
  nodeUrl: string;
  chainId: number;
  platform: string;
  network: string;
  confirmations: number;
  /** Every network served, the default first. */
  networks: ServedNetwork[];
  accounts: Accounts;
  server: Server;
  /** The SQLite database of a single instance; null on a fleet instance (its state is all in PostgreSQL). */
  db: Db | null;
  /** Resolves when the default network's indexer has reached the head (minus confirmations) once. */
  caughtUp(): Promise<void>;
  /** The default network's; zeros on an instance that does not index it (another instance holds its indexer lock). */
  indexerStatus(): { indexedBlock: number; headBlock: number };
  /** What this instance does for the default network in a fleet; both leaders when it runs alone. */
  roles(): ServiceRole[];
  stop(): Promise<void>;
}

/** Options come from code (CLI, app core, tests); a bad one is a clear error before anything starts. */
const optionsSchema = z
  .looseObject({
    nodeUrl: z.string().min(1).optional(),
    networks: networkListSchema.optional(),
    dataDir: z.string().min(1).optional(),
    database: z
      .string()
      .refine((v) => databaseUrlProblem(v) === null, { error: (i) => databaseUrlProblem(String(i.input)) ?? 'invalid' })
      .optional(),
    port: z.number().int().min(0).max(65535).optional(),
    host: z.string().min(1).optional(),
    publicUrl: z
      .string()
      .refine((v) => publicUrlProblem(v) === null, { error: (i) => publicUrlProblem(String(i.input)) ?? 'invalid' })
      .optional(),
    confirmations: z.number().int().min(0).max(10_000).optional(),
    openSignup: z.boolean().optional(),
    platform: z
      .string()
      .regex(/^[a-z0-9-]{1,40}$/, { error: 'must be 1 to 40 lowercase letters, digits or dashes' })
      .optional(),
    network: z
      .string()
      .regex(/^[a-z0-9-]{1,40}$/, { error: 'must be 1 to 40 lowercase letters, digits or dashes' })
      .optional(),
    minAckTimeoutMs: z.number().int().min(1).optional(),
    rateLimitPerMinute: z.number().min(0).optional(),
    refreshRateLimitPerMinute: z.number().min(0).optional(),
    tokenTtlSeconds: z.number().int().min(1).optional(),
    authRateLimitPerMinute: z.number().min(0).optional(),
    allowPrivateWebhooks: z.boolean().optional(),
    maxWebhooksPerClient: z.number().int().min(0).optional(),
    webhookDeliveriesPerSecond: z.number().min(0).optional(),
  })
  .refine((o) => (o.nodeUrl === undefined) !== (o.networks === undefined), {
    error: "Give the service either 'nodeUrl' (one network) or 'networks', not both and not neither.",
    path: ['networks'],
  })
  .refine((o) => o.database !== undefined || o.dataDir !== undefined, {
    error: "The service option 'dataDir' is required without 'database': the folder where SQLite keeps the service's state.",
    path: ['dataDir'],
  });

/** The first phase of start-up: nothing opens with a bad option. */
export function checkServiceOptions(opts: ServiceOptions): void {
  const checked = optionsSchema.safeParse(opts, { reportInput: true });
  if (!checked.success) throw new TxdeskError('INVALID_PARAMETER', describeIssues(checked.error.issues, 'service option'));
}
