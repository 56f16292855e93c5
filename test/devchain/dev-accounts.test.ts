// The dev accounts written out in dev-accounts.ts are the ones anvil's mnemonic derives (it funds those, not the list).
import { describe, expect, it } from 'vitest';
import { TOTAL_ACCOUNT_COUNT, deriveDevAccounts, devAccounts } from '../../src/devchain/dev-accounts.js';

describe('dev accounts', () => {
  it('lists exactly what the mnemonic derives', () => {
    expect(devAccounts()).toEqual(deriveDevAccounts(TOTAL_ACCOUNT_COUNT));
    expect(devAccounts(3)).toEqual(deriveDevAccounts(3));
  });

  it('derives beyond the written-out list', () => {
    const more = devAccounts(TOTAL_ACCOUNT_COUNT + 1);
    expect(more.slice(0, TOTAL_ACCOUNT_COUNT)).toEqual(devAccounts());
    expect(more[TOTAL_ACCOUNT_COUNT]).toEqual(deriveDevAccounts(TOTAL_ACCOUNT_COUNT + 1)[TOTAL_ACCOUNT_COUNT]);
  });
});
