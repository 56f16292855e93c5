// Settings: the networks to switch between, data-service access, the start network, signing key, replacement policy
// and tool requests, each saved on its own.
import { ErrorState, LoadingState } from '../../components/states.js';
import { useApp } from '../../store/use-app.js';
import { ApprovalsSection } from './approvals-section.js';
import { KeySection } from './key-section.js';
import { NetworkSection } from './network-section.js';
import { NetworksSection } from './networks-section.js';
import { PolicySection } from './policy-section.js';
import { ServiceSection } from './service-section.js';

export function SettingsView() {
  const settings = useApp((s) => s.settings);
  const state = useApp((s) => s.settingsState);
  const error = useApp((s) => s.settingsError);
  const reload = useApp((s) => s.loadSettings);

  return (
    <div className="view">
      <header className="view-head">
        <div>
          <h1>Settings</h1>
          <p className="view-sub">Saved by the app and kept across restarts.</p>
        </div>
      </header>
      {!settings && state === 'error' ? (
        <ErrorState title="Could not load the settings" error={error} onRetry={() => void reload()} />
      ) : !settings ? (
        <LoadingState text="Loading settings…" />
      ) : (
        <div className="settings-grid">
          <div className="settings-column">
            <KeySection />
            <PolicySection policy={settings.policy} />
            <ApprovalsSection settings={settings} />
          </div>
          <div className="settings-column">
            <NetworksSection />
            <ServiceSection settings={settings} />
            <NetworkSection settings={settings} />
          </div>
        </div>
      )}
    </div>
  );
}
