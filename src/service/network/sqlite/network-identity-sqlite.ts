// The network identity (../network-identity.ts) in a network's SQLite database.
import { migrate, type Db } from '../../../lib/sqlite.js';
import type { NetworkIdentity, NetworkIdentityStore } from '../network-identity.js';

export function openSqliteNetworkIdentity(db: Db): NetworkIdentityStore {
  migrate(db, 'network', [
    'CREATE TABLE network_identity (one INTEGER PRIMARY KEY CHECK (one = 1), platform TEXT NOT NULL, network TEXT NOT NULL, chain_id INTEGER NOT NULL)',
  ]);
  return {
    async read() {
      const row = db.prepare('SELECT platform, network, chain_id AS chainId FROM network_identity WHERE one = 1').get() as
        | NetworkIdentity
        | undefined;
      return row ?? null;
    },
    async write(id) {
      db.prepare('INSERT INTO network_identity (one, platform, network, chain_id) VALUES (1, ?, ?, ?) ON CONFLICT (one) DO NOTHING').run(
        id.platform,
        id.network,
        id.chainId,
      );
    },
  };
}
