// What the dashboard says a transaction does, from `to`, `value` and `input`: ETH to someone, a call by selector (token
// transfers decoded), a contract creation, 0 ETH to yourself; and which attempt of a nonce says it.
import { describe, expect, it } from 'vitest';
import { encodeErc721SafeTransferFrom } from '../../src/renderer/src/lib/token-transfer-abi.js';
import { payloadRecord, txAction } from '../../src/renderer/src/features/transactions/tx-payload.js';

const me = '0x' + 'a1'.repeat(20);
const bob = '0x' + 'b0'.repeat(20);
const tiles = '0x' + 'd0'.repeat(20);

describe('txAction', () => {
  it.each([
    [
      { to: bob.toUpperCase().replace('0X', '0x'), value: '5', input: '0x' },
      { kind: 'transfer', to: bob, valueWei: '5' },
    ],
    [
      { to: me, value: '0', input: '0x' },
      { kind: 'self', valueWei: '0' },
    ],
    [
      { to: null, value: '0', input: '0x6080' },
      { kind: 'create', valueWei: '0' },
    ],
    [
      { to: bob, value: '7', input: '0xA9059CBB' + '00'.repeat(64) },
      { kind: 'call', to: bob, valueWei: '7', selector: '0xa9059cbb', name: 'transfer (ERC-20)', token: null },
    ],
    [
      { to: bob, value: '0', input: '0xdeadbeef' },
      { kind: 'call', to: bob, valueWei: '0', selector: '0xdeadbeef', name: null, token: null },
    ],
    [{ to: undefined, value: undefined, input: undefined }, { kind: 'unknown' }],
  ])('%j', (fields, action) => expect(txAction({ from: me, ...(fields as object) } as never)).toEqual(action));

  it('reads back the token transfer the token browser sends', () => {
    const input = encodeErc721SafeTransferFrom(me, bob, '3');
    expect(txAction({ from: me, to: tiles, value: '0', input })).toEqual({
      kind: 'call',
      to: tiles,
      valueWei: '0',
      selector: '0x42842e0e',
      name: 'safeTransferFrom (ERC-721)',
      token: { standard: 'ERC721', from: me, to: bob, tokenId: '3', amount: '1' },
    });
  });
});

describe('payloadRecord', () => {
  it("is the nonce's first attempt that is not a cancel", () => {
    const attempts = [
      { kind: 'cancel' as const, attempt: 2 },
      { kind: 'replace' as const, attempt: 1 },
      { kind: 'generate' as const, attempt: 0 },
    ];
    expect(payloadRecord(attempts)).toBe(attempts[2]);
    expect(payloadRecord([attempts[0]!])).toBe(attempts[0]);
    expect(payloadRecord([])).toBeNull();
  });
});
