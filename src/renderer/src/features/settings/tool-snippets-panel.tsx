// Settings > Tool requests: how a script reaches this app's /rpc, as a snippet to copy for ethers v6, viem or cast,
// filled with the app's URL, chain and token file (the token stays in its file; the page never holds it).
import { useId, useRef, useState, type KeyboardEvent } from 'react';
import { useCopy } from '../../components/copy-button.js';
import { snippetToolNames, snippetTools, toolSnippet, type SnippetTool } from '../../lib/tool-snippets.js';
import { useApp } from '../../store/use-app.js';

export function ToolSnippetsPanel() {
  const access = useApp((s) => s.info?.toolRpc ?? null);
  const chainId = useApp((s) => s.info?.chainId ?? null);
  const account = useApp((s) => s.info?.address ?? null);
  const [tool, setTool] = useState<SnippetTool>('ethers');
  const tabRefs = useRef(new Map<SnippetTool, HTMLButtonElement>());
  const id = useId();
  const tabId = (t: SnippetTool) => `${id}-tab-${t}`;
  const panelId = `${id}-panel`;

  if (!access || chainId === null) {
    return (
      <div className="tool-snippets">
        <h3 className="section-title">Connect a script</h3>
        <p className="hint">
          The app serves no localhost API now, so no tool can reach /rpc: turn the <code className="mono">localApi</code> setting on and
          restart the app.
        </p>
      </div>
    );
  }
  const snippet = toolSnippet(tool, { rpcUrl: access.url, apiTokenFile: access.apiTokenFile, chainId, account });

  /** Arrow keys, Home and End move between the tabs and choose at once (the WAI-ARIA tabs pattern). */
  const onTabKey = (e: KeyboardEvent<HTMLDivElement>) => {
    const at = snippetTools.indexOf(tool);
    const next =
      e.key === 'ArrowRight'
        ? snippetTools[(at + 1) % snippetTools.length]
        : e.key === 'ArrowLeft'
          ? snippetTools[(at + snippetTools.length - 1) % snippetTools.length]
          : e.key === 'Home'
            ? snippetTools[0]
            : e.key === 'End'
              ? snippetTools[snippetTools.length - 1]
              : undefined;
    if (!next) return;
    e.preventDefault();
    setTool(next);
    tabRefs.current.get(next)?.focus();
  };

  return (
    <div className="tool-snippets" data-testid="tool-snippets">
      <h3 className="section-title">Connect a script</h3>
      <p className="hint">
        A script signs through this app at <code className="mono">{access.url}</code> (chain {chainId}), sending the API token from{' '}
        <code className="mono">{access.apiTokenFile}</code> as <code className="mono">Authorization: Bearer</code>. The snippets read the
        token from that file when they run.
      </p>
      <div className="tool-snippets-bar">
        <div className="tabs" role="tablist" aria-label="Library" onKeyDown={onTabKey}>
          {snippetTools.map((t) => (
            <button
              key={t}
              ref={(el) => {
                if (el) tabRefs.current.set(t, el);
                else tabRefs.current.delete(t);
              }}
              type="button"
              role="tab"
              id={tabId(t)}
              aria-selected={tool === t}
              aria-controls={panelId}
              tabIndex={tool === t ? 0 : -1}
              className={`tab${tool === t ? ' is-active' : ''}`}
              onClick={() => setTool(t)}
            >
              {snippetToolNames[t]}
            </button>
          ))}
        </div>
        <CopySnippet text={snippet} what={`the ${snippetToolNames[tool]} snippet`} />
      </div>
      {/* Focusable, as a tab panel is, so the keyboard reaches the text to select it. */}
      <pre className="tool-snippet" id={panelId} role="tabpanel" aria-labelledby={tabId(tool)} tabIndex={0} data-tool={tool}>
        <code>{snippet}</code>
      </pre>
      <p className="hint">
        When the app reprices a stuck transaction, the wait still returns: the receipt of the hash the tool was handed is the mined
        attempt&rsquo;s. A request you cancel here ends the tool&rsquo;s wait with error 4001, &ldquo;User denied … cancelled in
        txdesk&rdquo;.
      </p>
      {tool === 'cast' && !account ? (
        <p className="hint">Create or import a signing key first; then the snippet names its account.</p>
      ) : null}
    </div>
  );
}

/** A labelled Copy button that says, for a moment, whether the clipboard took the text. */
function CopySnippet({ text, what }: { text: string; what: string }) {
  const { state, copy } = useCopy(text);
  return (
    <div className="tool-snippets-copy">
      <span className={state === 'failed' ? 'field-error' : 'saved'} role="status">
        {state === 'copied' ? '✓ Copied' : state === 'failed' ? 'The browser refused the clipboard; select the text instead.' : ''}
      </span>
      <button type="button" className="btn btn-secondary btn-small" aria-label={`Copy ${what}`} onClick={() => void copy()}>
        Copy
      </button>
    </div>
  );
}
