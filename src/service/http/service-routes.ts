// The service's own endpoints: /health, /openapi.json, and a hint for plain HTTP requests to the tracker's WebSocket.
import type { Router } from '../../lib/http-kit.js';
import { TxdeskError } from '../../shared/errors.js';
import { buildOpenApi } from './openapi.js';

export interface HealthSource {
  chainId: number;
  platform: string;
  network: string;
  confirmations: number;
  /** Indexer position, and anything else it reports (EIP-2309 ranges beyond the cap). */
  status(): { indexedBlock: number; headBlock: number } & Record<string, unknown>;
}

export function registerServiceRoutes(router: Router, health: HealthSource): void {
  router.get('/health', () => ({
    status: 'ok',
    chainId: health.chainId,
    platform: health.platform,
    network: health.network,
    /** Blocks the indexer stays behind the head (`--indexer-lag`); `confirmations` is its old name. */
    indexerLag: health.confirmations,
    confirmations: health.confirmations,
    ...health.status(),
  }));

  router.get('/openapi.json', (ctx) => buildOpenApi(ctx.url.origin));

  // A WebSocket upgrade never reaches the router (the tracker handles 'upgrade'); a plain GET here is a client mistake.
  router.get('/tracker/:platform/:network', () => {
    throw new TxdeskError('BAD_REQUEST', 'The tracker speaks WebSocket; connect with a WebSocket client (for example the txdesk/tracker SDK).', 426);
  });
}
