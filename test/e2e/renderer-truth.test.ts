// The dashboard tells the truth, in Debian's Chromium against the real `txdesk serve` on the congested dev chain: a
// nonce held by the fee cap says "Stuck — needs you: fee cap" with its fix inline, and the fix un-sticks it; hashes copy
// to the clipboard; a nonce cancelled from its card ends "Cancelled"; a key is replaced only through a confirmation
// naming what is lost, with the export first; a refused client ID is shown beside its field; a blocked event stream
// shows "Reconnecting…" while polling keeps the list right; no view overflows at 1280 or 900 px; axe finds no serious
// or critical violation; keyboard order and the URL hash behave; "Restart now" restarts the core.
// Screenshots for the README go to test-artifacts/screenshots/readme-*.png.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { browserSuites, launchBrowser, screenshot, type E2eBrowser, type Page } from '../support/browser/e2e-browser.js';
import { startServeProcess, type ServeProcess } from '../support/browser/e2e-serve.js';

const axeSource = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');
const sizes = [
  { name: '1280', width: 1280, height: 860 },
  { name: '900', width: 900, height: 700 },
  { name: '1920', width: 1920, height: 1080 },
] as const;

interface Rec {
  transactionHash: string;
  nonce: number;
  status?: string;
  kind?: string;
  attempt: number;
}

