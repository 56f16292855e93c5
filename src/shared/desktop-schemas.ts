// The validators of the desktop contract: one zod schema per argument of every call in desktop-api.ts. The core runs
// them once, at its face (core/services/desktop-api-validated.ts); IPC and HTTP pass arguments through unchecked.
import { z } from 'zod';
import { ADDRESS_PATTERN } from './address.js';
import {
  congestionLevels,
  type CallMethod,
  type DesktopApi,
  type ExportKey,
  type GenerateKey,
  type ImportKey,
  type NetworkRef,
  type SettingsPatch,
  type SignIn,
} from './desktop-api.js';
import { STANDARDS, type TokenQuery } from './listing.js';
import { SPEEDS, type Speed, type TxRequest } from './tx-request.js';
import type { ApprovalDecision } from './approvals.js';
import { MAX_BUMP_PERCENT, MIN_BUMP_PERCENT } from './defaults.js';
import { fieldIssue } from './errors.js';

export const txHashSchema = z.string().regex(/^0x[0-9a-fA-F]{64}$/, 'must be a transaction hash: 0x followed by 64 hex digits');
export const addressSchema = z.string().regex(ADDRESS_PATTERN, 'must be an address: 0x followed by 40 hex digits');
const weiSchema = z.string().regex(/^[0-9]{1,78}$/, 'must be an amount of wei: a decimal integer');

const UINT256_MAX = (1n << 256n) - 1n;
/** A quantity as JSON-RPC and people write it: a decimal or 0x-hex string of an unsigned 256-bit integer. */
const QUANTITY = /^(0x[0-9a-fA-F]{1,64}|[0-9]{1,78})$/;
const quantitySchema = (field: string, what: string) =>
  z
    .string()
    .regex(QUANTITY, { message: `must be ${what}: a decimal or 0x-hex string`, abort: true })
    // A refinement's message is a whole sentence (lib/zod-issues.ts), so it names its field itself; `problem` is the
    // same without the field, for a form that shows it beside the field.
    .refine((s) => !QUANTITY.test(s) || BigInt(s) <= UINT256_MAX, fieldRefusal(field, `must be ${what} below 2^256`));

/** A refinement's words: the whole sentence naming `field`, and what is wrong as data (lib/zod-issues.ts fieldIssues). */
function fieldRefusal(field: string, problem: string): { message: string; params: { problem: string } } {
  return { message: fieldIssue(field, problem).sentence, params: { problem } };
}

export const speedSchema = z.enum(SPEEDS as [Speed, ...Speed[]], { message: "must be 'slow', 'normal' or 'fast'" });

/** The body of POST /api/tx and the fields of eth_sendTransaction the engine takes (see shared/tx-request.ts). */
export const txRequestSchema = z
  .object({
    // An EIP-55 checksum is checked by the engine (hashing needs a library the contract does not carry).
    to: addressSchema.nullable(),
    value: quantitySchema('value', 'an amount of wei'),
    data: z
      .string()
      .regex(/^0x([0-9a-fA-F]{2})*$/, 'must be 0x-hex bytes: 0x followed by an even number of hex digits')
      .max(2 * 256 * 1024 + 2, 'is larger than 256 KiB'),
    gas: quantitySchema('gas', 'a gas limit').refine(
      (s) => !QUANTITY.test(s) || (BigInt(s) >= 21_000n && BigInt(s) <= 100_000_000n),
      fieldRefusal('gas', 'must be a gas limit between 21000 and 100000000'),
    ),
    speed: speedSchema,
  })
  .partial()
  .strict()
  // {} is the same as no body (the 0-value self-transfer): an example app may send an empty JSON object.
  .refine((r) => Object.keys(r).length === 0 || (r.to !== undefined && r.to !== null) || (r.data !== undefined && r.data !== '0x'), {
    path: ['to'],
    ...fieldRefusal('to', 'is missing: give a recipient, or data (init code) to create a contract'),
  });

export const policyPatchSchema = z
  .object({
    pricing: z.enum(['market', 'seed']),
    speed: speedSchema,
    txType: z.enum(['legacy', 'eip1559']),
    initialFeeWei: weiSchema,
    bumpPercent: z.number().min(MIN_BUMP_PERCENT).max(MAX_BUMP_PERCENT),
    maxFeeWei: weiSchema,
    maxReplacements: z.number().int().min(0).max(100),
    timeoutMs: z.number().int().min(1000).max(600_000),
    confirmations: z.number().int().min(1).max(1000),
  })
  .partial()
  .strict();

const SLUG = /^[a-z0-9-]{1,40}$/;
/** `platform/network`, the key of a network's node URL. */
const NETWORK_KEY = /^[a-z0-9-]{1,40}\/[a-z0-9-]{1,40}$/;

export const settingsPatchSchema = z
  .object({
    clientId: z.string().min(1).max(200).nullable(),
    nodeUrl: z.url({ protocol: /^(https?|wss?)$/ }),
    serviceUrl: z.url({ protocol: /^https?$/ }),
    platform: z.string().regex(/^[a-z0-9-]{1,40}$/),
    network: z.string().regex(/^[a-z0-9-]{1,40}$/),
    policy: policyPatchSchema,
    localApi: z.boolean(),
    approvalTimeoutMs: z.number().int().min(5_000).max(3_600_000),
    nodeUrls: z.record(
      z.string().regex(NETWORK_KEY, 'must be platform/network, e.g. ethereum/sepolia'),
      z.url({ protocol: /^(https?|wss?)$/ }).nullable(),
    ),
  })
  .partial()
  .strict();

