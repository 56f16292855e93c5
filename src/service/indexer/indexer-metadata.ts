// Reads what the listing shows about contracts and tokens (name, symbol, totalSupply, tokenURI) in batched eth_calls.
import type { Standard } from '../../shared/listing.js';
import { substituteId } from './indexer-events.js';
import type { ChainReader } from './indexer-rpc.js';

// Function selectors and calldata written out (indexer-units.test.ts checks them against ethers' encoding): the reader
// thread imports this module, and ethers, loaded at start only to encode these, delayed its first read by ~200 ms.
// ethers is loaded on first need instead: to decode a string the fast decoder below leaves to it.
const SELECTOR = {
  name: '0x06fdde03',
  symbol: '0x95d89b41',
  totalSupply: '0x18160ddd',
  tokenURI: '0xc87b56dd',
  supportsInterface: '0x01ffc9a7',
  uri: '0x0e89341c',
} as const;
const ERC721_METADATA = '0x5b5e139f';
const ERC721_ID = '0x80ac58cd';
const ERC1155_ID = '0xd9b67a26';
const ERC1155_METADATA_URI = '0x0e89341c';

const tokenUriCall = (id: bigint) => SELECTOR.tokenURI + id.toString(16).padStart(64, '0');
const uriCall = (id: bigint) => SELECTOR.uri + id.toString(16).padStart(64, '0');
/** supportsInterface(bytes4): a bytes4 argument is left-aligned in its word. */
const supports = (iface: string) => SELECTOR.supportsInterface + iface.slice(2).padEnd(64, '0');

export const CALL = {
  name: SELECTOR.name,
  symbol: SELECTOR.symbol,
  totalSupply: SELECTOR.totalSupply,
  supportsMetadata: supports(ERC721_METADATA),
  supports721: supports(ERC721_ID),
  supports1155: supports(ERC1155_ID),
  supports1155Uri: supports(ERC1155_METADATA_URI),
  tokenURI: tokenUriCall,
  uri: uriCall,
};

type Ethers = typeof import('ethers');
let ethers: Ethers | null = null;
/** ethers, imported the first time a string needs its decoder (then kept for the synchronous decoders below). */
async function loadEthers(): Promise<void> {
  ethers ??= await import('ethers');
}
/** ethers for the slow decoders; a caller that skipped loadEthers is a bug, not an empty string. */
function loadedEthers(): Ethers {
  if (!ethers) throw new Error('indexer-metadata: ethers is needed to decode this answer and was not loaded first');
  return ethers;
}

const utf8 = new TextDecoder('utf-8', { fatal: true });

/** A word read as a small integer, or null when it does not fit (ethers rejects those offsets and lengths too). */
function smallWord(b: Buffer, at: number): number | null {
  if (at + 32 > b.length) return null;
  for (let i = at; i < at + 26; i++) if (b[i] !== 0) return null;
  return b.readUIntBE(at + 26, 6);
}

/**
 * ABI `string` decoding with the same acceptance rules as ethers' AbiCoder (offset and length in bounds, padded
 * length present, strict UTF-8), or null to let ethers decide. ethers spends ~17 us per string, which made decoding
 * 100,000 tokenURIs take longer than reading them from the node.
 */
export function decodeAbiString(data: string): string | null {
  const b = Buffer.from(data.slice(2), 'hex');
  if (b.length * 2 !== data.length - 2) return null;
  const offset = smallWord(b, 0);
  if (offset === null) return null;
  const length = smallWord(b, offset);
  if (length === null || offset + 32 + Math.ceil(length / 32) * 32 > b.length) return null;
  try {
    return utf8.decode(b.subarray(offset + 32, offset + 32 + length));
  } catch {
    return null;
  }
}

/** Whether probeOk needs ethers for one of these probe answers (the fast decoder declined it). */
const needsEthers = (probes: readonly (string | null)[]) => probes.some((d) => !!d && d !== '0x' && decodeAbiString(d) === null);

/** A string answer the fast decoder declined: ethers' ABI decoder, else bytes32 (old tokens' name/symbol), else "". */
function slowText(data: string): string {
  const { AbiCoder, decodeBytes32String } = loadedEthers();
  try {
    return String(AbiCoder.defaultAbiCoder().decode(['string'], data)[0]);
  } catch {
    try {
      return data.length === 66 ? decodeBytes32String(data) : '';
    } catch {
      return '';
    }
  }
}

/**
 * String answers as text, "" when absent: each decoded once by hand, ethers loaded only when one of them needs it
 * (a catch-up decodes 100,000s of tokenURIs here).
 */
export async function decodeTexts(results: readonly (string | null)[]): Promise<string[]> {
  const fast = results.map((d) => (!d || d === '0x' ? '' : decodeAbiString(d)));
  if (fast.includes(null)) await loadEthers();
  return fast.map((text, i) => text ?? slowText(results[i]!));
}

/** uint256 as a decimal string, or null when the call is absent or reverted. */
export function decodeUint(data: string | null): string | null {
  if (data?.length !== 66) return null;
  return BigInt(data).toString();
}

function decodeBool(data: string | null): boolean {
  return !!data && data.length === 66 && BigInt(data) === 1n;
}

