// The token browser's controls: whose tokens, which collections, the order and the page size.
import { useEffect, useId, useState, type FormEvent } from 'react';
import type { OrderBy } from '../../../../shared/listing.js';
import { PAGE_SIZES, isAddressInput } from '../../store/token-logic.js';
import { useApp } from '../../store/use-app.js';
import { effectiveOwner } from '../../store/slices/tokens-slice.js';
import type { KnownContract } from '../../store/token-logic.js';
import { shortHex } from '../../lib/format.js';

const noContracts: KnownContract[] = [];
const noHidden: string[] = [];

const orderLabels: Record<OrderBy, string> = {
  transfer_block_number: 'Recently received',
  token_id: 'Token ID',
  contract_address: 'Collection address',
};

export function TokenControlsBar() {
  const controls = useApp((s) => s.tokenControls);
  const appAddress = useApp((s) => s.info?.address ?? '');
  const shownOwner = effectiveOwner(controls, appAddress).toLowerCase();
  const known = useApp((s) => s.knownContracts[shownOwner]) ?? noContracts;
  const hidden = useApp((s) => s.hiddenContracts[shownOwner]) ?? noHidden;
  const forget = useApp((s) => s.forgetContract);
  const restore = useApp((s) => s.restoreContract);
  const setControls = useApp((s) => s.setTokenControls);
  const [owner, setOwner] = useState(controls.owner);
  const [ownerError, setOwnerError] = useState<string | null>(null);
  const [extra, setExtra] = useState('');
  const [extraError, setExtraError] = useState<string | null>(null);
  const ids = { owner: useId(), order: useId(), dir: useId(), size: useId(), extra: useId() };

  useEffect(() => setOwner(controls.owner), [controls.owner]);

  const submitOwner = (e: FormEvent) => {
    e.preventDefault();
    const value = owner.trim();
    if (value && !isAddressInput(value)) {
      setOwnerError('Enter an address: 0x followed by 40 hex digits, or leave it empty for your own.');
      return;
    }
    setOwnerError(null);
    void setControls({ owner: value.toLowerCase(), contracts: [] });
  };

  const toggleContract = (address: string) => {
    const has = controls.contracts.includes(address);
    void setControls({ contracts: has ? controls.contracts.filter((c) => c !== address) : [...controls.contracts, address] });
  };

  const addContract = (e: FormEvent) => {
    e.preventDefault();
    const value = extra.trim().toLowerCase();
    if (!isAddressInput(value)) {
      setExtraError('A contract address is 0x followed by 40 hex digits.');
      return;
    }
    setExtraError(null);
    setExtra('');
    restore(value);
    if (!controls.contracts.includes(value)) void setControls({ contracts: [...controls.contracts, value] });
  };

  const chips = [...known.map((k) => k.address), ...controls.contracts.filter((c) => !known.some((k) => k.address === c))].filter(
    (c) => !hidden.includes(c),
  );

  return (
    <div className="toolbar-stack">
      <div className="toolbar">
        <form className="field field-grow" onSubmit={submitOwner}>
          <label htmlFor={ids.owner}>Account</label>
          <div className="input-group">
            <input
              id={ids.owner}
              className="input mono"
              value={owner}
              placeholder={appAddress ? `${appAddress} (yours)` : '0x…'}
              spellCheck={false}
              autoComplete="off"
              aria-invalid={ownerError ? true : undefined}
              aria-describedby={ownerError ? `${ids.owner}-err` : undefined}
              onChange={(e) => setOwner(e.target.value)}
            />
            <button type="submit" className="btn btn-secondary">
              Show
            </button>
          </div>
          {ownerError ? (
            <p id={`${ids.owner}-err`} className="field-error" role="alert">
              {ownerError}
            </p>
          ) : null}
        </form>
        <div className="field">
          <label htmlFor={ids.order}>Order by</label>
          <select
            id={ids.order}
            className="input"
            value={controls.orderBy}
            onChange={(e) => void setControls({ orderBy: e.target.value as OrderBy })}
          >
            {Object.entries(orderLabels).map(([value, label]) => (
              <option key={value} value={value}>
                {label}
              </option>
            ))}
          </select>
        </div>
        <div className="field">
          <label htmlFor={ids.dir}>Direction</label>
          <select
            id={ids.dir}
            className="input"
            value={controls.direction}
            onChange={(e) => void setControls({ direction: e.target.value === 'asc' ? 'asc' : 'desc' })}
          >
            <option value="desc">Descending</option>
            <option value="asc">Ascending</option>
          </select>
        </div>
        <div className="field">
          <label htmlFor={ids.size}>Per page</label>
          <select
            id={ids.size}
            className="input"
            value={controls.size}
            onChange={(e) => void setControls({ size: Number(e.target.value) })}
          >
            {PAGE_SIZES.map((n) => (
              <option key={n} value={n}>
                {n}
              </option>
            ))}
          </select>
        </div>
      </div>
      <div className="filter-row" role="group" aria-label="Filter by collection">
        <span className="filter-label">Collections</span>
        <button
          type="button"
          className={`chip${controls.contracts.length === 0 ? ' is-active' : ''}`}
          aria-pressed={controls.contracts.length === 0}
          onClick={() => void setControls({ contracts: [] })}
        >
          All
        </button>
        {chips.map((address) => {
          const k = known.find((c) => c.address === address);
          const active = controls.contracts.includes(address);
          const name = k?.name || k?.symbol || shortHex(address);
          return (
            <span key={address} className={`chip-wrap${active ? ' is-active' : ''}`}>
              <button
                type="button"
                className={`chip${active ? ' is-active' : ''}`}
                aria-pressed={active}
                data-contract={address}
                title={address}
                onClick={() => toggleContract(address)}
              >
                {name}
                {k?.symbol && k.name ? <span className="chip-sub">{k.symbol}</span> : null}
              </button>
              <button
                type="button"
                className="chip-remove"
                aria-label={`Remove ${name} from the collections of this account`}
                title="Remove"
                onClick={() => void forget(address)}
              >
                ×
              </button>
            </span>
          );
        })}
        <form className="chip-form" onSubmit={addContract}>
          <label htmlFor={ids.extra} className="sr-only">
            Add a collection address to the filter
          </label>
          <input
            id={ids.extra}
            className="input input-small mono"
            placeholder="Add collection 0x…"
            value={extra}
            spellCheck={false}
            autoComplete="off"
            aria-invalid={extraError ? true : undefined}
            aria-describedby={extraError ? `${ids.extra}-err` : undefined}
            onChange={(e) => setExtra(e.target.value)}
          />
          <button type="submit" className="btn btn-ghost btn-small">
            Add
          </button>
          {extraError ? (
            <span id={`${ids.extra}-err`} className="field-error" role="alert">
              {extraError}
            </span>
          ) : null}
        </form>
      </div>
    </div>
  );
}
