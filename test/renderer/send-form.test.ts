// The Send forms' checks before anything is sent (ETH: recipient, amount, data; a token: recipient and amount up to
// the balance), the requests they build, and the core's refusals put back beside their field.
import { Interface, getAddress } from 'ethers';
import { describe, expect, it } from 'vitest';
import { checkSendForm, dataProblem, recipientProblem, refusalToSendErrors } from '../../src/renderer/src/features/send/send-form.js';
import { checkTokenSendForm, tokenRefusalText } from '../../src/renderer/src/features/send/token-send-form.js';
import type { Token } from '../../src/shared/listing.js';

const bob = '0x' + 'b0'.repeat(20);
const bobChecksummed = getAddress('0x8ba1f109551bd432803012645ac136ddd64dba72');
const me = '0x' + 'a1'.repeat(20);
const ETH = 10n ** 18n;

describe('recipient', () => {
  it.each([
    ['', /Enter the recipient/],
    ['b0'.repeat(20), /starts with 0x/],
    ['0x' + 'b0'.repeat(19), /has 38 hex digits after 0x; an address has 40/],
    ['0x' + 'zz'.repeat(20), /only hex digits/],
    ['0x' + '0'.repeat(40), /zero address/],
    [bobChecksummed.replace(/[A-F]/, (c) => c.toLowerCase()), /checksum/],
  ])('%j: %s', (text, why) => expect(recipientProblem(text)).toMatch(why));

  it.each([bob, bob.toUpperCase().replace('0X', '0x'), bobChecksummed, ` ${bobChecksummed} `])('%j is fine', (text) => expect(recipientProblem(text)).toBeNull());
});

describe('data', () => {
  it.each([
    ['', null],
    ['0x', null],
    ['0xa9059cbb', null],
    ['a9059cbb', /start it with 0x/],
    ['0xa9059cb', /even number of hex digits after 0x; this has 7/],
    ['0xzz', /only hold hex digits/],
    ['0x' + '00'.repeat(256 * 1024 + 1), /256 KiB/],
  ])('%j', (text, why) => (why === null ? expect(dataProblem(text)).toBeNull() : expect(dataProblem(text)).toMatch(why)));
});

describe('the ETH Send form', () => {
  const balance = (2n * ETH).toString();

  it('builds the request with the amount in wei, the address as typed and no data for a plain transfer', () => {
    expect(checkSendForm({ to: ` ${bobChecksummed} `, amount: '0.5', data: '' }, balance)).toEqual({
      ok: true,
      request: { to: bobChecksummed, value: (ETH / 2n).toString() },
      valueWei: (ETH / 2n).toString(),
    });
  });

  it('sends data (lower case) with it, and an empty amount with data is a call with 0 ETH', () => {
    expect(checkSendForm({ to: bob, amount: '', data: '0xA9059CBB' }, balance)).toEqual({ ok: true, request: { to: bob, value: '0', data: '0xa9059cbb' }, valueWei: '0' });
  });

  it('marks every field that needs fixing at once, each with its sentence', () => {
    const r = checkSendForm({ to: '0x12', amount: '1.5.', data: '0x1' }, balance);
    expect(r.ok).toBe(false);
    if (!r.ok) {
      expect(Object.keys(r.errors).sort()).toEqual(['amount', 'data', 'to']);
      expect(r.errors.to).toMatch(/has 2 hex digits/);
      expect(r.errors.amount).toMatch(/decimal number of ETH/);
      expect(r.errors.data).toMatch(/even number/);
    }
  });

  it('refuses 0 ETH without data, and more than the balance, saying the balance', () => {
    const zero = checkSendForm({ to: bob, amount: '0', data: '' }, balance);
    expect(!zero.ok && zero.errors.amount).toMatch(/above 0, or data/);
    const much = checkSendForm({ to: bob, amount: '2.000000000000000001', data: '' }, balance);
    expect(!much.ok && much.errors.amount).toBe('That is more than the 2 ETH this account holds.');
    // Without a known balance the core decides (it counts the gas too).
    expect(checkSendForm({ to: bob, amount: '5', data: '' }, null).ok).toBe(true);
  });
});

