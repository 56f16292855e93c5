// A client ID is saved only once the data service it is for accepts it: a typo would otherwise surface later as a
// tracker that never connects. The service asked is the one the settings will use (the patch's, the saved, the running).
import type { AppSettings } from '../../shared/desktop-api.js';
import { settingsPatchSchema } from '../../shared/desktop-schemas.js';
import { TxdeskError } from '../../shared/errors.js';
import { checkClientId } from '../startup-checks.js';

export function clientIdGuard(o: { running: () => AppSettings; check?: typeof checkClientId }) {
  const check = o.check ?? checkClientId;
  return async (patch: unknown): Promise<void> => {
    const p = settingsPatchSchema.safeParse(patch);
    // An invalid patch is refused by the settings' own validation, with its own message; null signs out.
    if (!p.success || typeof p.data.clientId !== 'string') return;
    const serviceUrl = (p.data.serviceUrl ?? o.running().serviceUrl).replace(/\/+$/, '');
    const answer = await check(serviceUrl, p.data.clientId);
    if (answer === 'unknown') {
      throw new TxdeskError(
        'INVALID_PARAMETER',
        `The data service at ${serviceUrl} does not know this client ID; copy the ClientId that \`txdesk account:describe\` ` +
          `shows for an account on that service, or sign in instead.`,
      );
    }
    // A service URL given in the same patch that answers nothing is bad input (400); the running service down is 502.
    if (answer === 'unreachable' && p.data.serviceUrl !== undefined) {
      throw new TxdeskError(
        'INVALID_PARAMETER',
        `The client ID could not be checked: no txdesk data service answers at ${serviceUrl}; fix serviceUrl, then save again.`,
      );
    }
    if (answer === 'unreachable') {
      throw new TxdeskError(
        'UPSTREAM_UNAVAILABLE',
        `The client ID could not be checked: the data service at ${serviceUrl} is not reachable; start it, then save again.`,
      );
    }
  };
}
