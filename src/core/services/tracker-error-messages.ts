// The app's sentences for the tracker SDK's errors: the SDK speaks to programmers ("pass it to new TransactionTracker()",
// "the platform and network options"); a person running the app needs the variable to change and the value to try.
import type { TrackerError } from '../../sdk/index.js';
import type { NetworkConfig } from '../config.js';
import { settingName, unknownClientIdMessage } from '../startup-checks.js';

export type TrackerNet = Pick<NetworkConfig, 'serviceUrl' | 'origin'> & { platform: string; network: string };

/** One sentence for the link state's reason, or the start-up refusal (nothing to restart yet); never the client ID. */
export function describeTrackerError(e: TrackerError, net: TrackerNet, when: 'running' | 'starting' = 'running'): string {
  const [url, restart] = [net.serviceUrl, when === 'running'];
  if (e.code === 'UNKNOWN_CLIENT_ID') return `${unknownClientIdMessage(net)}${restart ? ' Then restart the app.' : ''}`;
  if (e.code === 'NOT_FOUND') return `The data service at ${url} does not serve ${net.platform}/${net.network}: set ${settingName(net, 'network')} (and ${settingName(net, 'platform')}) to what ${url}/health names, or unset them to take the service's${restart ? ', then restart the app' : ''}.`;
  const why = /: (.*?); reconnecting in/.exec(e.message)?.[1] ?? 'the connection failed';
  return `The tracker at ${url} is unreachable (${why.replace(/[a-z]+:\/\/\S+/g, '').trim()}); retrying with backoff up to 5 s apart, meanwhile transactions are still sent and their tracking is queued.`;
}
