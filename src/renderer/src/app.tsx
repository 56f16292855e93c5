// The app frame: sidebar on the left, the current screen on the right, notices on top; a banner when the core is unreachable.
import { useEffect, useRef } from 'react';
import { Notices } from './components/notices.js';
import { Sidebar } from './components/sidebar.js';
import { SettingsView } from './features/settings/settings-view.js';
import { TokensView } from './features/tokens/tokens-view.js';
import { TransactionsView } from './features/transactions/transactions-view.js';
import { useApp } from './store/use-app.js';

function ConnectionBanner() {
  const state = useApp((s) => s.infoState);
  const error = useApp((s) => s.infoError);
  const retry = useApp((s) => s.loadInfo);
  if (state !== 'error') return null;
  return (
    <div className="banner" role="alert">
      <strong>The app core is not answering.</strong> {error?.message}{' '}
      <button type="button" className="link-btn" onClick={() => void retry()}>
        Retry
      </button>
    </div>
  );
}

export function App() {
  const view = useApp((s) => s.view);
  const mainRef = useRef<HTMLElement>(null);
  // Moving focus to the new screen keeps keyboard users where they expect after switching views.
  useEffect(() => {
    mainRef.current?.focus({ preventScroll: true });
  }, [view]);
  return (
    <div className="shell">
      <a className="skip-link" href="#main">
        Skip to content
      </a>
      <Sidebar />
      <main id="main" ref={mainRef} tabIndex={-1} className="main" data-view={view}>
        <ConnectionBanner />
        {view === 'transactions' ? <TransactionsView /> : view === 'tokens' ? <TokensView /> : <SettingsView />}
      </main>
      <Notices />
    </div>
  );
}
