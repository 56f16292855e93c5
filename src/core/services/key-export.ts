// A key as a Web3 Secret Storage v3 keystore (the format geth, MetaMask and ethers read), encrypted with a passphrase
// the user chooses: the one way a key leaves the app, used by exportKey and `txdesk key export`.
import { Wallet } from 'ethers';
import type { KeyExport } from '../../shared/desktop-api.js';

/** The geth file name: `UTC--<ISO time with dashes>--<address without 0x>.json`. */
export function keystoreFileName(address: string, now = new Date()): string {
  return `UTC--${now.toISOString().replace(/:/g, '-')}--${address.toLowerCase().replace(/^0x/, '')}.json`;
}

export async function exportKeystore(privateKey: string, passphrase: string, now = new Date()): Promise<KeyExport> {
  const wallet = new Wallet(privateKey);
  // ethers' keystore defaults: scrypt N=2^17, r=8, p=1 and AES-128-CTR, readable by geth and MetaMask.
  const keystore = await wallet.encrypt(passphrase);
  return { address: wallet.address.toLowerCase(), fileName: keystoreFileName(wallet.address, now), keystore };
}
