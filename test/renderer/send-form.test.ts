// The Send forms' checks before anything is sent (ETH: recipient, amount, data; a token: recipient and amount up to
// the balance), the requests they build, and the core's refusals put back beside their field.
import { Interface, getAddress } from 'ethers';
import { describe, expect, it } from 'vitest';
import {
  checkSendForm,
  dataProblem,
  maxSendableWei,
  recipientProblem,
  refusalToSendErrors,
  sendButtonLabel,
} from '../../src/renderer/src/features/send/send-form.js';
import { checkTokenSendForm, tokenRefusalText } from '../../src/renderer/src/features/send/token-send-form.js';
import type { Token } from '../../src/shared/listing.js';
import { coreRefusal } from '../support/app/core-refusal.js';
import { errorInfo } from '../../src/renderer/src/transport/api-error.js';
import { fieldIssue, FieldsError } from '../../src/shared/errors.js';

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

  it.each([bob, bob.toUpperCase().replace('0X', '0x'), bobChecksummed, ` ${bobChecksummed} `])('%j is fine', (text) =>
    expect(recipientProblem(text)).toBeNull(),
  );
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
  const balance = { balanceWei: (2n * ETH).toString() };

  it('builds the request with the amount in wei, the address as typed and no data for a plain transfer', () => {
    expect(checkSendForm({ to: ` ${bobChecksummed} `, amount: '0.5', data: '' }, balance)).toEqual({
      ok: true,
      request: { to: bobChecksummed, value: (ETH / 2n).toString() },
      valueWei: (ETH / 2n).toString(),
    });
  });

  it('sends data (lower case) with it, and an empty amount with data is a call with 0 ETH', () => {
    expect(checkSendForm({ to: bob, amount: '', data: '0xA9059CBB' }, balance)).toEqual({
      ok: true,
      request: { to: bob, value: '0', data: '0xa9059cbb' },
      valueWei: '0',
    });
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
    expect(checkSendForm({ to: bob, amount: '5', data: '' }, { balanceWei: null }).ok).toBe(true);
  });
});

describe('room for the fee: Max, the check and the button', () => {
  const GWEI = 10n ** 9n;
  const cap = (500n * GWEI).toString();
  /** 21,000 gas at the 500 gwei cap: the most a plain transfer's fee can cost. */
  const fee = 21_000n * 500n * GWEI;
  // What a balance looks like after some gas was spent: every one of its 18 decimals set.
  const balanceWei = 99n * ETH + 999_968_499_999_999_999n;
  const funds = { balanceWei: balanceWei.toString(), feeCapWei: cap };
  const form = (amount: string, data = '') => ({ to: bob, amount, data });

  it('Max is the balance less 21,000 gas at the fee cap, and is accepted as it is', () => {
    expect(maxSendableWei(funds)).toBe((balanceWei - fee).toString());
    const max = checkSendForm(form('99.989468499999999999'), funds);
    expect(max.ok && max.valueWei).toBe((balanceWei - fee).toString());
    expect(maxSendableWei({ balanceWei: (fee - 1n).toString(), feeCapWei: cap })).toBeNull();
    expect(maxSendableWei({ balanceWei: null, feeCapWei: cap })).toBeNull();
    expect(maxSendableWei({ balanceWei: funds.balanceWei, feeCapWei: null })).toBeNull();
  });

  it('the whole balance leaves nothing for the fee: it says so, and what can be sent, never a figure above the balance', () => {
    const all = checkSendForm(form('99.999968499999999999'), funds);
    expect(!all.ok && all.errors.amount).toBe(
      'That leaves too little for the fee: 21,000 gas at up to the fee cap of 500 gwei may cost 0.0105 ETH, so at most ' +
        '99.9894 ETH can be sent (Max fills it in).',
    );
    const more = checkSendForm(form('100'), funds);
    expect(!more.ok && more.errors.amount).toBe('That is more than the 99.9999 ETH this account holds.');
    const dust = checkSendForm(form('0.001'), { balanceWei: (10n ** 15n).toString(), feeCapWei: cap });
    expect(!dust.ok && dust.errors.amount).toBe(
      'The 0.001 ETH this account holds does not cover the fee: 21,000 gas at up to the fee cap of 500 gwei may cost 0.0105 ETH.',
    );
  });

  it("leaves a call's fee to the core, which knows its gas", () => {
    expect(checkSendForm(form('99.999968499999999999', '0xa9059cbb'), funds).ok).toBe(true);
  });

  it('the button names the sum only while it can be sent', () => {
    expect(sendButtonLabel(form('0.125'), funds)).toBe('Send 0.125 ETH');
    expect(sendButtonLabel(form('0.000000000000000001'), funds)).toBe('Send 1 wei');
    expect(sendButtonLabel(form('0.000005'), funds)).toBe('Send 5,000 gwei');
    expect(sendButtonLabel(form('1000000'), funds)).toBe('Send');
    expect(sendButtonLabel(form('99.999968499999999999'), funds)).toBe('Send');
    expect(sendButtonLabel(form('1,5'), funds)).toBe('Send');
    expect(sendButtonLabel(form(''), funds)).toBe('Send');
    expect(sendButtonLabel(form('', '0xa9059cbb'), funds)).toBe('Send');
    // A balance not known yet: the core decides, and the sum is what was typed.
    expect(sendButtonLabel(form('1000000'), { balanceWei: null })).toBe('Send 1,000,000 ETH');
  });
});

