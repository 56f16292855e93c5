// Transactions: the live record map, Generate, cancel and speed-up, and the selected transaction's detail with its history.
import type { TxRecord, TxRecordWithHistory } from '../../../../shared/tx-record.js';
import { errorInfo, type ErrorInfo } from '../../transport/api-error.js';
import { onShownChain, recordsToMap, upsertRecord, type TxMap } from '../tx-logic.js';
import type { LoadState, SliceCreator } from './types.js';

export interface TxDetail {
  state: LoadState;
  record: TxRecordWithHistory | null;
  error: ErrorInfo | null;
}

export interface TxSlice {
  txs: TxMap;
  txState: LoadState;
  txError: ErrorInfo | null;
  generating: boolean;
  selectedHash: string | null;
  details: Readonly<Record<string, TxDetail>>;
  /** Nonces with a cancel or speed-up on its way, by the hash it was asked for. */
  acting: Readonly<Record<string, 'cancel' | 'speed-up'>>;
  loadTransactions(): Promise<void>;
  /** Re-reads the list without a loading state (polling while the event stream is down); failures keep what is shown. */
  refreshTransactions(): Promise<void>;
  sendTransaction(): Promise<TxRecord | null>;
  /** Cancel or speed up the nonce of `hash`; the new record joins the list. Returns it, or null after a notice. */
  actOnTransaction(hash: string, action: 'cancel' | 'speed-up'): Promise<TxRecord | null>;
  selectTransaction(hash: string | null): void;
  loadDetail(hash: string): Promise<void>;
  /** A pushed change from the core (IPC event or server-sent event); another chain's is dropped. */
  applyTxChange(record: TxRecord): void;
  /** Forgets every record and detail: the network shown changed. */
  clearTransactions(): void;
}

export const createTxSlice: SliceCreator<TxSlice> = (api) => (set, get) => {
  /** Only the records of the chain shown now (read when the answer arrives, not when the call left). */
  const shown = (records: readonly TxRecord[]) => records.filter((r) => onShownChain(r, get().info?.chainId ?? null));
  return {
    txs: {},
    txState: 'idle',
    txError: null,
    generating: false,
    selectedHash: null,
    details: {},
    acting: {},
    async refreshTransactions() {
      try {
        const records = shown(await api.listTransactions());
        set((s) => {
          let txs = s.txs;
          for (const r of records) txs = upsertRecord(txs, r);
          return txs === s.txs ? s : { txs, txState: 'ready' as const, txError: null };
        });
      } catch {
        // still down: the next poll tries again
      }
    },
    async actOnTransaction(hash, action) {
      set((s) => ({ acting: { ...s.acting, [hash]: action } }));
      const done = () => set((s) => ({ acting: Object.fromEntries(Object.entries(s.acting).filter(([h]) => h !== hash)) }));
      try {
        const record = await (action === 'cancel' ? api.cancelTransaction(hash) : api.speedUpTransaction(hash));
        done();
        if (shown([record]).length) set((s) => ({ txs: upsertRecord(s.txs, record) }));
        get().notify(
          'success',
          action === 'cancel' ? `Cancel sent for nonce ${record.nonce}.` : `Speed-up sent for nonce ${record.nonce}.`,
        );
        return record;
      } catch (e) {
        done();
        get().notify('error', errorInfo(e).message);
        return null;
      }
    },
    async loadTransactions() {
      set({ txState: 'loading', txError: null });
      try {
        const records = shown(await api.listTransactions());
        // Changes pushed while the list was in flight are newer than it; merge rather than replace.
        set((s) => {
          let txs = recordsToMap(records);
          for (const r of Object.values(s.txs)) txs = upsertRecord(txs, r);
          return { txs, txState: 'ready' };
        });
      } catch (e) {
        set({ txState: 'error', txError: errorInfo(e) });
      }
    },
    async sendTransaction() {
      set({ generating: true });
      try {
        const record = await api.sendTransaction();
        set((s) => ({ txs: shown([record]).length ? upsertRecord(s.txs, record) : s.txs, generating: false }));
        // The first transaction opens its own timeline, so there is something to watch at once.
        if (!get().selectedHash) get().selectTransaction(record.transactionHash);
        return record;
      } catch (e) {
        set({ generating: false });
        get().notify('error', errorInfo(e).message);
        return null;
      }
    },
    selectTransaction(hash) {
      set({ selectedHash: hash });
      if (hash) void get().loadDetail(hash);
    },
    async loadDetail(hash) {
      set((s) => ({ details: { ...s.details, [hash]: { state: 'loading', record: s.details[hash]?.record ?? null, error: null } } }));
      try {
        const record = await api.getTransaction(hash);
        if (!shown([record]).length) return;
        set((s) => ({ details: { ...s.details, [hash]: { state: 'ready', record, error: null } }, txs: upsertRecord(s.txs, record) }));
      } catch (e) {
        set((s) => ({
          details: { ...s.details, [hash]: { state: 'error', record: s.details[hash]?.record ?? null, error: errorInfo(e) } },
        }));
      }
    },
    applyTxChange(record) {
      if (!shown([record]).length) return;
      set((s) => {
        const txs = upsertRecord(s.txs, record);
        return txs === s.txs ? s : { txs };
      });
    },
    clearTransactions() {
      set({ txs: {}, details: {}, selectedHash: null, acting: {} });
    },
  };
};