describe("the core's refusals", () => {
  it('puts INVALID_PARAMETER sentences beside the field they name, in the form’s words', () => {
    const r = refusalToSendErrors({
      code: 'INVALID_PARAMETER',
      message: "The field 'to' has a wrong checksum: check the address, or write it in lower case. The field 'value' must be an amount of wei: a decimal or 0x-hex string.",
    });
    expect(r).toEqual({
      fields: { to: 'The recipient has a wrong checksum: check the address, or write it in lower case.', amount: 'The amount must be an amount of wei: a decimal or 0x-hex string.' },
      form: null,
    });
  });

  it('keeps a revert reason, a shortfall or a field the form does not have as the form’s sentence', () => {
    expect(refusalToSendErrors({ code: 'WOULD_REVERT', message: 'The call would revert: Error("not the owner").' })).toEqual({ fields: {}, form: 'The call would revert: Error("not the owner").' });
    expect(refusalToSendErrors({ code: 'CONFLICT', message: 'The balance cannot cover 1 ETH plus gas at 50.0000 gwei; 0.02 ETH is missing.' }).form).toBe(
      'The balance cannot cover 1 ETH plus gas at 50 gwei; 0.02 ETH is missing.',
    );
    expect(refusalToSendErrors({ code: 'INVALID_PARAMETER', message: "The field 'gas' must be a gas limit between 21000 and 100000000." })).toEqual({
      fields: {},
      form: "The field 'gas' must be a gas limit between 21000 and 100000000.",
    });
  });
});

describe("a token's Send form", () => {
  const contract = { address: '0x' + 'c0'.repeat(20), name: 'Tiles', symbol: 'TILE', totalSupply: 3 };
  const tile: Token = { id: '7', owner: me, uri: 'u', balance: '1', contract: { ...contract, standard: 'ERC721' } };
  const gem: Token = { id: '2', owner: me, uri: 'u', balance: '5', contract: { ...contract, name: 'Gems', standard: 'ERC1155' } };
  const erc721 = new Interface(['function safeTransferFrom(address from, address to, uint256 tokenId)']);
  const erc1155 = new Interface(['function safeTransferFrom(address from, address to, uint256 id, uint256 amount, bytes data)']);

  it('ERC-721: a call of the contract with safeTransferFrom(owner, recipient, id) and no ETH', () => {
    expect(checkTokenSendForm({ to: bobChecksummed, amount: '' }, tile)).toEqual({
      ok: true,
      request: { to: contract.address, value: '0', data: erc721.encodeFunctionData('safeTransferFrom', [me, bobChecksummed, 7n]) },
      amount: '1',
    });
  });

  it('ERC-1155: the amount from 1 up to the balance goes into safeTransferFrom(owner, recipient, id, amount, "0x")', () => {
    const r = checkTokenSendForm({ to: bob, amount: '5' }, gem);
    expect(r).toEqual({ ok: true, request: { to: contract.address, value: '0', data: erc1155.encodeFunctionData('safeTransferFrom', [me, bob, 2n, 5n, '0x']) }, amount: '5' });
    for (const amount of ['0', '6', '1.5', '', '-1', 'x']) {
      const bad = checkTokenSendForm({ to: bob, amount }, gem);
      expect(!bad.ok && bad.errors.amount).toBe('Enter a whole number from 1 to 5, the amount this account holds.');
    }
  });

  it("says what usually makes a token transfer revert after the core's sentence; other refusals stay as they are", () => {
    const revert = tokenRefusalText({ code: 'WOULD_REVERT', message: 'The call would revert (the node says "execution reverted", with no reason given).' });
    expect(revert).toMatch(/^The call would revert .*\. The collection's contract refused this transfer: it may not implement safeTransferFrom, or the recipient is a contract/);
    expect(tokenRefusalText({ code: 'CONFLICT', message: 'The balance cannot cover the gas; 0.01 ETH is missing.' })).toBe('The balance cannot cover the gas; 0.01 ETH is missing.');
  });

  it('refuses the holder itself and a bad recipient, before encoding anything', () => {
    const self = checkTokenSendForm({ to: me.toUpperCase().replace('0X', '0x'), amount: '1' }, tile);
    expect(!self.ok && self.errors.to).toMatch(/account that holds the token/);
    const typo = checkTokenSendForm({ to: bobChecksummed.replace(/[A-F]/, (c) => c.toLowerCase()), amount: '1' }, tile);
    expect(!typo.ok && typo.errors.to).toMatch(/checksum/);
  });
});
