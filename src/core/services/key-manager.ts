// The signing key's lifecycle: loaded from PRIVATE_KEY or the vault, generated or imported once, and only ever
// described by address, balance and storage. A key is checked (it must make a wallet) before it is stored; an existing
// key is replaced only when asked to explicitly; export goes through a passphrase-encrypted keystore. On the embedded
// dev chain a new key is funded and given sample tokens.
import { Wallet } from 'ethers';
import type { Logger } from '../../lib/log.js';
import type { KeyExport, KeyInfo } from '../../shared/desktop-api.js';
import { TxdeskError } from '../../shared/errors.js';
import { normalizePrivateKey, privateKeyProblem } from '../domain/private-key.js';
import { VaultError, type Chain, type DevchainControl, type KeyVault, type Signer, type SignerFactory } from '../ports.js';
import { exportKeystore } from './key-export.js';

/** What a fresh dev-chain key receives: plenty of ETH for fees and a few tokens for the token browser. */
export const DEV_FUNDING_WEI = 100n * 10n ** 18n;
export const DEV_SAMPLE_TOKENS = 3;

export interface KeyManagerDeps {
  vault: KeyVault | null;
  envPrivateKey: string | null;
  signerFor: SignerFactory;
  /** The active network's node: the balance shown is on the chain the app shows. */
  chain: Pick<Chain, 'balance'>;
  /** Embedded: funds a new key and gives it sample tokens (on every dev chain). */
  devchain: Pick<DevchainControl, 'fund' | 'giveTokens'> | null;
  log: Logger;
}

export function createKeyManager(d: KeyManagerDeps) {
  let signer: Signer | null = null;
  let storage: KeyInfo['storage'] | null = null;
  // Kept for export only; it never leaves this closure except encrypted.
  let current: string | null = null;

  const noVault = () =>
    new TxdeskError(
      'CONFLICT',
      'No OS keychain is available to keep a key; set TXDESK_KEY_PASSPHRASE (8+ characters) to keep it in an encrypted file, or set PRIVATE_KEY, then restart.',
    );

  async function provision(address: string): Promise<void> {
    if (!d.devchain) return;
    await d.devchain.fund(address, DEV_FUNDING_WEI);
    await d.devchain.giveTokens(address, DEV_SAMPLE_TOKENS);
  }

  async function adopt(privateKey: string, where: KeyInfo['storage']): Promise<void> {
    signer = d.signerFor(privateKey);
    storage = where;
    current = privateKey;
  }

  async function info(): Promise<KeyInfo | null> {
    if (!signer || !storage) return null;
    const balance = await d.chain.balance(signer.address).catch(() => {
      throw new TxdeskError('UPSTREAM_UNAVAILABLE', 'The Ethereum node did not answer the balance query; check that it runs, then retry.');
    });
    return { address: signer.address, balanceWei: balance.toString(), storage };
  }

  async function replace(privateKey: string, allowReplace: boolean): Promise<KeyInfo> {
    if (d.envPrivateKey)
      throw new TxdeskError('CONFLICT', 'The signing key comes from PRIVATE_KEY; unset it and restart to manage the key in the app.');
    if (!d.vault) throw noVault();
    if (signer && !allowReplace) {
      throw new TxdeskError(
        'CONFLICT',
        `A signing key already exists (${signer.address}); export it first (txdesk key export) if you may need it again, then ask again with replace: true.`,
      );
    }
    const old = signer?.address ?? null;
    try {
      await d.vault.save(privateKey);
    } catch (e) {
      // Vault messages are written to be shown (they never carry the key); anything else gets a generic sentence.
      throw new TxdeskError(
        'CONFLICT',
        e instanceof VaultError ? e.message : 'The key could not be stored; check the keychain or the data directory, then retry.',
      );
    }
    await adopt(privateKey, d.vault.storage);
    await provision(signer!.address);
    d.log.info(`signing key set: ${signer!.address} (${d.vault.storage})${old ? `, replacing ${old}` : ''}`);
    return (await info())!;
  }

  return {
    signer: () => signer,
    info,
    /** Loads the key at start-up; on the embedded dev chain creates one when none exists, and funds it. */
    async load(embedded: boolean): Promise<void> {
      if (d.envPrivateKey) {
        await adopt(d.envPrivateKey, 'environment');
      } else if (d.vault) {
        const k = await d.vault.load();
        // A stored value that makes no wallet (written by an older version, or by hand) must not crash every start.
        if (k && privateKeyProblem(k)) {
          d.log.warn(`the stored signing key is unusable (${privateKeyProblem(k)}); generate or import a new one`);
        } else if (k) await adopt(normalizePrivateKey(k), d.vault.storage);
        else if (embedded) {
          const fresh = Wallet.createRandom().privateKey;
          await d.vault.save(fresh);
          await adopt(fresh, d.vault.storage);
          d.log.info(`generated a signing key for the dev chain: ${signer!.address} (${d.vault.storage})`);
        }
      }
      // The dev chain is new on every start: whatever key we use needs funds and sample tokens there again.
      if (embedded && signer) await provision(signer.address);
    },
    generate: (opts: { replace?: boolean } = {}) => replace(Wallet.createRandom().privateKey, opts.replace === true),
    /** Checks that the key makes a wallet before anything is stored. */
    import(privateKey: string, opts: { replace?: boolean } = {}) {
      const problem = privateKeyProblem(privateKey);
      if (problem) return Promise.reject(new TxdeskError('INVALID_PARAMETER', `privateKey: ${problem}; nothing was stored.`));
      return replace(normalizePrivateKey(privateKey), opts.replace === true);
    },
    /** The current key as a keystore encrypted with `passphrase`. */
    async export(passphrase: string): Promise<KeyExport> {
      if (d.envPrivateKey)
        throw new TxdeskError('CONFLICT', 'The signing key comes from PRIVATE_KEY, so you already hold it; there is nothing to export.');
      if (!current) throw new TxdeskError('NOT_FOUND', 'There is no signing key to export; generate or import one first.');
      return exportKeystore(current, passphrase);
    },
  };
}

export type KeyManager = ReturnType<typeof createKeyManager>;
