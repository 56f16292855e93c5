// What a write will ask of the index, worked out from the write itself: the rows a PostgreSQL write loads before it
// applies a range or a rollback in memory (listing-store-pg-write.ts). Pure functions of the batch or plan.
import { addressBytes, holdingIdKey, tokenKeys } from '../listing/listing-writer.js';
import { emptyNeeds, type OverlayNeeds } from '../listing/listing-store-pg-write.js';
import { METADATA_UPDATE_CAP, metadataBounds, ZERO_ADDRESS, type Batch, type MissingUri } from './indexer-apply.js';
import type { MetadataUpdate } from './indexer-events.js';
import type { RollbackPlan } from './indexer-reorg.js';

/** ERC-4906 ranges a write reads (metadataTargets), with the bounds it will ask for. */
export function addMetadataNeeds(needs: OverlayNeeds, updates: readonly MetadataUpdate[]): void {
  for (const u of updates) {
    needs.contracts.add(u.contract);
    needs.ranges.push({ contract: u.contract, ...metadataBounds(u, addressBytes(u.contract)), limit: METADATA_UPDATE_CAP });
  }
}

export function batchNeeds(b: Batch): OverlayNeeds {
  const needs = emptyNeeds();
  for (const a of b.newContracts.keys()) needs.contracts.add(a);
  for (const a of b.supplies.keys()) needs.contracts.add(a);
  const keysOf = new Map<string, Buffer>();
  for (const l of b.logs) {
    needs.contracts.add(l.contract);
    let addr = keysOf.get(l.contract);
    if (!addr) keysOf.set(l.contract, (addr = addressBytes(l.contract)));
    const { kId } = tokenKeys(addr, l.id);
    if (l.from !== ZERO_ADDRESS) needs.accounts.add(l.from);
    if (l.to !== ZERO_ADDRESS) {
      needs.accounts.add(l.to);
      needs.pairs.push({ owner: l.to, contract: l.contract });
    }
    if (l.amount == null) {
      needs.tokens.push({ contract: l.contract, kCid: kId });
      continue;
    }
    needs.ids.push({ contract: l.contract, kId });
    for (const holder of [l.from, l.to]) {
      if (holder !== ZERO_ADDRESS) needs.tokens.push({ contract: l.contract, kCid: holdingIdKey(kId, addressBytes(holder)) });
    }
  }
  for (const u of b.uriEvents ?? []) {
    needs.contracts.add(u.contract);
    needs.ids.push({ contract: u.contract, kId: tokenKeys(addressBytes(u.contract), u.id).kId });
  }
  addMetadataNeeds(needs, b.metadataUpdates ?? []);
  return needs;
}

export function rollbackNeeds(plan: RollbackPlan): OverlayNeeds {
  const needs = emptyNeeds();
  for (const c of plan.counts) needs.contractIds.add(c.contract_id);
  for (const t of plan.tokens) {
    needs.contractIds.add(t.contract_id);
    needs.tokens.push({ contract: t.contract_id, kCid: t.k_id });
    if (t.prev?.to_id != null) needs.pairs.push({ owner: t.prev.to_id, contract: t.contract_id });
  }
  for (const i of plan.ids) {
    needs.contractIds.add(i.contract_id);
    needs.ids.push({ contract: i.contract_id, kId: i.k_id });
    needs.holdingsOfIds.push({ contract: i.contract_id, kId: i.k_id });
    needs.nonZero.add(i.contract_id);
    for (const h of i.history) {
      if (h.to_id === null) continue;
      needs.accountIds.add(h.to_id);
      needs.pairs.push({ owner: h.to_id, contract: i.contract_id });
    }
  }
  return needs;
}

/** A backfill of uris: the contracts of the ERC-1155 ids it names. */
export function uriNeeds(missing: readonly MissingUri[]): OverlayNeeds {
  const needs = emptyNeeds();
  for (const m of missing) needs.contractIds.add(m.contractId);
  return needs;
}
