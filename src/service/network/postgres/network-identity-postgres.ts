// The network identity (../network-identity.ts) in a network's schema of the shared PostgreSQL database.
import { migratePg } from '../../db/pg-migrate.js';
import type { PgPool } from '../../db/pg-pool.js';
import type { NetworkIdentity, NetworkIdentityStore } from '../network-identity.js';

export async function openPostgresNetworkIdentity(pool: PgPool): Promise<NetworkIdentityStore> {
  await migratePg(pool, 'network', [
    'CREATE TABLE network_identity (one INTEGER PRIMARY KEY CHECK (one = 1), platform TEXT NOT NULL, network TEXT NOT NULL, chain_id BIGINT NOT NULL)',
  ]);
  return {
    async read() {
      const r = await pool.query<NetworkIdentity>('SELECT platform, network, chain_id AS "chainId" FROM network_identity WHERE one = 1');
      return r.rows[0] ?? null;
    },
    async write(id) {
      // The first instance to reach the node writes it; the others find it there.
      await pool.query(
        'INSERT INTO network_identity (one, platform, network, chain_id) VALUES (1, $1, $2, $3) ON CONFLICT (one) DO NOTHING',
        [id.platform, id.network, id.chainId],
      );
    },
  };
}
