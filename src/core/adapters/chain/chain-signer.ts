// The Signer port on an ethers Wallet: the key stays in this object, only the address, signed bytes and signatures leave it.
import { keccak256, Transaction, Wallet } from 'ethers';
import type { Signer, TypedData, UnsignedTx } from '../../ports.js';

export function createWalletSigner(privateKey: string): Signer {
  const wallet = new Wallet(privateKey);
  return {
    address: wallet.address.toLowerCase(),
    async sign(tx: UnsignedTx) {
      // The transaction is built, signed and serialized once: Wallet.signTransaction would serialize it to bytes that
      // had to be parsed back for the hash, on the engine's serial queue.
      const common = { chainId: tx.chainId, nonce: tx.nonce, to: tx.to, value: tx.valueWei, data: tx.input, gasLimit: tx.gasLimit };
      const unsigned = Transaction.from(
        tx.fees.txType === 'legacy'
          ? { ...common, type: 0, gasPrice: tx.fees.gasPrice }
          : { ...common, type: 2, maxFeePerGas: tx.fees.maxFeePerGas, maxPriorityFeePerGas: tx.fees.maxPriorityFeePerGas },
      );
      unsigned.signature = wallet.signingKey.sign(unsigned.unsignedHash);
      const raw = unsigned.serialized;
      return { hash: keccak256(raw), raw };
    },
    signMessage: (message) => wallet.signMessage(message),
    signTypedData({ domain, types, message, primaryType }: TypedData) {
      // ethers derives EIP712Domain from the domain itself and refuses it among the types; the primary type must be the root.
      const { EIP712Domain: _domain, ...rest } = types;
      void _domain;
      const reachable = ethersTypesFrom(rest, primaryType);
      return wallet.signTypedData(domain, reachable, message);
    },
  };
}

/** The types reachable from `primaryType`: ethers takes the root from the types it is given, so unrelated ones must go. */
function ethersTypesFrom(types: TypedData['types'], primaryType: string): TypedData['types'] {
  const out: TypedData['types'] = {};
  const visit = (name: string) => {
    if (out[name] || !types[name]) return;
    out[name] = types[name];
    for (const f of types[name]) visit(f.type.replace(/(\[\d*\])+$/, ''));
  };
  visit(primaryType);
  return out;
}
