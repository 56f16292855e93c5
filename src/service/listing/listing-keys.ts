// Byte-sortable keys of the listing index: memcmp order of a key equals the listing order it stands for.
import { isAddress } from '../../shared/address.js';

/**
 * The ordered lists the index keeps: per owner in the three orders; per contract by transfer and by id
 * (contract_address order = id order there); per (owner, contract) pair by transfer, for a one-contract filter.
 */
export const LIST = { OWNER_TR: 0, OWNER_ID: 1, OWNER_CT: 2, CONTRACT_TR: 3, CONTRACT_ID: 4, PAIR_TR: 5 } as const;
export type ListCode = (typeof LIST)[keyof typeof LIST];

/** One integer names one ordered list: the scope's row id with the list code in the low 3 bits. */
export function listId(code: ListCode, scopeId: number): number {
  return scopeId * 8 + code;
}

/** 20 raw bytes of a 0x-prefixed address. */
export function addressBytes(address: string): Buffer {
  if (!isAddress(address)) throw new Error(`not an address: ${address}`);
  return Buffer.from(address.slice(2), 'hex');
}

/**
 * A uint256 as one length byte followed by its minimal big-endian bytes. Longer numbers are larger, and equal lengths
 * compare bytewise, so memcmp order is numeric order; small ids (the common case) cost 2-3 bytes instead of 32.
 */
export function tokenIdKey(id: bigint): Buffer {
  if (id < 0n || id >= 1n << 256n) throw new Error(`token id out of uint256 range: ${id}`);
  if (id === 0n) return Buffer.from([0]);
  let hex = id.toString(16);
  if (hex.length % 2) hex = '0' + hex;
  const body = Buffer.from(hex, 'hex');
  return Buffer.concat([Buffer.from([body.length]), body]);
}

export function tokenIdFromKey(key: Buffer): bigint {
  const len = key[0] ?? 0;
  if (len === 0) return 0n;
  return BigInt('0x' + key.subarray(1, 1 + len).toString('hex'));
}

/**
 * The transfer that gave the owner the token: 6 bytes of block number, 4 of log index, and for a log that moves
 * several tokens (EIP-2309 ConsecutiveTransfer, ERC-1155 TransferBatch) 4 more of the position inside the log.
 * Unique per list: a plain log moves one token, a multi-token log moves distinct tokens to one owner. A plain log's
 * 10-byte key sorts before every 14-byte key of the same log, so old keys stay valid.
 */
export function transferKey(block: number, logIndex: number, sub?: number): Buffer {
  const b = Buffer.alloc(sub === undefined ? 10 : 14);
  b.writeUIntBE(block, 0, 6);
  b.writeUInt32BE(logIndex, 6);
  if (sub !== undefined) b.writeUInt32BE(sub, 10);
  return b;
}

export function transferKeyParts(key: Buffer): { block: number; logIndex: number } {
  return { block: key.readUIntBE(0, 6), logIndex: key.readUInt32BE(6) };
}

/** token_id order, ties (same id in two contracts) broken by contract address. */
export function idOrderKey(idKey: Buffer, contract: Buffer): Buffer {
  return Buffer.concat([idKey, contract]);
}

/** The contract-list key of an ERC-1155 holding: id + contract + owner (several owners hold one id). */
export function holdingIdKey(kId: Buffer, owner: Buffer): Buffer {
  return Buffer.concat([kId, owner]);
}

/** Above every holding key of an ERC-1155 id (id key + 20 address bytes), on both backends. */
export const holdingsUpperBound = (kId: Buffer): Buffer => Buffer.concat([kId, Buffer.alloc(21, 0xff)]);

/** contract_address order, ties broken by numeric token id. */
export function contractOrderKey(contract: Buffer, idKey: Buffer): Buffer {
  return Buffer.concat([contract, idKey]);
}

/** Bounds of one contract's slice of an owner's contract_address-ordered list: [lo, hi). The length byte is <= 32 < 0xff. */
export function contractSlice(contract: Buffer): { lo: Buffer; hi: Buffer } {
  return { lo: contract, hi: Buffer.concat([contract, Buffer.from([0xff])]) };
}
