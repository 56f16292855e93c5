// The app's settings: what the user saved (persisted through the SettingsStore port) over what is running now.
// The replacement policy and (configured mode) the client ID apply at once; node, service, platform and network on
// the next start.
import type { AppSettings, ReplacementPolicy, SettingsPatch } from '../../shared/desktop-api.js';
import { TxdeskError } from '../../shared/errors.js';
import type { StoredRule } from '../domain/approval-rules.js';
import type { PersistedSettings, SettingsStore } from '../ports.js';

export type RunningNetwork = Pick<AppSettings, 'nodeUrl' | 'serviceUrl' | 'platform' | 'network' | 'clientId'> & {
  /** Electron: whether the localhost API runs now (the `localApi` setting applies at the next start); unset headless. */
  localApi?: boolean;
};

/** Two minutes: long enough to read a request and switch windows, short enough that a tool does not hang for long. */
export const DEFAULT_APPROVAL_TIMEOUT_MS = 120_000;

export function createSettingsManager(o: {
  store: SettingsStore;
  running: RunningNetwork;
  policy: ReplacementPolicy;
  embedded: boolean;
  /** Configured mode: the tracker subscription follows a new client ID at once. */
  clientIdChanged?: (clientId: string | null) => void;
  /** The replacement policy changed: replacements skipped under the old one may go out now. */
  policyChanged?: (policy: ReplacementPolicy) => void;
}) {
  let saved: PersistedSettings = o.store.load();
  let policy: ReplacementPolicy = { ...o.policy };
  // In embedded mode the in-process service only knows its own dev account; a saved clientId is for a configured network.
  let liveClientId = o.running.clientId;

  const get = (): AppSettings => {
    const network = {
      nodeUrl: saved.nodeUrl ?? o.running.nodeUrl,
      serviceUrl: saved.serviceUrl ?? o.running.serviceUrl,
      platform: saved.platform ?? o.running.platform,
      network: saved.network ?? o.running.network,
    };
    return {
      clientId: saved.clientId !== undefined ? saved.clientId : o.running.clientId,
      signedInAs: saved.signedInAs ?? null,
      ...network,
      policy: { ...policy },
      localApi: saved.localApi ?? false,
      approvalTimeoutMs: saved.approvalTimeoutMs ?? DEFAULT_APPROVAL_TIMEOUT_MS,
      nodeUrls: { ...saved.nodeUrls },
      pendingRestart: [
        ...(Object.keys(network) as (keyof typeof network)[]).filter((k) => network[k] !== o.running[k]),
        ...(o.running.localApi !== undefined && (saved.localApi ?? false) !== o.running.localApi ? ['localApi'] : []),
      ],
    };
  };

  function persist(next: PersistedSettings): void {
    o.store.save(next);
    saved = next;
  }

  return {
    get,
    policy: () => policy,
    clientId: () => liveClientId,
    /** Saved node URLs by `platform/network` (the networks other than the start one). */
    nodeUrls: (): Record<string, string> => ({ ...saved.nodeUrls }),
    /** `patch` is checked already, at the core's face (desktop-api-validated.ts). */
    update(patch: SettingsPatch): AppSettings {
      const nextPolicy = { ...policy, ...patch.policy };
      if (BigInt(nextPolicy.maxFeeWei) < BigInt(nextPolicy.initialFeeWei)) {
        throw new TxdeskError(
          'INVALID_PARAMETER',
          'policy.maxFeeWei must be at least policy.initialFeeWei; raise the cap or lower the first fee.',
        );
      }
      const { policy: policyPatch, nodeUrls: nodeUrlsPatch, ...rest } = patch;
      const next: PersistedSettings = { ...saved, ...rest };
      if (policyPatch) next.policy = { ...saved.policy, ...policyPatch };
      if (nodeUrlsPatch) next.nodeUrls = mergeNodeUrls(saved.nodeUrls ?? {}, nodeUrlsPatch);
      persist(next);
      policy = nextPolicy;
      if (patch.policy) o.policyChanged?.(policy);
      if (patch.clientId !== undefined && !o.embedded && patch.clientId !== liveClientId) {
        liveClientId = patch.clientId;
        o.clientIdChanged?.(liveClientId);
      }
      return get();
    },
    approvalTimeoutMs: () => saved.approvalTimeoutMs ?? DEFAULT_APPROVAL_TIMEOUT_MS,
    /** The standing approval rules, persisted with the settings. */
    approvalRules: {
      load: (): StoredRule[] => saved.approvalRules ?? [],
      save: (rules: StoredRule[]) => persist({ ...saved, approvalRules: rules }),
    },
    signedIn(email: string, clientId: string): AppSettings {
      persist({ ...saved, clientId, signedInAs: email });
      if (!o.embedded && clientId !== liveClientId) {
        liveClientId = clientId;
        o.clientIdChanged?.(clientId);
      }
      return get();
    },
  };
}

/** `patch` over `saved`: a URL sets a network's node, null forgets it. */
export function mergeNodeUrls(
  saved: Readonly<Record<string, string>>,
  patch: Readonly<Record<string, string | null>>,
): Record<string, string> {
  const next = { ...saved };
  for (const [key, url] of Object.entries(patch)) {
    if (url === null) delete next[key];
    else next[key] = url;
  }
  return next;
}

export type SettingsManager = ReturnType<typeof createSettingsManager>;
