// The SQLite listing writer: moves tokens between owners keeping rank buckets and counters exact. Caller owns the transaction.
import type { Db } from '../../../lib/sqlite.js';
import { LIST, addressBytes, holdingIdKey, holdingsUpperBound } from '../listing-keys.js';
import { tokenKeys, type ContractRow, type IdRow, type IndexWriter, type TokenRow } from '../listing-writer.js';
import { createRankLists, DEFAULT_BUCKET_SIZE, type RankLists } from './listing-rank-sqlite.js';

/** The SQLite writer also keeps the counted rank buckets its deep pages seek with. */
export type SqliteIndexWriter = IndexWriter & { readonly rank: RankLists };

export function createIndexWriter(db: Db, bucketSize = DEFAULT_BUCKET_SIZE): SqliteIndexWriter {
  const rank = createRankLists(db, bucketSize);
  const s = {
    accountGet: db.prepare('SELECT id FROM idx_accounts WHERE address = ?').pluck(),
    accountIns: db.prepare('INSERT INTO idx_accounts (address) VALUES (?)'),
    accountAdd: db.prepare('UPDATE idx_accounts SET token_count = token_count + ? WHERE id = ?'),
    contractGet: db.prepare('SELECT id, address, addr, has_uri, total_supply, standard FROM idx_contracts WHERE address = ?'),
    contractById: db.prepare('SELECT id, address, addr, has_uri, total_supply, standard FROM idx_contracts WHERE id = ?'),
    contractIns: db.prepare(
      'INSERT INTO idx_contracts (address, addr, name, symbol, total_supply, has_uri, first_block, standard) VALUES (?, ?, ?, ?, ?, ?, ?, ?)',
    ),
    contractSupply: db.prepare('UPDATE idx_contracts SET total_supply = ? WHERE id = ?'),
    contractMintBurn: db.prepare('UPDATE idx_contracts SET minted = minted + ?, burned = burned + ? WHERE id = ?'),
    contractAdd: db.prepare('UPDATE idx_contracts SET token_count = token_count + ? WHERE id = ?'),
    contractsAbove: db.prepare('DELETE FROM idx_contracts WHERE first_block > ?'),
    ocAdd: db.prepare(
      'INSERT INTO idx_owner_contract (owner_id, caddr, contract_id, n) VALUES (?, ?, ?, ?) ON CONFLICT (owner_id, caddr) DO UPDATE SET n = n + excluded.n',
    ),
    ocDropEmpty: db.prepare('DELETE FROM idx_owner_contract WHERE owner_id = ? AND caddr = ? AND n <= 0'),
    tokenGet: db.prepare('SELECT * FROM idx_tokens WHERE contract_id = ? AND k_cid = ?'),
    tokenIns: db.prepare(
      'INSERT INTO idx_tokens (contract_id, token_id, owner_id, pair_id, k_tr, k_id, k_ct, k_cid, balance, uri) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)',
    ),
    tokenInsNew: db.prepare(
      'INSERT INTO idx_tokens (contract_id, token_id, owner_id, pair_id, k_tr, k_id, k_ct, k_cid, balance, uri) VALUES (?, ' +
        '?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (contract_id, k_cid) DO NOTHING',
    ),
    tokenBalance: db.prepare('UPDATE idx_tokens SET balance = ? WHERE id = ?'),
    idGet: db.prepare('SELECT supply, uri FROM idx_ids WHERE contract_id = ? AND k_id = ?'),
    idPut: db.prepare(
      'INSERT INTO idx_ids (contract_id, k_id, supply, uri) VALUES (?, ?, ?, ?) ON CONFLICT (contract_id, k_id) DO UPDATE ' +
        'SET supply = excluded.supply, uri = excluded.uri',
    ),
    idUri: db.prepare('UPDATE idx_ids SET uri = ? WHERE contract_id = ? AND k_id = ?'),
    holdersUri: db.prepare('UPDATE idx_tokens SET uri = ? WHERE contract_id = ? AND k_cid > ? AND k_cid < ?'),
    tokenOwner: db.prepare('UPDATE idx_tokens SET owner_id = ?, pair_id = ?, k_tr = ? WHERE id = ?'),
    pairGet: db.prepare('SELECT id FROM idx_pairs WHERE owner_id = ? AND contract_id = ?').pluck(),
    pairIns: db.prepare('INSERT INTO idx_pairs (owner_id, contract_id) VALUES (?, ?)'),
    tokenUri: db.prepare('UPDATE idx_tokens SET uri = ? WHERE id = ?'),
    tokenDel: db.prepare('DELETE FROM idx_tokens WHERE id = ?'),
    accountAddress: db.prepare('SELECT address FROM idx_accounts WHERE id = ?').pluck(),
    holdingsOfId: db.prepare('SELECT * FROM idx_tokens WHERE contract_id = ? AND k_cid > ? AND k_cid < ?'),
    countNonZeroIds: db.prepare("SELECT count(*) FROM idx_ids WHERE contract_id = ? AND supply != '0'").pluck(),
    tokensIn: db.prepare('SELECT id, token_id FROM idx_tokens WHERE contract_id = ? AND k_cid >= ? AND k_cid <= ? ORDER BY k_cid LIMIT ?'),
    idsIn: db.prepare('SELECT k_id FROM idx_ids WHERE contract_id = ? AND k_id >= ? AND k_id <= ? ORDER BY k_id LIMIT ?').pluck(),
    idsOrphaned: db.prepare('DELETE FROM idx_ids WHERE contract_id NOT IN (SELECT id FROM idx_contracts)'),
    transferIns: db.prepare(
      'INSERT OR REPLACE INTO idx_transfers (block, log_index, sub, contract_id, k_id, from_id, to_id, amount) VALUES (?, ?, ?, ?, ?, ?, ?, ?)',
    ),
  };
  // Contracts are few and hot: cache them. Accounts are many: a bounded cache.
  const contracts = new Map<string, ContractRow>();
  const contractsById = new Map<number, ContractRow>();
  const accounts = new Map<string, number>();
  const pairs = new Map<string, number>();

  function pairId(owner: number, contract: number): number {
    const key = `${owner}:${contract}`;
    let id = pairs.get(key);
    if (id !== undefined) return id;
    id = s.pairGet.get(owner, contract) as number | undefined;
    if (id === undefined) id = Number(s.pairIns.run(owner, contract).lastInsertRowid);
    if (pairs.size > 100_000) pairs.clear();
    pairs.set(key, id);
    return id;
  }

  function cacheContract(row: ContractRow | undefined): ContractRow | undefined {
    if (row) {
      contracts.set(row.address, row);
      contractsById.set(row.id, row);
    }
    return row;
  }

  function contractById(id: number): ContractRow | undefined {
    return contractsById.get(id) ?? cacheContract(s.contractById.get(id) as ContractRow | undefined);
  }

  // Counters wait here until flush(): one write per row, whatever the batch size. Bucket counts move in the rank
  // lists' copy and are written by its settle().
  const accountDelta = new Map<number, number>();
  const contractDelta = new Map<number, number>();
  const ocDelta = new Map<string, { owner: number; contract: ContractRow; n: number }>();

  /**
   * Moves a token's entries in or out of its owner's lists (and the contract's). `stays`: the token stays owned, in
   * the same contract (a transfer, or an ERC-1155 holding's newer acquisition), so its entry in the contract's list by
   * id (key k_cid, unchanged) and the contract's count do not move at all.
   */
  function move(t: TokenRow, owner: number, contract: ContractRow, delta: 1 | -1, stays: boolean): void {
    rank.add(LIST.OWNER_TR, owner, t.k_tr, delta);
    rank.add(LIST.OWNER_ID, owner, t.k_id, delta);
    rank.add(LIST.OWNER_CT, owner, t.k_ct, delta);
    rank.add(LIST.CONTRACT_TR, t.contract_id, t.k_tr, delta);
    if (!stays) {
      rank.add(LIST.CONTRACT_ID, t.contract_id, t.k_cid, delta);
      contractDelta.set(contract.id, (contractDelta.get(contract.id) ?? 0) + delta);
    }
    if (t.pair_id !== null) rank.add(LIST.PAIR_TR, t.pair_id, t.k_tr, delta);
    accountDelta.set(owner, (accountDelta.get(owner) ?? 0) + delta);
    const key = `${owner}:${contract.id}`;
    const oc = ocDelta.get(key) ?? { owner, contract, n: 0 };
    oc.n += delta;
    ocDelta.set(key, oc);
  }

  const attach = (t: TokenRow, owner: number, contract: ContractRow, stays = false) => move(t, owner, contract, 1, stays);
  const detach = (t: TokenRow, owner: number, contract: ContractRow, stays = false) => move(t, owner, contract, -1, stays);

  return {
    rank,
    accountId(address) {
      let id = accounts.get(address);
      if (id !== undefined) return id;
      id = s.accountGet.get(address) as number | undefined;
      if (id === undefined) id = Number(s.accountIns.run(address).lastInsertRowid);
      if (accounts.size > 100_000) accounts.clear();
      accounts.set(address, id);
      return id;
    },
    contract(address) {
      return contracts.get(address) ?? cacheContract(s.contractGet.get(address) as ContractRow | undefined);
    },
    contractById,
    addContract(c) {
      const addr = addressBytes(c.address);
      const id = Number(
        s.contractIns.run(c.address, addr, c.name, c.symbol, c.totalSupply, c.hasUri ? 1 : 0, c.firstBlock, c.standard).lastInsertRowid,
      );
      return cacheContract({ id, address: c.address, addr, has_uri: c.hasUri ? 1 : 0, total_supply: c.totalSupply, standard: c.standard })!;
    },
    setTotalSupply(contractId, value) {
      s.contractSupply.run(value, contractId);
      const row = contractsById.get(contractId);
      if (row) row.total_supply = value;
    },
    addMintBurn(contractId, minted, burned) {
      if (minted || burned) s.contractMintBurn.run(minted, burned, contractId);
    },
    token(contractId, kCid) {
      return s.tokenGet.get(contractId, kCid) as TokenRow | undefined;
    },
    createToken(contract, id, ownerId, kTr, uri, holder) {
      const { kId, kCt } = tokenKeys(contract.addr, id);
      const kCid = holder ? holdingIdKey(kId, addressBytes(holder.address)) : kId;
      const balance = holder?.balance ?? '1';
      const tokenId = id.toString();
      const pair = ownerId === null ? null : pairId(ownerId, contract.id);
      const rowId = Number(s.tokenIns.run(contract.id, tokenId, ownerId, pair, kTr, kId, kCt, kCid, balance, uri).lastInsertRowid);
      const t: TokenRow = {
        id: rowId,
        contract_id: contract.id,
        token_id: tokenId,
        owner_id: ownerId,
        pair_id: pair,
        k_tr: kTr,
        k_id: kId,
        k_ct: kCt,
        k_cid: kCid,
        balance,
        uri,
      };
      if (ownerId !== null) attach(t, ownerId, contract);
      return t;
    },
    createMinted(contract, id, ownerId, kTr, uri, keys) {
      const { kId, kCt } = keys ?? tokenKeys(contract.addr, id);
      const tokenId = id.toString();
      const pair = ownerId === null ? null : pairId(ownerId, contract.id);
      const r = s.tokenInsNew.run(contract.id, tokenId, ownerId, pair, kTr, kId, kCt, kId, '1', uri);
      if (r.changes === 0) return undefined;
      const t: TokenRow = {
        id: Number(r.lastInsertRowid),
        contract_id: contract.id,
        token_id: tokenId,
        owner_id: ownerId,
        pair_id: pair,
        k_tr: kTr,
        k_id: kId,
        k_ct: kCt,
        k_cid: kId,
        balance: '1',
        uri,
      };
      if (ownerId !== null) attach(t, ownerId, contract);
      return t;
    },
    setBalance(t, balance) {
      if (t.balance === balance) return;
      s.tokenBalance.run(balance, t.id);
      t.balance = balance;
    },
    idRow(contractId, kId) {
      return s.idGet.get(contractId, kId) as IdRow | undefined;
    },
    putId(contractId, kId, row) {
      s.idPut.run(contractId, kId, row.supply, row.uri);
    },
    setIdUri(contractId, kId, uri) {
      s.idUri.run(uri, contractId, kId);
      s.holdersUri.run(uri, contractId, kId, holdingsUpperBound(kId));
    },
    setOwner(t, ownerId, kTr) {
      const contract = contractById(t.contract_id);
      if (!contract) throw new Error(`token ${t.id} refers to unknown contract ${t.contract_id}`);
      const stays = t.owner_id !== null && ownerId !== null;
      if (t.owner_id !== null) detach(t, t.owner_id, contract, stays);
      const pair = ownerId === null ? null : pairId(ownerId, t.contract_id);
      s.tokenOwner.run(ownerId, pair, kTr, t.id);
      t.owner_id = ownerId;
      t.pair_id = pair;
      t.k_tr = kTr;
      if (ownerId !== null) attach(t, ownerId, contract, stays);
    },
    setUri(tokenRowId, uri) {
      s.tokenUri.run(uri, tokenRowId);
    },
    deleteToken(t) {
      if (t.owner_id !== null) {
        const contract = contractById(t.contract_id);
        if (contract) detach(t, t.owner_id, contract);
      }
      s.tokenDel.run(t.id);
    },
    recordTransfer(block, logIndex, sub, contractId, kId, fromId, toId, amount) {
      s.transferIns.run(block, logIndex, sub, contractId, kId, fromId, toId, amount);
    },
    dropContractsAbove(block) {
      s.contractsAbove.run(block);
      // Ids of a dropped contract go with it (no orphan rows in idx_ids).
      s.idsOrphaned.run();
      contracts.clear();
      contractsById.clear();
    },
    accountAddress(id) {
      return s.accountAddress.get(id) as string | undefined;
    },
    holdingsOfId(contractId, kId) {
      return s.holdingsOfId.all(contractId, kId, holdingsUpperBound(kId)) as TokenRow[];
    },
    countNonZeroIds(contractId) {
      return s.countNonZeroIds.get(contractId) as number;
    },
    tokensInIdRange(contractId, lo, hi, limit) {
      return s.tokensIn.all(contractId, lo, hi, limit) as { id: number; token_id: string }[];
    },
    idKeysInRange(contractId, lo, hi, limit) {
      return s.idsIn.all(contractId, lo, hi, limit) as Buffer[];
    },
    flush() {
      rank.settle();
      for (const [id, d] of accountDelta) if (d) s.accountAdd.run(d, id);
      accountDelta.clear();
      for (const [id, d] of contractDelta) if (d) s.contractAdd.run(d, id);
      contractDelta.clear();
      for (const oc of ocDelta.values()) {
        if (!oc.n) continue;
        s.ocAdd.run(oc.owner, oc.contract.addr, oc.contract.id, oc.n);
        // Only a fall can empty a pair (counts are never negative): a mint's or a receiver's pair skips the delete.
        if (oc.n < 0) s.ocDropEmpty.run(oc.owner, oc.contract.addr);
      }
      ocDelta.clear();
    },
  };
}
