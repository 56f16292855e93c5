// The listing proxy: forwards a token query to the data service with the configured clientId and rewrites the
// pagination URLs to the app's own origin, so callers never see (or need) the clientId; and the token refresh request.
import { TxdeskError, type ErrorBody } from '../../../shared/errors.js';
import type { TokenPage } from '../../../shared/listing.js';
import type { ListingNetwork } from '../../ports.js';

/** The listing's base path on the service for `network` (null: the default, at /nft/v1 as in the seed). */
export function listingBase(serviceUrl: string, network: ListingNetwork | null): string {
  return network && !network.isDefault
    ? `${serviceUrl}/nft/v1/${encodeURIComponent(network.platform)}/${encodeURIComponent(network.network)}`
    : `${serviceUrl}/nft/v1`;
}

export interface UpstreamAnswer {
  status: number;
  body: unknown;
  /** The service's Txdesk-Indexed-* headers (how far the index it read is), passed on to the caller as they came. */
  headers?: Record<string, string>;
}

/** The listing's headers that say which index answered: the caller of the proxy sees them as the service's caller does. */
const INDEX_HEADERS = ['Txdesk-Indexed-Block', 'Txdesk-Indexed-Behind'] as const;

function indexHeaders(res: Response): Record<string, string> {
  const out: Record<string, string> = {};
  for (const h of INDEX_HEADERS) {
    const v = res.headers.get(h);
    if (v !== null) out[h] = v;
  }
  return out;
}

/**
 * `prevUrl`/`nextUrl` of the service, re-based on `appOrigin` (or left on the service) and without clientId. On the app
 * the network prefix goes too: the app's listing proxy answers for its active network at the default network's paths.
 */
export function rewritePageUrl(url: unknown, serviceUrl: string, appOrigin: string | null, network: ListingNetwork | null = null): string {
  if (typeof url !== 'string' || url === '') return '';
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return '';
  }
  u.searchParams.delete('clientId');
  if (!appOrigin) return u.toString();
  const basePath = new URL(serviceUrl).pathname.replace(/\/+$/, '');
  let path = basePath && u.pathname.startsWith(basePath) ? u.pathname.slice(basePath.length) : u.pathname;
  const prefix =
    network && !network.isDefault ? `/nft/v1/${encodeURIComponent(network.platform)}/${encodeURIComponent(network.network)}/` : null;
  if (prefix && path.startsWith(prefix)) path = `/nft/v1/${path.slice(prefix.length)}`;
  return `${appOrigin}${path}${u.search}`;
}

function missingClientId(): TxdeskError {
  return new TxdeskError('UNAUTHORIZED', 'No client ID is configured; set CLIENT_ID or sign in under Settings, then retry.');
}

/** One request to the data service (15 s at most): its answer and its body as JSON (null when it is not JSON). */
async function askService(serviceUrl: string, target: string, method: 'GET' | 'POST'): Promise<{ res: Response; body: unknown }> {
  let res: Response;
  try {
    res = await fetch(target, { method, headers: { accept: 'application/json' }, signal: AbortSignal.timeout(15_000) });
  } catch {
    throw new TxdeskError(
      'UPSTREAM_UNAVAILABLE',
      `The data service at ${serviceUrl} could not be reached; check that it runs and TXDESK_SERVICE_URL points at it.`,
    );
  }
  return { res, body: (await res.json().catch(() => null)) as unknown };
}

/** The service's error envelope as it was, or null when the body is not one. */
function upstreamError(body: unknown): { code: string; message: string } | null {
  const err = (body as Partial<ErrorBody> | null)?.error;
  return err && typeof err.code === 'string' && typeof err.message === 'string' ? { code: err.code, message: err.message } : null;
}

/**
 * Asks the data service to read a token's metadata URI again (POST .../tokens/{id}/refresh, 202). The service's own
 * refusals (404 unknown token, 429 with its sentence) come back as TxdeskErrors with the same code and status.
 */
export async function requestTokenRefresh(o: {
  serviceUrl: string;
  network?: ListingNetwork | null;
  clientId: string | null;
  contract: string;
  tokenId: string;
}): Promise<void> {
  if (!o.clientId) throw missingClientId();
  const target =
    `${listingBase(o.serviceUrl, o.network ?? null)}/contracts/${encodeURIComponent(o.contract)}/tokens/${encodeURIComponent(o.tokenId)}/refresh` +
    `?clientId=${encodeURIComponent(o.clientId)}`;
  const { res, body } = await askService(o.serviceUrl, target, 'POST');
  if (res.status === 202) return;
  const err = upstreamError(body);
  if (err) throw new TxdeskError(err.code as TxdeskError['code'], err.message, res.status);
  throw new TxdeskError('UPSTREAM_UNAVAILABLE', `The data service answered HTTP ${res.status} to a token refresh; try again later.`);
}

export async function fetchTokenPage(o: {
  serviceUrl: string;
  /** The network whose listing is asked for; null or absent: the service's default. */
  network?: ListingNetwork | null;
  clientId: string | null;
  address: string;
  /** The caller's query (page, size, order...), passed on as is so the service's own validation answers. */
  query: URLSearchParams;
  appOrigin: string | null;
}): Promise<UpstreamAnswer> {
  if (!o.clientId) throw missingClientId();
  const q = new URLSearchParams(o.query);
  q.delete('clientId');
  q.set('clientId', o.clientId);
  const target = `${listingBase(o.serviceUrl, o.network ?? null)}/accounts/${encodeURIComponent(o.address)}/tokens?${q.toString()}`;
  const { res, body } = await askService(o.serviceUrl, target, 'GET');
  const headers = indexHeaders(res);
  if (!res.ok) {
    const err = upstreamError(body);
    if (err) return { status: res.status, body: { error: err }, headers };
    throw new TxdeskError('UPSTREAM_UNAVAILABLE', `The data service answered HTTP ${res.status}; try again later.`);
  }
  const page = body as TokenPage | null;
  if (!page || !Array.isArray(page.data) || !page.pagination)
    throw new TxdeskError('UPSTREAM_UNAVAILABLE', 'The data service sent a listing this app does not understand.');
  return {
    status: 200,
    headers,
    body: {
      data: page.data,
      pagination: {
        totalCount: page.pagination.totalCount,
        prevUrl: rewritePageUrl(page.pagination.prevUrl, o.serviceUrl, o.appOrigin, o.network ?? null),
        nextUrl: rewritePageUrl(page.pagination.nextUrl, o.serviceUrl, o.appOrigin, o.network ?? null),
      },
    } satisfies TokenPage,
  };
}
