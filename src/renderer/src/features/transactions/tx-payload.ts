// What a transaction does, from its record's `to`, `value` and `input`: a transfer of ETH, a call of a contract (by
// selector, named and decoded for the token transfers the app itself sends), a contract creation, or the 0 ETH transfer
// to yourself the demo and cancels sign. Pure; the dashboard's cards and the detail show it.
import type { TxRecord } from '../../../../shared/tx-record.js';
import { ERC1155_SAFE_TRANSFER_FROM, ERC721_SAFE_TRANSFER_FROM } from '../../lib/token-transfer-abi.js';

/** A token transfer read back from calldata the token browser wrote. */
export interface TokenTransferCall {
  standard: 'ERC721' | 'ERC1155';
  from: string;
  to: string;
  tokenId: string;
  /** "1" for ERC-721. */
  amount: string;
}

export type TxAction =
  /** A record from a core that does not say what it sent. */
  | { kind: 'unknown' }
  | { kind: 'self'; valueWei: string }
  | { kind: 'transfer'; to: string; valueWei: string }
  | { kind: 'call'; to: string; valueWei: string; selector: string; name: string | null; token: TokenTransferCall | null }
  | { kind: 'create'; valueWei: string };

/** Selectors a person may recognise; anything else is shown as its four bytes. */
const selectorNames: Readonly<Record<string, string>> = {
  [ERC721_SAFE_TRANSFER_FROM]: 'safeTransferFrom (ERC-721)',
  [ERC1155_SAFE_TRANSFER_FROM]: 'safeTransferFrom (ERC-1155)',
  '0xa9059cbb': 'transfer (ERC-20)',
  '0x23b872dd': 'transferFrom',
  '0x095ea7b3': 'approve',
  '0xa22cb465': 'setApprovalForAll',
};

const word = (hex: string, i: number) => hex.slice(10 + i * 64, 10 + (i + 1) * 64);
const wordAddress = (w: string) => `0x${w.slice(24)}`;

/** The token transfer in `input` when it is one of the two `safeTransferFrom` calls, else null. */
export function decodeTokenTransfer(input: string): TokenTransferCall | null {
  const hex = input.toLowerCase();
  const selector = hex.slice(0, 10);
  const words = (hex.length - 10) / 64;
  if (selector === ERC721_SAFE_TRANSFER_FROM && words === 3) {
    return {
      standard: 'ERC721',
      from: wordAddress(word(hex, 0)),
      to: wordAddress(word(hex, 1)),
      tokenId: BigInt(`0x${word(hex, 2)}`).toString(),
      amount: '1',
    };
  }
  if (selector === ERC1155_SAFE_TRANSFER_FROM && words >= 6) {
    return {
      standard: 'ERC1155',
      from: wordAddress(word(hex, 0)),
      to: wordAddress(word(hex, 1)),
      tokenId: BigInt(`0x${word(hex, 2)}`).toString(),
      amount: BigInt(`0x${word(hex, 3)}`).toString(),
    };
  }
  return null;
}

export function txAction(r: Pick<TxRecord, 'from' | 'to' | 'value' | 'input'>): TxAction {
  // Records stored before the payload fields existed have none of them.
  if (r.to === undefined || r.value === undefined || r.input === undefined) return { kind: 'unknown' };
  const valueWei = r.value;
  const input = r.input && r.input !== '0x' ? r.input.toLowerCase() : '';
  if (r.to === null) return { kind: 'create', valueWei };
  const to = r.to.toLowerCase();
  if (!input) return to === r.from.toLowerCase() ? { kind: 'self', valueWei } : { kind: 'transfer', to, valueWei };
  const selector = input.slice(0, 10);
  return { kind: 'call', to, valueWei, selector, name: selectorNames[selector] ?? null, token: decodeTokenTransfer(input) };
}

/** The record that says what a nonce does: its first attempt that is not a cancel (a cancel sends 0 ETH to yourself). */
export function payloadRecord<T extends Pick<TxRecord, 'kind' | 'attempt'>>(attempts: readonly T[]): T | null {
  const originals = attempts.filter((a) => a.kind !== 'cancel');
  const pool = originals.length > 0 ? originals : attempts;
  return pool.reduce<T | null>((best, a) => (best === null || a.attempt < best.attempt ? a : best), null);
}
