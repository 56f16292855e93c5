// The Signer port on an ethers Wallet: the key stays in this object, only the address and signed bytes leave it.
import { Transaction, Wallet } from 'ethers';
import type { Signer, UnsignedTransfer } from '../../ports.js';

export function createWalletSigner(privateKey: string): Signer {
  const wallet = new Wallet(privateKey);
  return {
    address: wallet.address.toLowerCase(),
    async sign(tx: UnsignedTransfer) {
      const common = { chainId: tx.chainId, nonce: tx.nonce, to: tx.to, value: tx.valueWei, gasLimit: tx.gasLimit };
      const raw = await wallet.signTransaction(
        tx.fees.txType === 'legacy'
          ? { ...common, type: 0, gasPrice: tx.fees.gasPrice }
          : { ...common, type: 2, maxFeePerGas: tx.fees.maxFeePerGas, maxPriorityFeePerGas: tx.fees.maxPriorityFeePerGas },
      );
      return { hash: Transaction.from(raw).hash!.toLowerCase(), raw };
    },
  };
}

/** The address of a key, without keeping the key. */
export function addressOf(privateKey: string): string {
  return new Wallet(privateKey).address.toLowerCase();
}
