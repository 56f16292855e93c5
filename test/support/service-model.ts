// A model of the token listing computed straight from the chain: replays every ERC-721 Transfer log with ethers and
// orders the result the way SPEC 2 says, to compare the service's pages against.
import { id as keccakId, JsonRpcProvider } from 'ethers';
import type { OrderBy, OrderDirection } from '../../src/shared/listing.js';

export const TRANSFER_TOPIC = keccakId('Transfer(address,address,uint256)');
const ZERO = '0x0000000000000000000000000000000000000000';

export interface ModelToken {
  contract: string;
  id: bigint;
  owner: string;
  block: number;
  logIndex: number;
}

/** Current owner of every token minted up to `toBlock` (burned tokens left out). */
export async function replayTransfers(nodeUrl: string, toBlock: number): Promise<ModelToken[]> {
  const provider = new JsonRpcProvider(nodeUrl, undefined, { staticNetwork: true });
  try {
    const logs = await provider.getLogs({ fromBlock: 0, toBlock, topics: [TRANSFER_TOPIC] });
    const tokens = new Map<string, ModelToken>();
    for (const log of logs) {
      // ERC-721 indexes the token id (4 topics); ERC-20 transfers carry the amount in data and are not tokens.
      if (log.topics.length !== 4 || log.removed) continue;
      const contract = log.address.toLowerCase();
      const to = '0x' + log.topics[2]!.slice(26).toLowerCase();
      const id = BigInt(log.topics[3]!);
      const key = `${contract}:${id}`;
      if (to === ZERO) tokens.delete(key);
      else tokens.set(key, { contract, id, owner: to, block: log.blockNumber, logIndex: log.index });
    }
    return [...tokens.values()];
  } finally {
    provider.destroy();
  }
}

function compare(a: ModelToken, b: ModelToken, orderBy: OrderBy): number {
  const cmp = (x: bigint | number | string, y: bigint | number | string) => (x < y ? -1 : x > y ? 1 : 0);
  switch (orderBy) {
    case 'transfer_block_number':
      return cmp(a.block, b.block) || cmp(a.logIndex, b.logIndex);
    case 'token_id':
      return cmp(a.id, b.id) || cmp(a.contract, b.contract);
    case 'contract_address':
      return cmp(a.contract, b.contract) || cmp(a.id, b.id);
  }
}

export function modelList(
  tokens: ModelToken[],
  filter: { owner?: string; contracts?: string[] },
  orderBy: OrderBy,
  direction: OrderDirection,
): ModelToken[] {
  const contracts = filter.contracts?.map((c) => c.toLowerCase());
  const owner = filter.owner?.toLowerCase();
  const kept = tokens.filter((t) => (owner === undefined || t.owner === owner) && (contracts === undefined || contracts.includes(t.contract)));
  kept.sort((a, b) => compare(a, b, orderBy));
  if (direction === 'desc') kept.reverse();
  return kept;
}
