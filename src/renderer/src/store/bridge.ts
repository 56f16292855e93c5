// The one place pushed events enter the store: transaction changes, dev-chain status, link states and requests waiting
// for approval, from IPC or server-sent events; while the browser's event stream is down the list is polled instead.
// Also performs the first load of everything the screens show.
import type { DesktopApi } from '../../../shared/desktop-api.js';
import type { TxRecord } from '../../../shared/tx-record.js';
import { chainOf, onShownChain } from './tx-logic.js';
import type { AppStore } from './index.js';
import type { StreamWatch } from '../transport/http-api.js';
import { watchTokenSends } from './token-sends-watch.js';

/** Mined transactions spend gas: the balance beside the account is refreshed once per burst of receipts. */
const BALANCE_REFRESH_MS = 1_500;
/** While the event stream is down, how often the transaction list is read instead. */
export const POLL_MS = 3_000;
/** How soon after a `pending` the history of a nonce is read, for a core that does not set `problem` itself. */
const HISTORY_AFTER_MS = 800;

export function connectBridge(
  store: AppStore,
  api: DesktopApi,
  stream: StreamWatch | null = null,
  opts: { pollMs?: number } = {},
): () => void {
  let balanceTimer: ReturnType<typeof setTimeout> | null = null;
  const historyTimers = new Map<string, ReturnType<typeof setTimeout>>();

  const onRecord = (record: TxRecord) => {
    // Every open network's changes are pushed; the dashboard shows one chain.
    if (!onShownChain(record, store.getState().info?.chainId ?? null)) return;
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
  };
  // A stuck attempt the core says nothing more about (no `problem` field): its history tells whether a replacement
  // was skipped, so it is read once per change of the record, whether the record came pushed, polled or listed.
  const historyRead = new Map<string, string>();
  const offHistory = store.subscribe((s, prev) => {
    if (s.txs === prev.txs) return;
    for (const r of Object.values(s.txs)) {
      if (r.problem !== undefined || r.status !== 'pending' || r.replacedBy !== null) continue;
      if (historyRead.get(r.transactionHash) === r.updatedAt || historyTimers.has(r.transactionHash)) continue;
      historyRead.set(r.transactionHash, r.updatedAt);
      historyTimers.set(
        r.transactionHash,
        setTimeout(() => {
          historyTimers.delete(r.transactionHash);
          if (store.getState().selectedHash !== r.transactionHash) void store.getState().loadDetail(r.transactionHash);
        }, HISTORY_AFTER_MS),
      );
    }
  });
  const offTx = api.onTransactionChanged(onRecord);
  const offDevchain = api.onDevchainStatus((status) => store.getState().applyDevchainStatus(status));
  const offStatus = api.onAppStatus((status) => store.getState().applyAppStatus(status));
  const offSettings = api.onSettingsChanged((settings) => store.getState().applySettings(settings));
  const offApprovals = api.onApprovalsChanged((waiting) => store.getState().applyApprovals(waiting));
  const offNetwork = api.onNetworkChanged((info) => store.getState().applyNetwork(info));
  const offSends = watchTokenSends(store, api);

  let poll: ReturnType<typeof setInterval> | null = null;
  const stopPolling = () => {
    if (poll) clearInterval(poll);
    poll = null;
  };
  let offStream = () => {};
  if (stream) {
    let wasDown = false;
    const onState = (state: ReturnType<StreamWatch['streamState']>) => {
      store.getState().setStream(state);
      if (state === 'down' && !poll) {
        poll = setInterval(() => void store.getState().refreshTransactions(), opts.pollMs ?? POLL_MS);
      } else if (state === 'up' && wasDown) {
        // The bridge re-sends what changed while the stream was away; polling has nothing left to do. A stream that
        // was down may mean a restarted core: what it says about itself, the key and the settings is read again.
        stopPolling();
        const s = store.getState();
        void s.loadInfo();
        void s.refreshKey();
        void s.loadSettings();
      }
      // Waiting requests are pushed only when they change: one that came before the stream opened, or while it was
      // away, is read here.
      if (state === 'up') void store.getState().loadApprovals();
      wasDown = state === 'down' ? true : state === 'up' ? false : wasDown;
    };
    onState(stream.streamState());
    const off = stream.onStreamState(onState);
    offStream = () => {
      off();
      stopPolling();
    };
  } else {
    store.getState().setStream('ipc');
  }

  return () => {
    if (balanceTimer) clearTimeout(balanceTimer);
    historyTimers.forEach(clearTimeout);
    offTx();
    offHistory();
    offDevchain();
    offStatus();
    offSettings();
    offApprovals();
    offNetwork();
    offSends();
    offStream();
  };
}

/** Loads what the first screen needs; the token list waits for the app's address. */
export async function loadInitial(store: AppStore): Promise<void> {
  const s = store.getState();
  await Promise.all([s.loadInfo(), s.loadTransactions(), s.loadSettings(), s.loadKey(), s.loadDevchain(), s.loadApprovals()]);
  await store.getState().loadTokens();
}
