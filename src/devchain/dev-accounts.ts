// The dev chain's funded accounts: derived from anvil's well-known test mnemonic, split between apps and the congestion load.
import { HDNodeWallet, Mnemonic } from 'ethers';
import { DEV_MNEMONIC } from './anvil-process.js';

export interface DevAccount {
  address: string;
  privateKey: string;
}

/** Accounts handed to apps and tests: index 0 deploys, 1..4 hold sample tokens, 5..9 are spare. */
export const APP_ACCOUNT_COUNT = 10;
/** Accounts 10..19 send the congestion load, so no app ever competes with it for a nonce. */
export const LOAD_ACCOUNT_COUNT = 10;
export const TOTAL_ACCOUNT_COUNT = APP_ACCOUNT_COUNT + LOAD_ACCOUNT_COUNT;

export function deriveDevAccounts(count = TOTAL_ACCOUNT_COUNT): DevAccount[] {
  const root = HDNodeWallet.fromMnemonic(Mnemonic.fromPhrase(DEV_MNEMONIC), "m/44'/60'/0'/0");
  return Array.from({ length: count }, (_, i) => {
    const w = root.deriveChild(i);
    return { address: w.address, privateKey: w.privateKey };
  });
}
