// Start-up refusals about how the core was started, not the network (that is startup-checks.ts): flags that do not
// apply, no way to keep a key, and the tracker's refusals in the app's words. Each is one line; ConfigError exits 2.
import { isTrackerError, type TrackerError } from '@txdesk/tracker';
import { ConfigError, type NetworkConfig } from './config.js';
import { VaultError, type VaultFailure } from './ports.js';
import { settingName, unknownClientIdMessage } from './startup-checks.js';

/** The network a tracker error is about, as the app was configured for it. */
export type TrackerNet = Pick<NetworkConfig, 'serviceUrl' | 'origin'> & { platform: string; network: string };

/** `--congestion`/`--block-time` shape the embedded dev chain only; on a configured network they are refused, as the service does. */
export function refuseDevchainFlags(embedded: boolean, o: { congestion?: string; blockTimeSeconds?: number }): void {
  if (embedded) return;
  const given = [o.congestion ? '--congestion' : '', o.blockTimeSeconds !== undefined ? '--block-time' : ''].filter(Boolean);
  if (given.length) {
    throw new ConfigError([
      `${given.join(' and ')} ${given.length > 1 ? 'apply' : 'applies'} only to the embedded dev chain, and ` +
        `NODE_ENDPOINT/TXDESK_SERVICE_URL point at a configured network: drop ${given.length > 1 ? 'them' : 'it'}, or ` +
        `unset both variables to use the dev chain.`,
    ]);
  }
}

/** Configured network, no PRIVATE_KEY, no keychain, no passphrase: the three ways out, in one line. */
export function noKeyPlace(keychainAllowed: boolean): string {
  const keychain = keychainAllowed
    ? 'run where an OS keychain works (Secret Service, Keychain, Credential Manager)'
    : 'unset TXDESK_KEYCHAIN=off so the OS keychain keeps it';
  return (
    `No signing key and nowhere to keep one: set PRIVATE_KEY to your key, or ${keychain}, or set TXDESK_KEY_PASSPHRASE ` +
    `(8+ characters) to keep it in an encrypted file.`
  );
}

/**
 * The tracker SDK's error in the app's words: the SDK speaks to programmers ("pass it to new TransactionTracker()", "the
 * platform and network options"); a person running the app needs the variable to change and the value to try. One
 * sentence for the link state's reason, or the start-up refusal (nothing to restart yet); never the client ID. Built
 * from the error's code and facts, never from its message.
 */
export function describeTrackerError(e: TrackerError, net: TrackerNet, when: 'running' | 'starting' = 'running'): string {
  const [url, restart] = [net.serviceUrl, when === 'running'];
  if (e.code === 'UNKNOWN_CLIENT_ID') return `${unknownClientIdMessage(net)}${restart ? ' Then restart the app.' : ''}`;
  if (e.code === 'NOT_FOUND') {
    return (
      `The data service at ${url} does not serve ${net.platform}/${net.network}: set ${settingName(net, 'network')} ` +
      `(and ${settingName(net, 'platform')}) to what ${url}/health names, or unset them to take the ` +
      `service's${restart ? ', then restart the app' : ''}.`
    );
  }
  return (
    `The tracker at ${url} is unreachable (${unreachableWhy(e)}); retrying with backoff up to 5 s apart, meanwhile ` +
    `transactions are still sent and their tracking is queued.`
  );
}

function unreachableWhy(e: TrackerError): string {
  switch (e.reason) {
    case 'CONNECTION_DROPPED':
      return 'the connection dropped';
    case 'HTTP_STATUS':
      return `the service answered HTTP ${e.httpStatus}${e.detail ? ` (${e.detail})` : ''}`;
    case 'CONNECT_FAILED':
      return e.detail ? `cannot connect (${e.detail})` : 'cannot connect';
    case 'NOT_SENT':
      return 'no connection is open';
    default:
      return 'the connection failed';
  }
}

/** A refusal of the tracker subscription during start-up (client ID, platform/network) becomes a ConfigError. */
export function startupTrackerRefusal(e: unknown, net: TrackerNet): unknown {
  if (isTrackerError(e, 'UNKNOWN_CLIENT_ID') || isTrackerError(e, 'NOT_FOUND'))
    return new ConfigError([describeTrackerError(e, net, 'starting')]);
  return e;
}

const PASSPHRASE_FAILURES: ReadonlySet<VaultFailure> = new Set(['weak-passphrase', 'wrong-passphrase']);

/** A key file that TXDESK_KEY_PASSPHRASE does not open is bad input (exit 2), not a failure at run time. */
export function keyLoadRefusal(e: unknown): unknown {
  return e instanceof VaultError && PASSPHRASE_FAILURES.has(e.reason) ? new ConfigError([e.message]) : e;
}
