// Tokens being sent, keyed by contract and token id: a card says "being sent" with its transaction's state until the
// listing moves the token (gone from the owner's listing, or a smaller balance), or the transaction ends without moving
// it (its nonce replaced or cancelled, or the call reverted). Pure; the send slice and its watcher apply it.
import type { Token } from '../../../shared/listing.js';
import { nonceState, type NonceState } from './nonce-state.js';
import { chainOf, type TxMap } from './tx-logic.js';

export interface TokenSend {
  /** Lower case. */
  contract: string;
  tokenId: string;
  /** Lower case: the account that holds the token and signs the transfer. */
  owner: string;
  /** Lower case. */
  to: string;
  /** How many are sent ("1" for ERC-721). */
  amount: string;
  /** What the owner held when it was sent: a listing showing less means it moved. */
  heldBefore: string;
  /** The first attempt; every replacement of its nonce sends the same call. */
  hash: string;
  /** For the notice when it ends: "Tiles #3". */
  label: string;
}

export type TokenSends = Readonly<Record<string, TokenSend>>;

export const tokenSendKey = (contract: string, tokenId: string) => `${contract.toLowerCase()}:${tokenId}`;

/** How a send stopped being "being sent". */
export type SendOutcome = 'moved' | 'replaced' | 'cancelled' | 'reverted';

/** A listing of one owner's tokens, and whether it shows all they hold of a contract (no other page, no filter leaving it out). */
export interface ListingView {
  owner: string;
  tokens: readonly Token[];
  covers: (contract: string) => boolean;
}

/** Where the send's nonce stands in the one vocabulary; null while its record is not known yet. */
export function tokenSendState(send: TokenSend, txs: TxMap): NonceState | null {
  const chain = chainOf(txs, send.hash);
  return chain.length > 0 ? nonceState(chain) : null;
}

/** The send's transaction ended without moving the token: its nonce went to another transaction, or the call reverted. */
export function endedWithoutMoving(send: TokenSend, txs: TxMap): Exclude<SendOutcome, 'moved'> | null {
  const state = tokenSendState(send, txs);
  if (!state) return null;
  if (state.name === 'replaced' || state.name === 'cancelled') return state.name;
  if (state.name === 'mined' || state.name === 'confirmed') {
    const status = (state.lead.data as { status?: unknown }).status;
    if (status === 0 || status === '0x0' || status === '0') return 'reverted';
  }
  return null;
}

/** Moved: the owner's listing holds less of it than before, or does not show it where it would. Null: this listing cannot tell. */
export function listingShowsMoved(send: TokenSend, listing: ListingView): boolean | null {
  if (listing.owner.toLowerCase() !== send.owner) return null;
  const held = listing.tokens.find((t) => t.contract.address.toLowerCase() === send.contract && t.id === send.tokenId);
  if (held) return BigInt(held.balance ?? '1') < BigInt(send.heldBefore);
  return listing.covers(send.contract) ? true : null;
}

/** The sends still under way after what the transactions and (when given) a listing say; the same object when none ended. */
export function settleTokenSends(
  sends: TokenSends,
  txs: TxMap,
  listing: ListingView | null,
): { sends: TokenSends; ended: { send: TokenSend; outcome: SendOutcome }[] } {
  const ended: { send: TokenSend; outcome: SendOutcome }[] = [];
  for (const send of Object.values(sends)) {
    const outcome = (listing && listingShowsMoved(send, listing) ? 'moved' : null) ?? endedWithoutMoving(send, txs);
    if (outcome) ended.push({ send, outcome });
  }
  if (ended.length === 0) return { sends, ended };
  const gone = new Set(ended.map((e) => tokenSendKey(e.send.contract, e.send.tokenId)));
  return { sends: Object.fromEntries(Object.entries(sends).filter(([k]) => !gone.has(k))), ended };
}

/** Sends whose transaction is in a block and succeeded: only the listing can end them now, so it is asked. */
export function awaitingListing(sends: TokenSends, txs: TxMap): TokenSend[] {
  return Object.values(sends).filter((s) => {
    const name = tokenSendState(s, txs)?.name;
    return (name === 'mined' || name === 'confirmed') && endedWithoutMoving(s, txs) === null;
  });
}

/** A page of the listing covers a contract whole when it is the only page and its filter keeps that contract. */
export function pageCovers(pagination: { prevUrl: string; nextUrl: string }, contracts: readonly string[]) {
  return (contract: string) =>
    !pagination.prevUrl && !pagination.nextUrl && (contracts.length === 0 || contracts.includes(contract.toLowerCase()));
}

/** The sentence a notice says when a send ends. */
export function outcomeText(send: TokenSend, outcome: SendOutcome): string {
  switch (outcome) {
    case 'moved':
      return `${send.label} was sent: it left this account.`;
    case 'replaced':
      return `${send.label} was not sent: another transaction took its nonce. The token stays here.`;
    case 'cancelled':
      return `${send.label} was not sent: its nonce was cancelled. The token stays here.`;
    case 'reverted':
      return `${send.label} was not sent: the transfer reverted on chain. The token stays here.`;
  }
}
