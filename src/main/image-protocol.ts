// Electron's token image scheme (`txdesk-image://token/?url=…`) as a thin adapter over the core's image proxy, the
// same function behind GET /api/token-image: the app:// window talks IPC and has no localhost origin to load from.
// No electron import, so tests call it directly.
import { tokenImageHeaders } from '../core/create-core.js';
import type { TokenImage } from '../core/ports.js';
import { tokenImageScheme } from '../shared/desktop-api.js';
import { isTxdeskError, TxdeskError } from '../shared/errors.js';

/** The privileges the scheme is registered with before the app is ready (standard: parsed like http, with a host). */
export const tokenImageSchemePrivileges = { scheme: tokenImageScheme, privileges: { standard: true, secure: true } };

/** Answers one scheme request: the image, or the usual JSON error envelope with its status. */
export async function tokenImageResponse(fetchImage: (url: unknown) => Promise<TokenImage>, requestUrl: string): Promise<Response> {
  try {
    const url = URL.parse(requestUrl);
    if (!url || url.protocol !== `${tokenImageScheme}:` || url.hostname !== 'token') {
      throw new TxdeskError('NOT_FOUND', `Token images are at ${tokenImageScheme}://token/?url=<encoded http(s) URL>.`);
    }
    const image = await fetchImage(url.searchParams.get('url') ?? undefined);
    return new Response(new Uint8Array(image.body), { status: 200, headers: tokenImageHeaders(image) });
  } catch (e) {
    const error = isTxdeskError(e) ? e : new TxdeskError('INTERNAL', 'Something went wrong inside the app; the log has the details.');
    return new Response(JSON.stringify(error.toBody()), {
      status: error.status,
      headers: { 'content-type': 'application/json; charset=utf-8', 'x-content-type-options': 'nosniff' },
    });
  }
}