/** An ERC-165 answer: true/false when the contract answered with a bool, null when it did not answer. */
function answer165(data: string | null): boolean | null {
  if (data?.length !== 66) return null;
  const v = BigInt(data);
  return v === 1n ? true : v === 0n ? false : null;
}

export interface ContractMeta {
  name: string;
  symbol: string;
  totalSupply: string | null;
  hasUri: boolean;
  standard: Standard;
}

/**
 * The standard of a contract: what its first event says, unless ERC-165 answers that it implements the other
 * standard and not this one. Pure.
 */
export function decideStandard(byEvents: Standard, erc721: boolean | null, erc1155: boolean | null): Standard {
  if (byEvents === 'ERC1155' && erc1155 === false && erc721 === true) return 'ERC721';
  if (byEvents === 'ERC721' && erc721 === false && erc1155 === true) return 'ERC1155';
  return byEvents;
}

function probeOk(probe: string | null): boolean {
  if (!probe || probe === '0x') return false;
  if (decodeAbiString(probe) !== null) return true;
  const { AbiCoder } = loadedEthers();
  try {
    AbiCoder.defaultAbiCoder().decode(['string'], probe);
    return true;
  } catch {
    return false;
  }
}

/**
 * Metadata of new contracts. uri support: ERC-165 metadata (ERC-721 metadata or ERC-1155 metadata URI) or a working
 * tokenURI/uri on a token the contract emitted.
 */
export async function readContractMeta(
  chain: ChainReader,
  contracts: readonly { address: string; probeId: bigint; byEvents: Standard }[],
  block: number,
): Promise<ContractMeta[]> {
  const PER = 9;
  const reqs = contracts.flatMap((c) => [
    { to: c.address, data: CALL.name },
    { to: c.address, data: CALL.symbol },
    { to: c.address, data: CALL.totalSupply },
    { to: c.address, data: CALL.supportsMetadata },
    { to: c.address, data: tokenUriCall(c.probeId) },
    { to: c.address, data: CALL.supports721 },
    { to: c.address, data: CALL.supports1155 },
    { to: c.address, data: CALL.supports1155Uri },
    { to: c.address, data: uriCall(c.probeId) },
  ]);
  const out = await chain.calls(reqs, block);
  const r = (i: number, k: number) => out[i * PER + k] ?? null;
  const names = await decodeTexts(contracts.flatMap((_, i) => [r(i, 0), r(i, 1)]));
  if (needsEthers(contracts.flatMap((_, i) => [r(i, 4), r(i, 8)]))) await loadEthers();
  return contracts.map((c, i) => {
    const standard = decideStandard(c.byEvents, answer165(r(i, 5)), answer165(r(i, 6)));
    const common = { name: names[2 * i]!, symbol: names[2 * i + 1]!, standard };
    if (standard === 'ERC1155') return { ...common, totalSupply: '0', hasUri: decodeBool(r(i, 7)) || probeOk(r(i, 8)) };
    return { ...common, totalSupply: decodeUint(r(i, 2)), hasUri: decodeBool(r(i, 3)) || probeOk(r(i, 4)) };
  });
}

/** ERC-1155 uri(id) with the `{id}` substitution of EIP-1155; "" when absent or reverting. */
export async function readIdUris(chain: ChainReader, ids: readonly { address: string; id: bigint }[], block: number): Promise<string[]> {
  if (ids.length === 0) return [];
  const out = await chain.calls(
    ids.map((t) => ({ to: t.address, data: uriCall(t.id) })),
    block,
  );
  return (await decodeTexts(out)).map((text, i) => substituteId(text, ids[i]!.id));
}

/** The uri of each token or id, by its standard: tokenURI for ERC-721, uri(id) for ERC-1155. */
export async function readUris(
  chain: ChainReader,
  items: readonly { standard: Standard; address: string; id: bigint }[],
  block: number,
): Promise<string[]> {
  const erc721 = items.flatMap((t, i) => (t.standard === 'ERC721' ? [i] : []));
  const erc1155 = items.flatMap((t, i) => (t.standard === 'ERC1155' ? [i] : []));
  const [a, b] = await Promise.all([
    readTokenUris(
      chain,
      erc721.map((i) => items[i]!),
      block,
    ),
    readIdUris(
      chain,
      erc1155.map((i) => items[i]!),
      block,
    ),
  ]);
  const out: string[] = new Array(items.length);
  erc721.forEach((i, j) => (out[i] = a[j]!));
  erc1155.forEach((i, j) => (out[i] = b[j]!));
  return out;
}

export async function readTokenUris(
  chain: ChainReader,
  tokens: readonly { address: string; id: bigint }[],
  block: number,
): Promise<string[]> {
  if (tokens.length === 0) return [];
  const out = await chain.calls(
    tokens.map((t) => ({ to: t.address, data: tokenUriCall(t.id) })),
    block,
  );
  return decodeTexts(out);
}

export async function readTotalSupplies(chain: ChainReader, addresses: readonly string[], block: number): Promise<(string | null)[]> {
  if (addresses.length === 0) return [];
  const out = await chain.calls(
    addresses.map((a) => ({ to: a, data: CALL.totalSupply })),
    block,
  );
  return out.map((d) => decodeUint(d));
}
