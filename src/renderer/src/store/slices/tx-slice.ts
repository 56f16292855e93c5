// Transactions: the live record map, the Generate action, and the selected transaction's detail with its history.
import type { TxRecord, TxRecordWithHistory } from '../../../../shared/tx-record.js';
import { errorInfo, type ErrorInfo } from '../api-error.js';
import { recordsToMap, upsertRecord, type TxMap } from '../tx-logic.js';
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
  loadTransactions(): Promise<void>;
  generateTransaction(): Promise<TxRecord | null>;
  selectTransaction(hash: string | null): void;
  loadDetail(hash: string): Promise<void>;
  /** A pushed change from the core (IPC event or server-sent event). */
  applyTxChange(record: TxRecord): void;
}

export const createTxSlice: SliceCreator<TxSlice> = (api) => (set, get) => ({
  txs: {},
  txState: 'idle',
  txError: null,
  generating: false,
  selectedHash: null,
  details: {},
  async loadTransactions() {
    set({ txState: 'loading', txError: null });
    try {
      const records = await api.listTransactions();
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
  async generateTransaction() {
    set({ generating: true });
    try {
      const record = await api.generateTransaction();
      set((s) => ({ txs: upsertRecord(s.txs, record), generating: false }));
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
      set((s) => ({ details: { ...s.details, [hash]: { state: 'ready', record, error: null } }, txs: upsertRecord(s.txs, record) }));
    } catch (e) {
      set((s) => ({ details: { ...s.details, [hash]: { state: 'error', record: s.details[hash]?.record ?? null, error: errorInfo(e) } } }));
    }
  },
  applyTxChange(record) {
    set((s) => {
      const txs = upsertRecord(s.txs, record);
      return txs === s.txs ? s : { txs };
    });
  },
});
