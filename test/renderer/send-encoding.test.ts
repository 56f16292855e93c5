// The renderer's hand-written pieces of Ethereum against ethers: ETH amounts to wei (exact, no floats),
// EIP-55 checksums, and the calldata of the two token transfers the token browser sends.
import { Interface, getAddress, hexlify, parseEther, Wallet } from 'ethers';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { formatWeiAsEther, parseEtherToWei } from '../../src/renderer/src/lib/eth-amount.js';
import { hasValidChecksum, toChecksumAddress } from '../../src/renderer/src/lib/address-checksum.js';
import { encodeErc1155SafeTransferFrom, encodeErc721SafeTransferFrom } from '../../src/renderer/src/lib/token-transfer-abi.js';
import { decodeTokenTransfer } from '../../src/renderer/src/features/transactions/tx-payload.js';

describe('ETH amount to wei', () => {
  it.each([
    ['1', '1000000000000000000'],
    ['0.5', '500000000000000000'],
    ['.25', '250000000000000000'],
    ['3.', '3000000000000000000'],
    [' 0.1 ', '100000000000000000'],
    ['0', '0'],
    ['0.000000000000000001', '1'],
    ['123456789.123456789123456789', '123456789123456789123456789'],
    ['0.30000000000000004', '300000000000000040'],
  ])('%j ETH is %s wei', (text, wei) => expect(parseEtherToWei(text)).toEqual({ ok: true, wei }));

  it.each([
    ['', /Enter an amount/],
    ['-1', /negative/],
    ['1,5', /point/],
    ['1e18', /decimal number/],
    ['0x10', /decimal number/],
    ['1.2.3', /decimal number/],
    ['.', /decimal number/],
    ['0.0000000000000000001', /at most 18 decimals/],
    ['9'.repeat(80), /larger than any transaction/],
  ])('refuses %j with a sentence', (text, why) => {
    const r = parseEtherToWei(text);
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.error).toMatch(why);
  });

  it('agrees with ethers parseEther and reads back exactly (any amount with up to 18 decimals)', () => {
    fc.assert(
      fc.property(fc.bigInt({ min: 0n, max: 10n ** 30n }), (wei) => {
        const text = formatWeiAsEther(wei).replace(/,/g, '');
        expect(parseEtherToWei(text)).toEqual({ ok: true, wei: wei.toString() });
        expect(parseEther(text)).toBe(wei);
      }),
    );
  });
});

describe('EIP-55', () => {
  it('spells addresses as getAddress does, and tells typos from one-case addresses', () => {
    for (let i = 0; i < 30; i++) {
      const lower = Wallet.createRandom().address.toLowerCase();
      const sum = toChecksumAddress(lower);
      expect(sum).toBe(getAddress(lower));
      expect(hasValidChecksum(sum)).toBe(true);
      expect(hasValidChecksum(lower)).toBe(true);
      expect(hasValidChecksum('0x' + lower.slice(2).toUpperCase())).toBe(true);
      // Flip the case of one letter: no longer the checksum.
      const at = sum.slice(2).search(/[a-fA-F]/) + 2;
      if (at < 2) continue;
      const c = sum[at]!;
      const typo = sum.slice(0, at) + (c === c.toLowerCase() ? c.toUpperCase() : c.toLowerCase()) + sum.slice(at + 1);
      // A flip that leaves every letter in one case makes a one-case address, which is valid by design (about one
      // random address in ten thousand: the run then failed at random).
      const hex = typo.slice(2);
      if (hex === hex.toLowerCase() || hex === hex.toUpperCase()) continue;
      expect(hasValidChecksum(typo)).toBe(false);
    }
  });
});

describe('token transfer calldata', () => {
  const erc721 = new Interface(['function safeTransferFrom(address from, address to, uint256 tokenId)']);
  const erc1155 = new Interface(['function safeTransferFrom(address from, address to, uint256 id, uint256 amount, bytes data)']);
  const address = fc.uint8Array({ minLength: 20, maxLength: 20 }).map((b) => hexlify(b));
  const uint = fc.bigInt({ min: 0n, max: (1n << 256n) - 1n });

  it('ERC-721 safeTransferFrom(from, to, tokenId) is what ethers encodes, and reads back', () => {
    fc.assert(
      fc.property(address, address, uint, (from, to, id) => {
        const data = encodeErc721SafeTransferFrom(from, to, id.toString());
        expect(data).toBe(erc721.encodeFunctionData('safeTransferFrom', [from, to, id]));
        expect(data.slice(0, 10)).toBe('0x42842e0e');
        expect(decodeTokenTransfer(data)).toEqual({ standard: 'ERC721', from, to, tokenId: id.toString(), amount: '1' });
      }),
    );
  });

  it('ERC-1155 safeTransferFrom(from, to, id, amount, data) is what ethers encodes, with empty and non-empty data', () => {
    fc.assert(
      fc.property(address, address, uint, uint, fc.uint8Array({ maxLength: 70 }), (from, to, id, amount, extra) => {
        const bytes = hexlify(extra);
        const data = encodeErc1155SafeTransferFrom(from, to, id, amount, bytes);
        expect(data).toBe(erc1155.encodeFunctionData('safeTransferFrom', [from, to, id, amount, bytes]));
        expect(data.slice(0, 10)).toBe('0xf242432a');
        expect(decodeTokenTransfer(data)).toEqual({ standard: 'ERC1155', from, to, tokenId: id.toString(), amount: amount.toString() });
      }),
    );
    const from = '0x' + 'a'.repeat(40);
    expect(encodeErc1155SafeTransferFrom(from, from, '7', '2')).toBe(
      erc1155.encodeFunctionData('safeTransferFrom', [from, from, 7n, 2n, '0x']),
    );
  });

  it('refuses what it cannot encode instead of writing wrong calldata', () => {
    const a = '0x' + '1'.repeat(40);
    expect(() => encodeErc721SafeTransferFrom('0x123', a, '1')).toThrow(/address/);
    expect(() => encodeErc721SafeTransferFrom(a, a, '-1')).toThrow(/uint256/);
    expect(() => encodeErc721SafeTransferFrom(a, a, (1n << 256n).toString())).toThrow(/uint256/);
    expect(() => encodeErc1155SafeTransferFrom(a, a, '1', '1', '0x1')).toThrow(/bytes/);
  });
});
