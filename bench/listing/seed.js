// Seeds the listing index with 1,000,000 holdings over 100,000 owners and 1,000 contracts by bulk insert (no chain):
// a fifth of the contracts are ERC-1155 (ids shared by two owners, balances 1..100), a fifth ERC-721 minted in
// EIP-2309 ranges (14-byte transfer keys), the rest plain ERC-721.
import { openDatabase } from '../../dist/lib/sqlite.js';
import { migrateSqliteIndex } from '../../dist/service/backend.js';
import {
  addressBytes,
  contractOrderKey,
  holdingIdKey,
  idOrderKey,
  tokenIdKey,
  transferKey,
} from '../../dist/service/listing/listing-keys.js';
import { rebuildDerived } from '../../dist/service/listing/sqlite/listing-rebuild-sqlite.js';
import { prng } from '../../test/support/prng.js';

export const SEED = { tokens: 1_000_000, owners: 100_000, contracts: 1_000, largestOwner: 50_000 };

const address = (prefix, n) => '0x' + prefix + n.toString(16).padStart(40 - prefix.length, '0');
export const ownerAddress = (n) => address('a0', n);
export const contractAddress = (n) => address('c0', (n * 2654435761) % 0xffffffff);

/** Writes the index into `file`; owner 0 holds SEED.largestOwner tokens, the rest are spread at random. */
export function seedListing(file) {
  const db = openDatabase(file);
  migrateSqliteIndex(db);
  db.pragma('synchronous = OFF');
  const rnd = prng(42);
  const indexSql = db
    .prepare("SELECT name, sql FROM sqlite_master WHERE type = 'index' AND tbl_name = 'idx_tokens' AND sql IS NOT NULL")
    .all();
  db.transaction(() => {
    // Indexes are built once after the load: sorting 1M keys beats 1M random B-tree inserts.
    for (const i of indexSql) db.exec(`DROP INDEX ${i.name}`);
    const insAccount = db.prepare('INSERT INTO idx_accounts (id, address) VALUES (?, ?)');
    for (let o = 0; o < SEED.owners; o++) insAccount.run(o + 1, ownerAddress(o));
    const insContract = db.prepare(
      'INSERT INTO idx_contracts (id, address, addr, name, symbol, total_supply, has_uri, minted, first_block, standard) ' +
        'VALUES (?, ?, ?, ?, ?, NULL, 1, 0, 1, ?)',
    );
    const caddr = [];
    const isMulti = (c) => c % 5 === 0;
    const isDrop = (c) => c % 5 === 1;
    for (let c = 0; c < SEED.contracts; c++) {
      const a = contractAddress(c);
      caddr.push(addressBytes(a));
      insContract.run(c + 1, a, caddr[c], `Collection ${c}`, `C${c}`, isMulti(c) ? 'ERC1155' : 'ERC721');
    }
    const obytes = (o) => addressBytes(ownerAddress(o));
    // ERC-1155: an id waits for a second holder (never the same owner twice).
    const pending = new Map();
    const nextId = new Array(SEED.contracts).fill(0);
    const minted = new Array(SEED.contracts).fill(0);
    const insToken = db.prepare(
      'INSERT INTO idx_tokens (contract_id, token_id, owner_id, k_tr, k_id, k_ct, k_cid, balance, uri) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)',
    );
    for (let i = 0; i < SEED.tokens; i++) {
      const owner = i < SEED.largestOwner ? 0 : 1 + Math.floor(rnd() * (SEED.owners - 1));
      const c = Math.floor(rnd() * SEED.contracts);
      let id;
      const wait = pending.get(c);
      if (isMulti(c) && wait && wait.owner !== owner) {
        id = wait.id;
        pending.delete(c);
      } else {
        id = BigInt(nextId[c]++);
        minted[c]++;
        if (isMulti(c)) pending.set(c, { id, owner });
      }
      // A permutation of 0..1M-1 spreads acquisition order independently of owner and contract.
      const p = (i * 7919 + 13) % SEED.tokens;
      const idKey = tokenIdKey(id);
      const kId = idOrderKey(idKey, caddr[c]);
      const kTr = transferKey(1 + Math.floor(p / 100), p % 100, isDrop(c) || isMulti(c) ? 1 + (i % 50) : undefined);
      const kCid = isMulti(c) ? holdingIdKey(kId, obytes(owner)) : kId;
      const balance = isMulti(c) ? String(1 + Math.floor(rnd() * 100)) : '1';
      insToken.run(c + 1, id.toString(), owner + 1, kTr, kId, contractOrderKey(caddr[c], idKey), kCid, balance, `ipfs://bench/${c}/${id}`);
    }
    const setMinted = db.prepare('UPDATE idx_contracts SET minted = ? WHERE id = ?');
    const setIds = db.prepare('UPDATE idx_contracts SET total_supply = ? WHERE id = ?');
    minted.forEach((m, c) => (isMulti(c) ? setIds.run(String(m), c + 1) : setMinted.run(m, c + 1)));
    for (const i of indexSql) db.exec(i.sql);
  })();
  rebuildDerived(db);
  db.exec('ANALYZE');
  db.pragma('wal_checkpoint(TRUNCATE)');
  db.close();
}
