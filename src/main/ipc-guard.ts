// The IPC boundary as pure functions: who may call (sender frame URL), which method (one of the contract table's
// calls), and how a failure is reported. Arguments are checked by the core itself, once. No electron import.
import { desktopMethods, type CallMethod, type DesktopApi } from '../shared/desktop-api.js';
import { ERROR_CODES, TxdeskError, type ErrorBody, type ErrorCode } from '../shared/errors.js';
import type { IpcResult } from './ipc-result.js';

/** Scheme, host and port: the origin, also for custom schemes such as app:, whose URL.origin is "null" in Node. */
export function sameOrigin(a: URL, b: URL): boolean {
  return a.protocol === b.protocol && a.host === b.host;
}

/**
 * True when an IPC message comes from the page we loaded: the app: scheme's origin (app://txdesk) or the dev server's,
 * ignoring path, query and hash. Anything else (file:// pages, another site after a navigation slipped through, an
 * iframe, about:blank) is refused.
 */
export function isTrustedSenderUrl(senderUrl: string | undefined, appUrl: string): boolean {
  if (!senderUrl) return false;
  const sender = URL.parse(senderUrl);
  const app = URL.parse(appUrl);
  if (!sender || !app || sender.protocol === 'file:' || !sender.host) return false;
  return sameOrigin(sender, app);
}

const knownCodes = new Set<string>(ERROR_CODES);

/** Maps anything thrown by the core to `{ code, message }`; unknown errors become INTERNAL without their text (it may hold secrets or paths). */
export function toIpcError(e: unknown): ErrorBody['error'] {
  if (e && typeof e === 'object' && 'code' in e && 'message' in e) {
    const { code, message } = e as { code: unknown; message: unknown };
    if (typeof code === 'string' && knownCodes.has(code) && typeof message === 'string') {
      // The fields a refused request got wrong go along as data (Electron would drop them from a thrown Error).
      const fields = e instanceof TxdeskError ? e.fields : undefined;
      return { code: code as ErrorCode, message, ...(fields ? { fields } : {}) };
    }
  }
  return { code: 'INTERNAL', message: 'Something went wrong inside the app; the log has the details.' };
}

export interface GuardedCall {
  method: string;
  senderUrl: string | undefined;
  /** False when the message came from a frame other than our window's main frame. */
  fromMainFrame: boolean;
  args: unknown[];
}

/** Checks the caller and the method, calls the core (which checks the arguments), and wraps the outcome; never throws. */
export async function invokeGuarded(
  api: DesktopApi,
  appUrl: string,
  call: GuardedCall,
  onUnexpected: (method: string, e: unknown) => void = () => {},
): Promise<IpcResult<unknown>> {
  if (!call.fromMainFrame || !isTrustedSenderUrl(call.senderUrl, appUrl)) {
    return { ok: false, error: { code: 'FORBIDDEN', message: 'This window is not allowed to call the app.' } };
  }
  if (!Object.hasOwn(desktopMethods, call.method) || desktopMethods[call.method as keyof DesktopApi].kind !== 'call') {
    return { ok: false, error: { code: 'NOT_FOUND', message: `There is no app method named ${call.method}.` } };
  }
  const method = call.method as CallMethod;
  try {
    const fn = api[method] as (...a: unknown[]) => Promise<unknown>;
    const value = await fn.apply(api, call.args);
    return { ok: true, value };
  } catch (e) {
    const error = toIpcError(e);
    if (error.code === 'INTERNAL') onUnexpected(method, e);
    return { ok: false, error };
  }
}
