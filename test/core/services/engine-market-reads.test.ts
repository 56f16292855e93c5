// The market policy's reads against a node that refuses eth_feeHistory, or does not answer: a refusal gives no
// history (the quote falls back to the node's suggested tip, nothing is judged stuck), no answer still fails.
import { describe, expect, it } from 'vitest';
import { marketQuote, marketStuck } from '../../../src/core/domain/market-fees.js';
import { readFeeHistory } from '../../../src/core/services/tx-engine-market.js';
import { RpcError } from '../../../src/lib/json-rpc.js';

const refusing = (e: Error) => ({ chain: { request: async () => Promise.reject(e) } }) as never;
const net = { baseFeeWei: 7n, gasPriceWei: 9n, priorityFeeWei: 3n };

describe('readFeeHistory', () => {
  it('a node that refuses the method gives no history: the suggested tip prices, nothing is stuck', async () => {
    const h = await readFeeHistory(refusing(new RpcError(-32601, 'the method eth_feeHistory does not exist', 'eth_feeHistory')), 10);
    expect(marketQuote(h, net, 'normal')).toEqual({ speed: 'normal', baseFeeWei: 7n, tipWei: 3n });
    expect(marketStuck({ txType: 'legacy', gasPrice: 1n }, h).stuck).toBe(false);
  });

  it('a node that does not answer fails the read, as every other read does', async () => {
    const down = new RpcError('unreachable', 'no answer from the node');
    await expect(readFeeHistory(refusing(down), 10)).rejects.toBe(down);
  });
});
