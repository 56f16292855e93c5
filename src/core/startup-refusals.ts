// Start-up refusals about how the core was started, not the network (that is startup-checks.ts): flags that do not
// apply, no way to keep a key, and the tracker's refusals in the app's words. Each is one line; ConfigError exits 2.
import { isTrackerError } from '../sdk/index.js';
import { ConfigError } from './config.js';
import { describeTrackerError, type TrackerNet } from './services/tracker-error-messages.js';

/** `--congestion`/`--block-time` shape the embedded dev chain only; on a configured network they are refused, as the service does. */
export function refuseDevchainFlags(embedded: boolean, o: { congestion?: string; blockTimeSeconds?: number }): void {
  if (embedded) return;
  const given = [o.congestion ? '--congestion' : '', o.blockTimeSeconds !== undefined ? '--block-time' : ''].filter(Boolean);
  if (given.length) {
    throw new ConfigError([
      `${given.join(' and ')} ${given.length > 1 ? 'apply' : 'applies'} only to the embedded dev chain, and NODE_ENDPOINT/TXDESK_SERVICE_URL point at a configured network: drop ${given.length > 1 ? 'them' : 'it'}, or unset both variables to use the dev chain.`,
    ]);
  }
}

/** Configured network, no PRIVATE_KEY, no keychain, no passphrase: the three ways out, in one line. */
export function noKeyPlace(keychainAllowed: boolean): string {
  const keychain = keychainAllowed ? 'run where an OS keychain works (Secret Service, Keychain, Credential Manager)' : 'unset TXDESK_KEYCHAIN=off so the OS keychain keeps it';
  return `No signing key and nowhere to keep one: set PRIVATE_KEY to your key, or ${keychain}, or set TXDESK_KEY_PASSPHRASE (8+ characters) to keep it in an encrypted file.`;
}

/** A refusal of the tracker subscription during start-up (client ID, platform/network) becomes a ConfigError. */
export function startupTrackerRefusal(e: unknown, net: TrackerNet): unknown {
  if (isTrackerError(e, 'UNKNOWN_CLIENT_ID') || isTrackerError(e, 'NOT_FOUND')) return new ConfigError([describeTrackerError(e, net, 'starting')]);
  return e;
}

/** A key file that TXDESK_KEY_PASSPHRASE does not open is bad input (exit 2), not a failure at run time. */
export function keyLoadRefusal(e: unknown): unknown {
  return e instanceof Error && /TXDESK_KEY_PASSPHRASE/.test(e.message) ? new ConfigError([e.message]) : e;
}
