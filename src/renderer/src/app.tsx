// The app frame: skip link, sidebar, the current screen, notices, the dialog for a tool's request waiting for approval;
// banners when the core is unreachable or the live event stream is down (the list is polled meanwhile).
import { useEffect, useRef } from 'react';
import { Notices } from './components/notices.js';
import { Sidebar } from './components/sidebar.js';
import { ApprovalDialog } from './features/approvals/approval-dialog.js';
import { SettingsView } from './features/settings/settings-view.js';
import { TokensView } from './features/tokens/tokens-view.js';
import { TransactionsView } from './features/transactions/transactions-view.js';
import { useApp } from './store/use-app.js';

function ConnectionBanner() {
  const state = useApp((s) => s.infoState);
  const error = useApp((s) => s.infoError);
  const retry = useApp((s) => s.loadInfo);
  const stream = useApp((s) => s.stream);
  if (state === 'error') {
    return (
      <div className="banner banner-danger" role="alert">
        <strong>The app core is not answering.</strong> {error?.message}{' '}
        <button type="button" className="link-btn" onClick={() => void retry()}>
          Retry
        </button>
      </div>
    );
  }
  if (stream === 'down') {
    return (
      <div className="banner banner-warning" role="status" data-testid="stream-banner">
        <strong>Reconnecting…</strong> Live updates from the app are interrupted; the list is re-read every few seconds until they are back.
      </div>
    );
  }
  return null;
}

export function App() {
  const view = useApp((s) => s.view);
  const mainRef = useRef<HTMLElement>(null);
  const first = useRef(true);
  // Moving focus to the new screen keeps keyboard users where they expect after switching views; on the first screen
  // focus stays at the top of the page, so Tab starts at the skip link and the navigation.
  // biome-ignore lint/correctness/useExhaustiveDependencies: `view` is the trigger: focus moves when the screen changes.
  useEffect(() => {
    if (first.current) {
      first.current = false;
      return;
    }
    mainRef.current?.focus({ preventScroll: true });
  }, [view]);
  return (
    <div className="shell">
      <a className="skip-link" href="#main" onClick={(e) => (e.preventDefault(), mainRef.current?.focus())}>
        Skip to content
      </a>
      <Sidebar />
      <main id="main" ref={mainRef} tabIndex={-1} className="main" data-view={view}>
        <ConnectionBanner />
        {view === 'transactions' ? <TransactionsView /> : view === 'tokens' ? <TokensView /> : <SettingsView />}
      </main>
      <Notices />
      <ApprovalDialog />
    </div>
  );
}
