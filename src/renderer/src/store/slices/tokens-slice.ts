// The token browser: the controls, the current page from the listing, collections seen so far, and token metadata.
import type { TokenMetadata } from '../../../../shared/desktop-api.js';
import type { Token, TokenPage } from '../../../../shared/listing.js';
import { errorInfo, type ErrorInfo } from '../../transport/api-error.js';
import { defaultControls, mergeContracts, missingUris, toTokenQuery, type KnownContract, type TokenControls } from '../token-logic.js';
import type { LoadState, SliceCreator } from './types.js';

/** `null` while a URI's metadata is being fetched. */
export type MetadataMap = Readonly<Record<string, TokenMetadata | null>>;

/** A refresh asked of the data service, per `contract:id`: running, or what went wrong (one sentence). */
export type RefreshState = { state: 'pending' } | { state: 'error'; message: string };

/** How long the service usually needs to read a tokenURI again before the listing shows it. */
const REFRESH_SETTLE_MS = 1500;

export interface TokensSlice {
  tokenControls: TokenControls;
  tokenPage: TokenPage | null;
  /** The controls that produced `tokenPage`; while a new page loads, the controls may already say something else. */
  tokenPageControls: TokenControls;
  tokensState: LoadState;
  tokensError: ErrorInfo | null;
  /** Collections seen per account (lowercase address), for that account's filter chips only. */
  knownContracts: Readonly<Record<string, KnownContract[]>>;
  metadata: MetadataMap;
  /** Collections the user removed from an account's chips; they stay away even when the listing shows them again. */
  hiddenContracts: Readonly<Record<string, string[]>>;
  /** Drops a collection chip from the account shown (and from the filter, if it was on). */
  forgetContract(address: string): Promise<void>;
  /** Shows a removed chip again (the user added that collection by hand). */
  restoreContract(address: string): void;
  tokenRefresh: Readonly<Record<string, RefreshState>>;
  /** Asks the service to read the token's metadata URI again, then reloads the page and that token's metadata. */
  refreshToken(contract: string, tokenId: string): Promise<void>;
  /** Changes controls and reloads; any change other than the page itself goes back to page 0. */
  setTokenControls(patch: Partial<TokenControls>): Promise<void>;
  loadTokens(): Promise<void>;
}

/** The address to list: the typed one, else the app's own signing address. */
export const effectiveOwner = (controls: TokenControls, appAddress: string | null | undefined): string =>
  controls.owner.trim() || appAddress || '';

export const createTokensSlice: SliceCreator<TokensSlice> = (api) => {
  let requestSeq = 0;
  return (set, get) => {
    async function loadMetadata(page: TokenPage) {
      const uris = missingUris(page.data, get().metadata);
      if (uris.length === 0) return;
      set((s) => ({ metadata: { ...s.metadata, ...Object.fromEntries(uris.map((u) => [u, null])) } }));
      try {
        const found = await api.resolveTokenMetadata(uris);
        set((s) => ({ metadata: { ...s.metadata, ...Object.fromEntries(uris.map((u) => [u, found[u] ?? {}])) } }));
      } catch {
        // Cards fall back to a generated placeholder; metadata is decoration, not data.
        set((s) => ({ metadata: { ...s.metadata, ...Object.fromEntries(uris.map((u) => [u, {}])) } }));
      }
    }

    return {
      tokenControls: defaultControls,
      tokenPage: null,
      tokenPageControls: defaultControls,
      tokensState: 'idle',
      tokensError: null,
      knownContracts: {},
      metadata: {},
      hiddenContracts: {},
      restoreContract(address) {
        const owner = effectiveOwner(get().tokenControls, get().info?.address).toLowerCase();
        const a = address.toLowerCase();
        set((s) => ({ hiddenContracts: { ...s.hiddenContracts, [owner]: (s.hiddenContracts[owner] ?? []).filter((c) => c !== a) } }));
      },
      async forgetContract(address) {
        const owner = effectiveOwner(get().tokenControls, get().info?.address).toLowerCase();
        const a = address.toLowerCase();
        set((s) => ({ hiddenContracts: { ...s.hiddenContracts, [owner]: [...new Set([...(s.hiddenContracts[owner] ?? []), a])] } }));
        const { contracts } = get().tokenControls;
        if (contracts.includes(a)) await get().setTokenControls({ contracts: contracts.filter((c) => c !== a) });
      },
      tokenRefresh: {},
      async refreshToken(contract, tokenId) {
        const key = `${contract}:${tokenId}`;
        set((s) => ({ tokenRefresh: { ...s.tokenRefresh, [key]: { state: 'pending' } } }));
        const done = (next: RefreshState | null) =>
          set((s) => {
            const { [key]: _, ...rest } = s.tokenRefresh;
            return { tokenRefresh: next ? { ...rest, [key]: next } : rest };
          });
        try {
          await api.refreshToken(contract, tokenId);
          await new Promise((r) => setTimeout(r, REFRESH_SETTLE_MS));
          // The uri may be new, or the same uri may now answer other metadata: forget it, then reload.
          const old = get().tokenPage?.data.find((t) => t.contract.address === contract && t.id === tokenId)?.uri;
          if (old) set((s) => ({ metadata: Object.fromEntries(Object.entries(s.metadata).filter(([u]) => u !== old)) }));
          await get().loadTokens();
          done(null);
        } catch (e) {
          done({ state: 'error', message: errorInfo(e).message });
        }
      },
      async setTokenControls(patch) {
        set((s) => ({ tokenControls: { ...s.tokenControls, page: 0, ...patch } }));
        await get().loadTokens();
      },
      async loadTokens() {
        const { tokenControls, info } = get();
        const owner = effectiveOwner(tokenControls, info?.address);
        const seq = ++requestSeq;
        if (!owner) {
          set({ tokenPage: null, tokensState: 'ready', tokensError: null });
          return;
        }
        set({ tokensState: 'loading', tokensError: null });
        try {
          const page = await api.listTokens(owner, toTokenQuery(tokenControls));
          if (seq !== requestSeq) return; // a newer request superseded this one
          const key = owner.toLowerCase();
          const remember = (s: TokensSlice, tokens: Token[]) => ({
            knownContracts: { ...s.knownContracts, [key]: mergeContracts(s.knownContracts[key] ?? [], tokens) },
          });
          set((s) => ({ tokenPage: page, tokenPageControls: tokenControls, tokensState: 'ready', ...remember(s, page.data) }));
          void loadMetadata(page);
          if (tokenControls.contracts.length === 0 && tokenControls.page === 0 && page.pagination.nextUrl) {
            // The filter offers every collection the account holds, not only those on the first page.
            void api
              .listTokens(owner, { page: 0, size: 200, order_by: 'contract_address', order_direction: 'asc' })
              .then((all) => set((s) => remember(s, all.data)))
              .catch(() => {});
          }
        } catch (e) {
          if (seq !== requestSeq) return;
          set({ tokensState: 'error', tokensError: errorInfo(e) });
        }
      },
    };
  };
};