describe("the core's refusals", () => {
  const refusalOf = (request: unknown) => coreRefusal('sendTransaction', [request]);

  it('puts the issues of the fields the form has beside them, in the form’s words', () => {
    // The engine's own refusal of a checksum, and the validating face's of a value, as they cross IPC or HTTP.
    const checksum = errorInfo(new FieldsError([fieldIssue('to', 'has a wrong checksum: check the address, or write it in lower case')]));
    expect(refusalToSendErrors(checksum)).toEqual({
      fields: { to: 'The recipient has a wrong checksum: check the address, or write it in lower case.' },
      form: null,
    });
    expect(refusalToSendErrors(refusalOf({ to: me, value: '1.5' }))).toEqual({
      fields: { amount: 'The amount must be an amount of wei: a decimal or 0x-hex string.' },
      form: null,
    });
    expect(refusalToSendErrors(refusalOf({ value: '1' }))).toEqual({
      fields: { to: 'The recipient is missing: give a recipient, or data (init code) to create a contract.' },
      form: null,
    });
  });

  it('keeps a revert reason, a shortfall or a field the form does not have as the form’s sentence', () => {
    expect(refusalToSendErrors({ code: 'WOULD_REVERT', message: 'The call would revert: Error("not the owner").' })).toEqual({
      fields: {},
      form: 'The call would revert: Error("not the owner").',
    });
    expect(
      refusalToSendErrors({ code: 'CONFLICT', message: 'The balance cannot cover 1 ETH plus gas at 50 gwei; 0.02 ETH is missing.' }).form,
    ).toBe('The balance cannot cover 1 ETH plus gas at 50 gwei; 0.02 ETH is missing.');
    expect(refusalToSendErrors(refusalOf({ to: me, gas: '7' }))).toEqual({
      fields: {},
      form: "The field 'gas' must be a gas limit between 21000 and 100000000.",
    });
  });

  it('reads the fields from the issues, not the sentence: a reworded sentence shows the same', () => {
    const said = refusalOf({ to: me, value: '1.5', gas: '7' });
    const reworded = {
      ...said,
      message: 'Quite different words.',
      fields: said.fields!.map((i) => ({ ...i, sentence: `Reworded ${i.path}.` })),
    };
    expect(refusalToSendErrors(reworded).fields).toEqual(refusalToSendErrors(said).fields);
    expect(refusalToSendErrors(reworded).form).toBe('Reworded gas.');
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
    expect(r).toEqual({
      ok: true,
      request: { to: contract.address, value: '0', data: erc1155.encodeFunctionData('safeTransferFrom', [me, bob, 2n, 5n, '0x']) },
      amount: '5',
    });
    for (const amount of ['0', '6', '1.5', '', '-1', 'x']) {
      const bad = checkTokenSendForm({ to: bob, amount }, gem);
      expect(!bad.ok && bad.errors.amount).toBe('Enter a whole number from 1 to 5, the amount this account holds.');
    }
  });

  it("says what usually makes a token transfer revert after the core's sentence; other refusals stay as they are", () => {
    const revert = tokenRefusalText({
      code: 'WOULD_REVERT',
      message: 'The call would revert (the node says "execution reverted", with no reason given).',
    });
    expect(revert).toMatch(
      /^The call would revert .*\. The collection's contract refused this transfer: it may not implement safeTransferFrom, or the recipient is a contract/,
    );
    expect(tokenRefusalText({ code: 'CONFLICT', message: 'The balance cannot cover the gas; 0.01 ETH is missing.' })).toBe(
      'The balance cannot cover the gas; 0.01 ETH is missing.',
    );
  });

  it('refuses the holder itself and a bad recipient, before encoding anything', () => {
    const self = checkTokenSendForm({ to: me.toUpperCase().replace('0X', '0x'), amount: '1' }, tile);
    expect(!self.ok && self.errors.to).toMatch(/account that holds the token/);
    const typo = checkTokenSendForm({ to: bobChecksummed.replace(/[A-F]/, (c) => c.toLowerCase()), amount: '1' }, tile);
    expect(!typo.ok && typo.errors.to).toMatch(/checksum/);
  });
});
