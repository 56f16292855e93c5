// The one place pushed events enter the store: transaction changes and dev-chain status, from IPC or server-sent events.
// Also performs the first load of everything the screens show.
import type { DesktopApi } from '../../../shared/desktop-api.js';
import { chainOf } from './tx-logic.js';
import type { AppStore } from './index.js';

/** Mined transactions spend gas: the balance beside the account is refreshed once per burst of receipts. */
const BALANCE_REFRESH_MS = 1_500;

export function connectBridge(store: AppStore, api: DesktopApi): () => void {
  let balanceTimer: ReturnType<typeof setTimeout> | null = null;
  const offTx = api.onTransactionChanged((record) => {
    store.getState().applyTxChange(record);
    if (record.status === 'receipt' && !balanceTimer) {
      balanceTimer = setTimeout(() => {
        balanceTimer = null;
        void store.getState().refreshKey();
      }, BALANCE_REFRESH_MS);
    }
    // The open timeline follows its chain: a replacement or receipt for a sibling changes what it shows.
    const { selectedHash, txs } = store.getState();
    if (selectedHash && chainOf(txs, selectedHash).some((r) => r.transactionHash === record.transactionHash)) {
      void store.getState().loadDetail(selectedHash);
    }
  });
  const offDevchain = api.onDevchainStatus((status) => store.getState().applyDevchainStatus(status));
  return () => {
    if (balanceTimer) clearTimeout(balanceTimer);
    offTx();
    offDevchain();
  };
}

/** Loads what the first screen needs; the token list waits for the app's address. */
export async function loadInitial(store: AppStore): Promise<void> {
  const s = store.getState();
  await Promise.all([s.loadInfo(), s.loadTransactions(), s.loadSettings(), s.loadKey(), s.loadDevchain()]);
  await store.getState().loadTokens();
}