/** A network by name: the body of POST /api/networks/active. */
export const networkRefSchema = z
  .object({
    platform: z.string().regex(SLUG, 'must be lowercase letters, digits or dashes, e.g. ethereum'),
    network: z.string().regex(SLUG, 'must be lowercase letters, digits or dashes, e.g. local-2'),
  })
  .strict();

export const approvalDecisionSchema = z.object({ approve: z.boolean(), allowPerDayWei: weiSchema.optional() }).strict();
const approvalIdSchema = z.uuid('must be the id of a waiting request (a UUID)');

export const signInSchema = z.object({ email: z.email().max(320), password: z.string().min(1).max(1024) }).strict();

export const importKeySchema = z
  .object({
    privateKey: z.string().regex(/^(0x)?[0-9a-fA-F]{64}$/, 'must be a private key: 64 hex digits, optionally after 0x'),
    replace: z.boolean().optional(),
  })
  .strict();

export const generateKeySchema = z.object({ replace: z.boolean().optional() }).strict();

export const exportKeySchema = z.object({ passphrase: z.string().min(8, 'must have at least 8 characters').max(1024) }).strict();

/** A token id as the listing API gives it: a decimal integer of at most 78 digits. */
export const tokenIdSchema = z.string().regex(/^[0-9]{1,78}$/, 'must be a token id: a decimal integer');

export const congestionSchema = z.enum(congestionLevels);

export const tokenQuerySchema = z
  .object({
    page: z.number().int().min(0).max(1_000_000_000),
    size: z.number().int().min(1).max(200),
    order_by: z.enum(['transfer_block_number', 'token_id', 'contract_address']),
    order_direction: z.enum(['asc', 'desc']),
    contractAddresses: z.array(addressSchema).max(50),
    standard: z.enum(STANDARDS),
  })
  .partial()
  .strict();

export const tokenMetadataRequestSchema = z.array(z.string().max(2048)).max(200);

/** The `url` of a token image request: the http(s) `image` of token metadata (data: URLs are shown as they are). */
export const tokenImageUrlSchema = z
  .string({ error: 'give the image as ?url=<encoded http(s) URL>' })
  .max(2048, 'an image URL is at most 2048 characters')
  .pipe(z.url({ protocol: /^https?$/, error: 'an image URL is an absolute http:// or https:// URL' }));

/** The arguments of every call, as one tuple schema each; the compiler asks for an entry per call of the table. */
export const desktopArgs = {
  getAppInfo: z.tuple([]),
  listTransactions: z.tuple([]),
  getTransaction: z.tuple([txHashSchema]),
  sendTransaction: z.tuple([txRequestSchema.optional()]),
  cancelTransaction: z.tuple([txHashSchema]),
  speedUpTransaction: z.tuple([txHashSchema]),
  listTokens: z.tuple([addressSchema, tokenQuerySchema.default({})]),
  resolveTokenMetadata: z.tuple([tokenMetadataRequestSchema]),
  refreshToken: z.tuple([addressSchema, tokenIdSchema]),
  getSettings: z.tuple([]),
  updateSettings: z.tuple([settingsPatchSchema]),
  signIn: z.tuple([signInSchema]),
  restart: z.tuple([]),
  getServiceHealth: z.tuple([]),
  listNetworks: z.tuple([]),
  switchNetwork: z.tuple([networkRefSchema]),
  listApprovals: z.tuple([]),
  decideApproval: z.tuple([approvalIdSchema, approvalDecisionSchema]),
  listApprovalRules: z.tuple([]),
  revokeApprovalRule: z.tuple([z.uuid('must be the id of a standing rule (a UUID)')]),
  getKeyInfo: z.tuple([]),
  generateKey: z.tuple([generateKeySchema.optional()]),
  importKey: z.tuple([importKeySchema]),
  exportKey: z.tuple([exportKeySchema]),
  getDevchainStatus: z.tuple([]),
  setCongestion: z.tuple([congestionSchema]),
} as const satisfies { readonly [K in CallMethod]: z.ZodType<Parameters<DesktopApi[K]>> };

// The plain types of desktop-api.ts and what these schemas accept must stay the same: a change to one alone fails here.
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
const sameTypes: [
  Same<z.infer<typeof settingsPatchSchema>, SettingsPatch>,
  Same<z.infer<typeof signInSchema>, SignIn>,
  Same<z.infer<typeof importKeySchema>, ImportKey>,
  Same<z.infer<typeof generateKeySchema>, GenerateKey>,
  Same<z.infer<typeof exportKeySchema>, ExportKey>,
  Same<z.infer<typeof tokenQuerySchema>, TokenQuery>,
  Same<z.infer<typeof txRequestSchema>, TxRequest>,
  Same<z.infer<typeof approvalDecisionSchema>, ApprovalDecision>,
  Same<z.infer<typeof networkRefSchema>, NetworkRef>,
] = [true, true, true, true, true, true, true, true, true];
void sameTypes;
