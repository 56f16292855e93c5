// The data service's HTTP front as it was before Hono (node:http, a segment router, the host check, JSON written by
// hand), serving the same listing endpoint function: the baseline that bench/listing compares the Hono service with.
import { createServer } from 'node:http';
import { createListingEndpoints } from '../../dist/service/listing/listing-routes.js';
import { openSqliteListingReads } from '../../dist/service/listing/sqlite/listing-reads-sqlite.js';
import { allowedServiceHosts, checkServiceHost } from '../../dist/service/http/service-hosts.js';

/** Serves GET /nft/v1/accounts/:address/tokens from `db` on a free loopback port; resolves to its URL and a stop(). */
export async function startOldFront(db, clientId) {
  const listing = createListingEndpoints({
    reads: openSqliteListingReads(db),
    isClientId: (id) => id === clientId,
    limiter: { take() {} },
    refreshLimiter: { take() {} },
    refreshToken: () => false,
  });
  const routes = [{ method: 'GET', segments: ['nft', 'v1', 'accounts', ':address', 'tokens'] }];
  let allowed = null;
  let base = '';
  const send = (res, status, body) => {
    const text = JSON.stringify(body);
    res.writeHead(status, {
      'content-type': 'application/json; charset=utf-8',
      'content-length': Buffer.byteLength(text),
      'cache-control': 'no-store',
    });
    res.end(text);
  };
  const server = createServer(async (req, res) => {
    allowed ??= allowedServiceHosts(server.address().port, '127.0.0.1', {});
    const refused = checkServiceHost(req.headers, allowed);
    if (refused) return send(res, refused.status, refused.toBody());
    const url = new URL(req.url ?? '/', base);
    const parts = url.pathname.split('/').filter((s) => s.length > 0);
    for (const route of routes) {
      if (route.method !== req.method || route.segments.length !== parts.length) continue;
      const params = {};
      if (
        !route.segments.every((seg, i) =>
          seg.startsWith(':') ? ((params[seg.slice(1)] = decodeURIComponent(parts[i])), true) : seg === parts[i],
        )
      )
        continue;
      try {
        return send(res, 200, await listing.accountTokens(params.address, url.search, base));
      } catch (e) {
        return send(res, e.status ?? 500, e.toBody?.() ?? { error: { code: 'INTERNAL', message: String(e) } });
      }
    }
    send(res, 404, { error: { code: 'NOT_FOUND', message: 'no endpoint' } });
  });
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${server.address().port}`;
  return {
    url: base,
    stop: () =>
      new Promise((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}