describe.skipIf(!browserSuites())('the dashboard tells the truth (Chromium, txdesk serve)', () => {
  let serve: ServeProcess;
  let browser: E2eBrowser;
  let page: Page;
  const pageErrors: string[] = [];

  /** The API token header for the test's own writes. */
  const auth = (): Record<string, string> => serve.auth;
  const call = async (method: string, path: string, body?: unknown) => {
    const res = await fetch(`${serve.appUrl}${path}`, {
      method,
      headers: body === undefined ? auth() : { ...auth(), 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: res.status, body: (await res.json().catch(() => null)) as unknown };
  };
  const api = async <T>(path: string): Promise<T> => {
    const r = await call('GET', path);
    expect(r.status, `${path} answered ${r.status}`).toBe(200);
    return r.body as T;
  };
  const nav = (name: 'Transactions' | 'Tokens' | 'Settings') =>
    page.getByRole('navigation', { name: 'Main' }).getByRole('button', { name, exact: true }).click();
  const shotAt = async (name: string) => {
    // Passing notices would cover the detail in the README's pictures.
    // Always the first: `.all()` numbers the buttons once, and after the first click the last number names none, so
    // its click waited out Playwright's 30 s for a button that never came (the cancel test's minute).
    const close = page.locator('.notice .icon-btn');
    for (let n = await close.count(); n > 0; n--)
      await close
        .first()
        .click({ timeout: 2_000 })
        .catch(() => {});
    const before = page.viewportSize()!;
    for (const s of sizes) {
      await page.setViewportSize({ width: s.width, height: s.height });
      await page.waitForTimeout(250);
      await screenshot(page, `readme-${name}-${s.name}`);
    }
    await page.setViewportSize(before);
  };
  /** Serious and critical axe findings on the page as it is now: "rule: target" lines. */
  const axe = async (): Promise<string[]> => {
    await page.evaluate(axeSource);
    const found = (await page.evaluate(`axe.run(document, { resultTypes: ['violations'] }).then((r) => r.violations
      .filter((v) => v.impact === 'serious' || v.impact === 'critical')
      .flatMap((v) => v.nodes.map((n) => v.id + ': ' + n.target.join(' '))))`)) as string[];
    return found;
  };
  /** Horizontal overflow of the page or of the main area, and any element that clips content it does not ellipsize. */
  const overflow = async (): Promise<string[]> =>
    (await page.evaluate(
      `(() => {
      const out = [];
      const doc = document.documentElement;
      if (doc.scrollWidth > doc.clientWidth + 1) out.push('page ' + doc.scrollWidth + '>' + doc.clientWidth);
      const main = document.querySelector('main');
      if (main && main.scrollWidth > main.clientWidth + 1) out.push('main ' + main.scrollWidth + '>' + main.clientWidth);
      for (const el of document.querySelectorAll('main *')) {
        const cs = getComputedStyle(el);
        if (!['hidden', 'clip'].includes(cs.overflowX) || cs.textOverflow === 'ellipsis' || el.closest('.sr-only')) continue;
        if (el.scrollWidth > el.clientWidth + 1) out.push((el.className || el.tagName) + ' clips ' + el.scrollWidth + '>' + el.clientWidth);
      }
      // Cells of rows and fact lists must hold their content, or it runs into the next one.
      for (const el of document.querySelectorAll('main .attempt-row > *, main .facts dd, main .group-head > *, main .stat')) {
        if (el.getClientRects().length > 0 && el.scrollWidth > el.clientWidth + 1) out.push((el.className || el.tagName) + ` +
        `' overflows ' + el.scrollWidth + '>' + el.clientWidth);
      }
      return out;
    })()`,
    )) as string[];

  /** Chromium starts while the core does (neither needs the other before the page opens); afterAll closes it either way. */
  let launching: Promise<E2eBrowser> | undefined;

  beforeAll(async () => {
    launching = launchBrowser();
    // Its failure is awaited below (or met by afterAll), not an unhandled rejection while the core starts.
    launching.catch(() => {});
    // Key routes open (where the server closes them by default): the key replacement goes through the page.
    serve = await startServeProcess({ congestion: 'high', ...({ allowKeyRoutes: true } as object) });
    // A cap just above the first fee: under high congestion the network asks more, so nonces stop at the cap.
    const r = await call('PATCH', '/api/settings', { policy: { maxFeeWei: '1200000000', timeoutMs: 3000, bumpPercent: 12.5 } });
    expect(r.status).toBe(200);
    browser = await launching;
    page = browser.page;
    page.setDefaultTimeout(60_000);
    await browser.context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: serve.appUrl });
    page.on('pageerror', (e) => pageErrors.push(e.message));
    page.on('console', (m) => {
      // Refusals the tests provoke (a bad client ID, a blocked event stream, a skeleton's 500) are logged by the browser.
      const t = m.text();
      if (m.type() === 'error' && !/40\d|50\d|ERR_FAILED|ERR_CONNECTION|EventSource/.test(t)) pageErrors.push(`${t} (${m.location().url})`);
    });
    await page.setViewportSize({ width: 1280, height: 860 });
    // The printed address, with its one-time login where the server has one: the page gets its session cookie.
    await page.goto(serve.loginUrl);
    await page.getByRole('heading', { name: 'Transactions', level: 1 }).waitFor();
  }, 300_000);

  afterAll(async () => {
    await launching?.then(
      (b) => b.close(),
      () => {},
    );
    await serve?.stop();
  });

  it('starts keyboard focus at the skip link and the navigation', async () => {
    await page.keyboard.press('Tab');
    expect(await page.evaluate('document.activeElement.textContent.trim()')).toBe('Skip to content');
    await page.keyboard.press('Tab');
    expect(await page.evaluate('document.activeElement.textContent.trim()')).toContain('Transactions');
  });

  it('says "Stuck — needs you: fee cap" with the fix inline, and the fix un-sticks the nonce', async () => {
    await page.getByTestId('generate').click();
    const card = page.locator('.group-card[data-state="needs-you"]').first();
    await card.waitFor({ timeout: 120_000 });
    expect(await card.locator('.badge').first().textContent()).toBe('Stuck — needs you: fee cap');
    await expect.poll(() => card.getByTestId('needs-you').textContent()).toMatch(/cap of 1\.2 gwei/);
    const fix = card.getByTestId('fix');
    expect(await fix.textContent()).toMatch(/^Raise the cap to [\d.]+ gwei and replace$/);
    expect(await card.getByRole('heading').textContent()).toMatch(/Nonce \d+: Stuck — needs you: fee cap/);
    const nonce = Number(await card.getAttribute('data-nonce'));
    // The row says the same word as the card.
    expect(await card.locator('.attempt-row').first().getAttribute('data-state')).toBe('needs-you');
    await card.locator('.attempt-row').first().click();
    await page.getByTestId('tx-detail').locator('.timeline-item[data-kind="replacement-skipped"]').waitFor();
    await shotAt('needs-you');

    await fix.click();
    const dialog = page.getByTestId('confirm-action');
    await dialog.getByRole('button', { name: 'Raise the cap and replace' }).click();
    // The core replaces the nonce once the cap allows; the replacement outbids the load and is mined.
    const settled = page.locator(`.group-card[data-nonce="${nonce}"]`);
    await expect.poll(() => settled.getAttribute('data-state'), { timeout: 180_000 }).toMatch(/^(mined|confirmed)$/);
    // The card says how it got there, from the records' fees: replaced above the load, the rise from the 1 gwei first fee.
    expect(await settled.getByTestId('nonce-story').textContent()).toMatch(
      /^(Mined|Confirmed) after \d+ replacements? \(\+\d+(\.\d)?%\)\.$/,
    );
    const records = (await api<Rec[]>('/api/tx')).filter((r) => r.nonce === nonce);
    expect(records.length).toBeGreaterThanOrEqual(2);
    expect(records.some((r) => r.status === 'receipt' || r.status === 'confirmation')).toBe(true);
    expect(BigInt((await api<{ policy: { maxFeeWei: string } }>('/api/settings')).policy.maxFeeWei)).toBeGreaterThan(1_200_000_000n);
    // Stats count nonces and attempts apart.
    const stat = (label: string) => page.locator('.stat', { hasText: label }).locator('.stat-value').textContent();
    expect(Number(await stat('Attempts'))).toBeGreaterThan(Number(await stat('Transactions')));
  }, 420_000);

  it('copies a hash to the clipboard, and never breaks a full one mid-string', async () => {
    const row = page.locator('.attempt-row').first();
    const hash = (await row.getAttribute('data-hash'))!;
    await row.click();
    const detail = page.getByTestId('tx-detail');
    await detail.getByRole('button', { name: `Copy transaction hash ${hash}` }).click();
    await expect.poll(() => page.evaluate('navigator.clipboard.readText()')).toBe(hash);
    // The dev chain has no public explorer, so there is no link to one.
    expect(await detail.locator('.explorer-link').count()).toBe(0);
    const broken = await page.evaluate(
      `[...document.querySelectorAll('.mono')].filter((e) => /0x[0-9a-f]{40}/i.test(e.textContent) && e.getClientRects().length > 1).length`,
    );
    expect(broken).toBe(0);
  }, 60_000);

  it('cancels an open nonce after a confirmation', async () => {
    // Room for the cancel's bump under the cap, and no automatic replacement racing it for a minute.
    await call('PATCH', '/api/settings', { policy: { maxFeeWei: '50000000000', timeoutMs: 60_000 } });
    await page.getByTestId('generate').click();
    const card = page.locator('.group-card[data-state="waiting"]').first();
    await card.waitFor();
    const nonce = await card.getAttribute('data-nonce');
    await card.getByRole('button', { name: `Cancel nonce ${nonce}` }).click();
    const dialog = page.getByTestId('confirm-action');
    expect(await dialog.textContent()).toMatch(/0 ETH transfer to yourself/);
    // The transaction was tracked with the minute above, so nothing replaces it meanwhile; the cancel is tracked with
    // 3 s, so the engine bumps it if the congested dev chain leaves it waiting (a replacement of a cancel stays a cancel).
    await call('PATCH', '/api/settings', { policy: { timeoutMs: 3000 } });
    await dialog.getByRole('button', { name: 'Cancel the transaction' }).click();
    const cancelled = page.locator(`.group-card[data-nonce="${nonce}"]`);
    await expect.poll(() => cancelled.getAttribute('data-state'), { timeout: 180_000 }).toBe('cancelled');
    await cancelled.locator('.attempt-row[data-state="cancelled"]').click();
    await shotAt('cancelled');
  }, 300_000);

  it('replaces the key only through a confirmation that names what is lost', async () => {
    await nav('Settings');
    const keyCard = page.getByRole('region', { name: 'Signing key' });
    const before = (await api<{ address: string; balanceWei: string }>('/api/key'))!;
    // An open nonce of the key (held by the cap), so the confirmation has something to warn about.
    await call('PATCH', '/api/settings', { policy: { maxFeeWei: '1200000000' } });
    const open = (await call('POST', '/api/tx')).body as Rec;
    await keyCard.getByRole('button', { name: 'Generate a new key…' }).click();
    const dialog = page.getByTestId('key-replace-dialog');
    await dialog.waitFor();
    expect((await dialog.getByTestId('replace-address').textContent())?.toLowerCase()).toBe(before.address.toLowerCase());
    expect(await dialog.getByTestId('replace-balance').textContent()).toMatch(/ETH$/);
    await expect.poll(() => dialog.getByTestId('replace-open').textContent()).toContain(String(open.nonce));
    const confirm = dialog.getByRole('button', { name: 'Replace with a new key' });
    expect(await confirm.isDisabled()).toBe(true);
    await shotAt('key-replace');
    // Escape keeps everything as it was.
    await page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'detached' });
    expect((await api<{ address: string }>('/api/key')).address).toBe(before.address);

    // Importing over the key asks the same.
    await keyCard.getByLabel('Import a private key').fill(`0x${'4c'.repeat(32)}`);
    await keyCard.getByRole('button', { name: 'Import…' }).click();
    await dialog.waitFor();
    expect(await dialog.getByRole('button', { name: 'Replace with the imported key' }).isDisabled()).toBe(true);
    await dialog.getByRole('button', { name: 'Keep it as it is' }).click();
    expect((await api<{ address: string }>('/api/key')).address).toBe(before.address);

    // Export first, where the core can export.
    await keyCard.getByRole('button', { name: 'Generate a new key…' }).click();
    await dialog.getByPlaceholder(/Passphrase for the file/).fill('short');
    await dialog.getByRole('button', { name: 'Download key file' }).click();
    await dialog.getByRole('alert').filter({ hasText: 'at least 8 characters' }).waitFor();
    await dialog.getByPlaceholder(/Passphrase for the file/).fill('correct horse battery');
    const download = page.waitForEvent('download');
    await dialog.getByRole('button', { name: 'Download key file' }).click();
    const file = await download;
    const text = readFileSync((await file.path())!, 'utf8');
    expect(JSON.parse(text).address?.toLowerCase()).toBe(before.address.replace(/^0x/, '').toLowerCase());
    await dialog.getByTestId('exported').waitFor();
    // Exported: no acknowledgement needed any more.
    expect(await dialog.getByRole('checkbox').count()).toBe(0);
    await dialog.getByRole('button', { name: 'Replace with a new key' }).click();
    await dialog.waitFor({ state: 'detached', timeout: 60_000 });
    await expect.poll(async () => (await api<{ address: string }>('/api/key')).address).not.toBe(before.address);
    await expect.poll(() => keyCard.getByTestId('key-address').textContent()).not.toBe(before.address);
  }, 180_000);

  it('refuses a garbage client ID beside its field and never calls it connected', async () => {
    const saved = (await api<{ clientId: string | null }>('/api/settings')).clientId;
    await nav('Settings');
    const card = page.getByRole('region', { name: 'Data service access' });
    const field = card.getByLabel('Client ID', { exact: true });
    await field.fill('!!! garbage');
    await card.getByRole('button', { name: 'Save', exact: true }).click();
    await expect.poll(() => field.getAttribute('aria-invalid')).toBe('true');
    const describedBy = (await field.getAttribute('aria-describedby'))!.split(' ');
    const message = await page.locator(`[id="${describedBy[0]}"]`).textContent();
    expect(message).toBeTruthy();
    expect(message).not.toMatch(/\/\^|regex|Invalid string/);
    expect((await api<{ clientId: string | null }>('/api/settings')).clientId).toBe(saved);
    expect(await card.getByTestId('service-status').textContent()).not.toContain('!!! garbage');
    // What the data service says about itself (getServiceHealth): the embedded one answers and indexes.
    await expect
      .poll(() =>
        card
          .getByText(/^Data service at http:\/\/127\.0\.0\.1:\d+: answering, (tokens indexed up to date|token index \d+ blocks behind)/)
          .count(),
      )
      .toBe(1);
    await screenshot(page, 'client-id-refused');
    await field.fill(saved ?? '');
  }, 60_000);

  it('marks each invalid policy field for eyes and screen readers, and warns before unsaved edits are lost', async () => {
    await nav('Settings');
    const policy = page.getByRole('region', { name: 'Replacement policy' });
    await policy.getByLabel('Bump per replacement (%)').fill('5');
    await policy.getByLabel('Confirmations').fill('0');
    await policy.getByRole('button', { name: 'Save' }).click();
    for (const label of ['Bump per replacement (%)', 'Confirmations']) {
      const input = policy.getByLabel(label);
      expect(await input.getAttribute('aria-invalid')).toBe('true');
      const errorId = (await input.getAttribute('aria-describedby'))!.split(' ')[0]!;
      expect(await page.locator(`[id="${errorId}"]`).textContent()).toMatch(label.startsWith('Bump') ? /12\.5/ : /1 to 1000/);
    }
    await screenshot(page, 'settings-field-errors');
    // Leaving the screen with unsaved edits asks; declining keeps the edits.
    page.once('dialog', (d) => void d.dismiss());
    await nav('Tokens');
    expect(await page.getByRole('heading', { name: 'Settings', level: 1 }).count()).toBe(1);
    page.once('dialog', (d) => void d.accept());
    await nav('Transactions');
    await page.getByRole('heading', { name: 'Transactions', level: 1 }).waitFor();
  }, 60_000);

  it('shows settings saved elsewhere (a script on the localhost API) without a reload', async () => {
    await nav('Settings');
    const field = page.getByRole('region', { name: 'Replacement policy' }).getByLabel('Replacements per nonce');
    const before = Number(await field.inputValue());
    const saved = before === 7 ? 6 : 7;
    expect((await call('PATCH', '/api/settings', { policy: { maxReplacements: saved } })).status).toBe(200);
    await expect.poll(() => field.inputValue(), { timeout: 10_000 }).toBe(String(saved));
    expect((await api<{ policy: { maxReplacements: number } }>('/api/settings')).policy.maxReplacements).toBe(saved);
    await nav('Transactions');
  }, 60_000);

  it('shows "Reconnecting…" while the event stream is blocked, and polling keeps the list right', async () => {
    await page.route('**/api/events', (route) => route.abort());
    await page.reload();
    await page.getByTestId('stream-banner').waitFor({ timeout: 30_000 });
    expect(await page.getByTestId('stream-banner').textContent()).toContain('Reconnecting…');
    expect(await page.getByTestId('stream-state').getAttribute('data-state')).toBe('down');
    await screenshot(page, 'stream-down');
    // A transaction made behind the page's back appears, and its status follows the core, with no event stream.
    const made = (await call('POST', '/api/tx')).body as Rec;
    const row = page.locator(`.attempt-row[data-hash="${made.transactionHash}"]`);
    await row.waitFor({ timeout: 20_000 });
    await expect
      .poll(
        async () => {
          const core = (await api<Rec[]>('/api/tx')).find((r) => r.transactionHash === made.transactionHash);
          return (await row.getAttribute('data-status')) === (core?.status ?? 'sent');
        },
        { timeout: 30_000 },
      )
      .toBe(true);
    await page.unroute('**/api/events');
    await page.getByTestId('stream-banner').waitFor({ state: 'detached', timeout: 30_000 });
    expect(await page.getByTestId('stream-state').getAttribute('data-state')).toBe('up');
  }, 120_000);

  it('moves through the transaction rows with the arrow keys, one Tab stop for all', async () => {
    await nav('Transactions');
    const rows = page.locator('.attempt-row');
    expect(await rows.count()).toBeGreaterThan(1);
    expect(await page.locator('.attempt-row[tabindex="0"]').count()).toBe(1);
    await page.locator('.attempt-row[tabindex="0"]').focus();
    const first = await page.evaluate('document.activeElement.dataset.hash');
    await page.keyboard.press('ArrowDown');
    const second = await page.evaluate('document.activeElement.dataset.hash');
    expect(second).not.toBe(first);
    await page.keyboard.press('Home');
    const top = await rows.first().getAttribute('data-hash');
    expect(await page.evaluate('document.activeElement.dataset.hash')).toBe(top);
    // C copies the focused row's hash (its copy button sits beside the row, out of the Tab order).
    await page.keyboard.press('c');
    await expect.poll(() => page.evaluate('navigator.clipboard.readText()')).toBe(top);
  });

  it('keeps the view and its filters in the URL: reload and Back work', async () => {
    await nav('Tokens');
    await page.locator('.token-card').first().waitFor();
    await page.getByLabel('Per page').selectOption('6');
    await expect.poll(() => page.evaluate('location.hash')).toBe('#/tokens?size=6');
    await page.reload();
    await page.getByRole('heading', { name: 'Tokens', level: 1 }).waitFor();
    expect(await page.getByLabel('Per page').inputValue()).toBe('6');
    await nav('Settings');
    await page.goBack();
    await page.getByRole('heading', { name: 'Tokens', level: 1 }).waitFor();
    // A token card opens its detail: metadata, contract, id, and for an ERC-1155 token the amount held.
    // One card, named by its contract and id: the listing may re-render (and reorder) between two reads of "the first".
    const first = page.locator('.token-card').first();
    const [contractOf, idOf] = [await first.getAttribute('data-contract'), await first.getAttribute('data-token-id')];
    const card = page.locator(`.token-card[data-contract="${contractOf}"][data-token-id="${idOf}"]`);
    const firstHeld = await card.getByTestId('token-balance').count();
    expect(firstHeld).toBe((await card.getAttribute('data-standard')) === 'ERC1155' ? 1 : 0);
    await card.locator('.token-open').click();
    const detail = page.getByTestId('token-detail');
    await detail.getByText('Contract').waitFor();
    await detail.getByText('Token ID').waitFor();
    // The listing (SPEC 2) gives no transfer block: the row is left out rather than saying so.
    expect(await detail.getByText('Transfer block').count()).toBe(0);
    expect(await detail.getByText('Held', { exact: true }).count()).toBe(firstHeld);
    await screenshot(page, 'token-detail');
    expect(await axe()).toEqual([]);
    await detail.getByRole('button', { name: 'Close' }).click();
    // Collection chips belong to the account shown and can be removed.
    const chip = page.locator('.chip[data-contract]').first();
    const contract = await chip.getAttribute('data-contract');
    await page
      .locator('.chip-wrap', { has: page.locator(`[data-contract="${contract}"]`) })
      .getByRole('button', { name: /^Remove / })
      .click();
    expect(await page.locator(`.chip[data-contract="${contract}"]`).count()).toBe(0);
  }, 120_000);

  it('fits 1280 and 900 px without clipping, and axe finds nothing serious on any view', async () => {
    const problems: string[] = [];
    for (const view of ['#/transactions', '#/tokens', '#/settings']) {
      await page.goto(`${serve.appUrl}/${view}`);
      await page.locator('main h1').waitFor();
      await page.waitForTimeout(1500);
      if (view === '#/transactions') await page.locator('.attempt-row').first().click();
      for (const s of sizes.slice(0, 2)) {
        await page.setViewportSize({ width: s.width, height: s.height });
        await page.waitForTimeout(300);
        problems.push(...(await overflow()).map((p) => `${view} @${s.width}: ${p}`));
      }
      await page.setViewportSize({ width: 1280, height: 860 });
      problems.push(...(await axe()).map((p) => `${view}: ${p}`));
    }
    // The dialogs too.
    await page.goto(`${serve.appUrl}/#/settings`);
    await page.getByRole('button', { name: 'Generate a new key…' }).click();
    await page.getByTestId('key-replace-dialog').waitFor();
    problems.push(...(await axe()).map((p) => `key dialog: ${p}`));
    await page.keyboard.press('Escape');
    await page.goto(`${serve.appUrl}/#/transactions`);
    await page.locator('.group-card').first().waitFor();
    const open = page.locator(
      '.group-card:not([data-state="mined"]):not([data-state="confirmed"]):not([data-state="cancelled"]):not([data-state="replaced"])',
    );
    if ((await open.count()) > 0) {
      await open
        .first()
        .getByRole('button', { name: /^Speed up nonce/ })
        .click();
      await page.getByTestId('confirm-action').waitFor();
      problems.push(...(await axe()).map((p) => `speed-up dialog: ${p}`));
      await page.keyboard.press('Escape');
    }
    expect(problems).toEqual([]);
  }, 180_000);

  it('says which saved settings wait for a restart, and restarts from the page', async () => {
    await page.goto(`${serve.appUrl}/#/settings`);
    const card = page.getByRole('region', { name: 'Network' });
    const network = card.getByLabel('Network', { exact: true });
    await network.fill('local-next');
    await card.getByRole('button', { name: 'Save' }).click();
    await card.getByText('Saved; applies after a restart').waitFor();
    const pending = card.getByTestId('pending-restart');
    expect(await pending.textContent()).toMatch(/Network applies after a restart/);
    await screenshot(page, 'pending-restart');
    // A restarted embedded core starts a new dev chain on a new free port, which tells a real restart apart (the dev
    // key may be the same one: with an OS keychain it is kept across starts).
    const before = (await api<{ nodeUrl: string }>('/api/app')).nodeUrl;
    await pending.getByRole('button', { name: 'Restart now' }).click();
    // The core comes back on the same port and the page reloads what it shows.
    await expect
      .poll(
        async () => {
          const r = await call('GET', '/api/app');
          return r.status === 200 ? (r.body as { nodeUrl: string }).nodeUrl : before;
        },
        { timeout: 120_000 },
      )
      .not.toBe(before);
    const after = (await api<{ address: string }>('/api/key')).address;
    await expect.poll(() => page.getByTestId('key-address').textContent(), { timeout: 60_000 }).toBe(after);
    await expect.poll(() => page.getByTestId('stream-state').getAttribute('data-state'), { timeout: 60_000 }).toBe('up');
    expect(
      await page
        .getByRole('alert')
        .filter({ hasText: /restart/i })
        .count(),
    ).toBe(0);
  }, 300_000);

  it('raised no page errors', () => {
    expect(pageErrors).toEqual([]);
  });
});
