// Random chain histories of both token standards for the listing and index-store tests: ERC-721 transfers, EIP-2309
// batch mints and ERC-1155 single/batch transfers (mints and burns included), kept valid as a chain would.
import fc from 'fast-check';
import type { TransferLog } from '../../../src/service/indexer/indexer-apply.js';
import type { ContractMeta } from '../../../src/service/indexer/indexer-metadata.js';
import type { IndexWriter } from '../../../src/service/listing/listing-writer.js';
import { modelFromTransfers } from '../service/service-model.js';

export const ZERO = '0x' + '0'.repeat(40);
export const addr = (n: number) => '0x' + n.toString(16).padStart(40, '0');
// Out of creation order on purpose: contract_address order differs from first-seen order.
export const PLAIN = addr(0xc3); // ERC-721, one Transfer per token
export const DROP = addr(0xa1); // ERC-721 minted with ConsecutiveTransfer
export const MULTI = addr(0xb2); // ERC-1155
export const GAME = addr(0xd4); // ERC-1155
export const OWNERS = [addr(0x1111), addr(0x2222), addr(0x3333), addr(0x4444)];
export const STANDARD: Record<string, 'ERC721' | 'ERC1155'> = {
  [PLAIN]: 'ERC721',
  [DROP]: 'ERC721',
  [MULTI]: 'ERC1155',
  [GAME]: 'ERC1155',
};
export const IDS_1155 = [0n, 1n, 2n, 7n, 256n, 2n ** 200n];

export const step = fc.record({ kind: fc.nat(99), a: fc.nat(1000), b: fc.nat(1000), c: fc.nat(1000), newBlock: fc.boolean() });

/** Interprets random numbers as valid chain moves, tracking ownership and balances as a chain would. */
export class History {
  moves: TransferLog[] = [];
  block = 1;
  logIndex = 0;
  nextId = new Map<string, bigint>([
    [PLAIN, 1n],
    [DROP, 1000n],
  ]);

  private state() {
    return modelFromTransfers(this.moves);
  }

  add(s: { kind: number; a: number; b: number; c: number; newBlock: boolean }): void {
    if (s.newBlock) {
      this.block++;
      this.logIndex = 0;
    }
    const hash = '0x' + this.block.toString(16).padStart(64, '0');
    const base = () => ({ block: this.block, logIndex: this.logIndex++, blockHash: hash });
    const owner = (n: number) => OWNERS[n % OWNERS.length]!;
    const held = this.state().tokens;
    if (s.kind < 20) {
      const id = this.nextId.get(PLAIN)!;
      this.nextId.set(PLAIN, id + 1n + BigInt(s.c % 3));
      this.moves.push({ ...base(), contract: PLAIN, from: ZERO, to: owner(s.a), id });
    } else if (s.kind < 35) {
      // A ConsecutiveTransfer mint of 1..8 tokens: one log, positions from 1.
      const from = this.nextId.get(DROP)!;
      const n = 1 + (s.b % 8);
      this.nextId.set(DROP, from + BigInt(n));
      const b = base();
      for (let i = 0; i < n; i++) this.moves.push({ ...b, sub: i + 1, contract: DROP, from: ZERO, to: owner(s.a), id: from + BigInt(i) });
    } else if (s.kind < 55) {
      const erc721 = held.filter((t) => t.standard === 'ERC721');
      if (erc721.length === 0) return;
      const t = erc721[s.a % erc721.length]!;
      const to = s.b % 6 === 0 ? ZERO : owner(s.b);
      this.moves.push({ ...base(), contract: t.contract, from: t.owner, to, id: t.id });
    } else {
      // ERC-1155: single or batch, mint (from zero), transfer, or burn (to zero), amounts within balances.
      const contract = s.kind % 2 ? MULTI : GAME;
      const ids =
        s.kind < 75 ? [IDS_1155[s.c % IDS_1155.length]!] : [...new Set([s.c, s.c + 1, s.c * 7].map((x) => IDS_1155[x % IDS_1155.length]!))];
      const mode = s.b % 4; // 0, 1: mint; 2: transfer; 3: burn
      let from = ZERO;
      if (mode >= 2) {
        const holders = held.filter((t) => t.contract === contract && t.id === ids[0]);
        if (holders.length === 0) return;
        from = holders[s.a % holders.length]!.owner;
      }
      const to = mode === 3 ? ZERO : owner(s.a + s.b);
      const balance = (id: bigint) => held.find((t) => t.contract === contract && t.id === id && t.owner === from)?.balance ?? 0n;
      const amounts = ids.map((id) => (from === ZERO ? BigInt(1 + (s.a % 5)) : (balance(id) * BigInt(1 + (s.c % 3))) / 3n));
      const b = base();
      ids.forEach((id, i) =>
        this.moves.push({ ...b, sub: ids.length > 1 || s.kind >= 75 ? i + 1 : 0, contract, from, to, id, amount: amounts[i]! }),
      );
    }
  }
}

export function metas(w: Pick<IndexWriter, 'contract'>, logs: readonly TransferLog[]): Map<string, ContractMeta> {
  const out = new Map<string, ContractMeta>();
  for (const l of logs) {
    if (w.contract(l.contract) || out.has(l.contract)) continue;
    const standard = STANDARD[l.contract]!;
    out.set(l.contract, {
      name: `N${l.contract.slice(-2)}`,
      symbol: standard === 'ERC1155' ? '' : 'S',
      totalSupply: null,
      hasUri: true,
      standard,
    });
  }
  return out;
}

export const uriOf = (contract: string, id: bigint) => `${STANDARD[contract] === 'ERC1155' ? 'u1155' : 'u721'}:${contract}:${id}`;
