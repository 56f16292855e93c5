// The renderer in Debian's Chromium against the real `txdesk serve` on the congested dev chain: settings survive a
// reload, a stuck transaction is replaced and its replacement confirmed live, tokens filter and page, an imported key
// never comes back to the page, a browser without the login cookie gets the page where the token is pasted, and
// Settings shows a script the real /rpc URL and token file (never the token).
// Screenshots of each screen go to test-artifacts/screenshots.
import { readFileSync } from 'node:fs';
import { Wallet } from 'ethers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { browserSuites, launchBrowser, screenshot, type E2eBrowser, type Page } from '../support/browser/e2e-browser.js';
import { startServeProcess, type ServeProcess } from '../support/browser/e2e-serve.js';

// Accounts 1..4 of anvil's test mnemonic hold the dev chain's sample tokens.
const holders = [
  '0x70997970c51812dc3a010c7d01b50e0d17dc79c8',
  '0x3c44cdddb6a900fa2b585dd299e03d12fa4293bc',
  '0x90f79bf6eb2c4f870365e785982e1f101e93b906',
  '0x15d34aaf54267db7d7c367839aaf71a00a2c6a65',
];

describe.skipIf(!browserSuites())('renderer against txdesk serve (Chromium)', () => {
  let serve: ServeProcess;
  let browser: E2eBrowser;
  let page: Page;
  const pageErrors: string[] = [];
  /** Bodies of every finished HTTP response the page received (the event stream never finishes and is not here). */
  const bodies: { url: string; body: string }[] = [];
  /** Every request path the page made, in order. */
  const requests: string[] = [];

  const api = async <T>(path: string): Promise<T> => {
    // Reads need the API token too (the page itself rides on its login cookie).
    const res = await fetch(`${serve.appUrl}${path}`, { headers: serve.auth });
    expect(res.ok, `${path} answered ${res.status}`).toBe(true);
    return (await res.json()) as T;
  };
  const nav = (name: 'Transactions' | 'Tokens' | 'Settings') =>
    page.getByRole('navigation', { name: 'Main' }).getByRole('button', { name, exact: true }).click();

  beforeAll(async () => {
    // Key routes open: the key-import test goes through the page (with its session cookie).
    serve = await startServeProcess({ congestion: 'high', allowKeyRoutes: true });
    browser = await launchBrowser();
    page = browser.page;
    page.setDefaultTimeout(60_000);
    page.on('pageerror', (e) => pageErrors.push(e.message));
    // CSP violations and failed loads show up as console errors.
    page.on('console', (m) => {
      // The wrong-password sign-in is answered 401 on purpose; the browser logs every non-2xx fetch.
      const expected = m.text().includes('401') && m.location().url.endsWith('/api/settings/sign-in');
      if (m.type() === 'error' && !expected) pageErrors.push(`${m.text()} (${m.location().url})`);
    });
    page.on('request', (r) => requests.push(`${r.method()} ${new URL(r.url()).pathname}`));
    page.on('response', (r) => {
      if ((r.headers()['content-type'] ?? '').includes('event-stream')) return;
      r.text().then(
        (body) => bodies.push({ url: r.url(), body }),
        () => {},
      );
    });
    // The printed login link: sets the session cookie and lands on the clean URL.
    await page.goto(serve.loginUrl);
    expect(page.url()).toBe(`${serve.appUrl}/`);
    await page.getByRole('heading', { name: 'Transactions', level: 1 }).waitFor();
  }, 300_000);

  afterAll(async () => {
    await browser?.close();
    await serve?.stop();
  });

  it('keeps changed settings across a reload', async () => {
    await nav('Settings');
    const policy = page.getByRole('region', { name: 'Replacement policy' });
    // The dev chain prices by the seed preset: its first fee and timeout show, the market's speed does not; choosing
    // market pricing swaps them (nothing saved), and choosing the seed preset again brings back the values as they were.
    expect(await policy.getByLabel('Speed').count()).toBe(0);
    const firstFee = await policy.getByLabel('First fee (gwei)').inputValue();
    await policy.getByLabel('Pricing').selectOption('market');
    await policy.getByLabel('Speed').waitFor();
    expect(await policy.getByLabel('First fee (gwei)').count()).toBe(0);
    expect(await policy.getByLabel('Pending after (seconds)').count()).toBe(0);
    await policy.getByLabel('Pricing').selectOption('seed');
    expect(await policy.getByLabel('First fee (gwei)').inputValue()).toBe(firstFee);
    await policy.getByLabel('Bump per replacement (%)').fill('40');
    await policy.getByLabel('Pending after (seconds)').fill('4');
    await policy.getByLabel('Replacements per nonce').fill('8');
    await policy.getByRole('button', { name: 'Save' }).click();
    await policy.getByText('Saved').waitFor();

    await page.reload();
    await nav('Settings');
    const again = page.getByRole('region', { name: 'Replacement policy' });
    await expect.poll(() => again.getByLabel('Bump per replacement (%)').inputValue()).toBe('40');
    expect(await again.getByLabel('Pending after (seconds)').inputValue()).toBe('4');
    expect(await again.getByLabel('Replacements per nonce').inputValue()).toBe('8');
    const saved = await api<{ policy: { bumpPercent: number; timeoutMs: number; maxReplacements: number } }>('/api/settings');
    expect(saved.policy).toMatchObject({ bumpPercent: 40, timeoutMs: 4000, maxReplacements: 8 });
    await screenshot(page, 'settings', { tall: true });

    // Tool requests shows a script how to connect: this server's real /rpc and token file, never the token.
    const snippets = page.getByRole('region', { name: 'Tool requests' }).getByTestId('tool-snippets');
    await snippets.scrollIntoViewIfNeeded();
    const code = snippets.getByRole('tabpanel');
    expect(await code.innerText()).toContain(`new FetchRequest('${serve.appUrl}/rpc')`);
    await snippets.getByRole('tab', { name: 'ethers v6' }).press('ArrowRight');
    expect(await snippets.getByRole('tab', { name: 'viem' }).getAttribute('aria-selected')).toBe('true');
    expect(await code.innerText()).toContain(`http('${serve.appUrl}/rpc'`);
    expect(await snippets.innerText()).toContain(String(serve.info.apiTokenFile));
    expect(await page.locator('body').innerText()).not.toContain(serve.auth.authorization.slice('Bearer '.length));
    await screenshot(page, 'settings-tool-snippet', { tall: true });

    // A bad value is refused beside the form, in one sentence, and nothing is saved.
    await again.getByLabel('Bump per replacement (%)').fill('5');
    await again.getByRole('button', { name: 'Save' }).click();
    await again.locator('.field-error', { hasText: '12.5' }).waitFor();
    expect(await again.getByLabel('Bump per replacement (%)').getAttribute('aria-invalid')).toBe('true');
    expect((await api<{ policy: { bumpPercent: number } }>('/api/settings')).policy.bumpPercent).toBe(40);
    await screenshot(page, 'settings-invalid');
    await again.getByLabel('Bump per replacement (%)').fill('40');
    expect(await again.getByRole('alert').count()).toBe(0);
  }, 180_000);

  it('shows a stuck transaction replaced and its replacement confirmed, live', async () => {
    await nav('Transactions');
    await page.getByRole('heading', { name: 'No transactions yet' }).waitFor();
    await screenshot(page, 'transactions-empty');
    await page.getByRole('button', { name: 'High', exact: true }).and(page.locator('[aria-pressed="true"]')).waitFor();
    const generate = page.getByTestId('generate');
    for (let i = 0; i < 2; i++) {
      await expect.poll(() => generate.isEnabled()).toBe(true);
      await generate.click();
    }
    const listCallsBefore = requests.filter((r) => r === 'GET /api/tx').length;
    // Under high congestion the 1 gwei originals wait; the replacement engine outbids the load.
    await page.locator('.attempt-row[data-status="replaced"]').first().waitFor({ timeout: 240_000 });
    const settled = page.locator('.group-card', { has: page.locator('.attempt-row[data-status="replaced"]') }).filter({
      has: page.locator('.attempt-row[data-status="confirmation"]'),
    });
    await settled.first().waitFor({ timeout: 240_000 });
    await screenshot(page, 'transactions');
    // Every status change above arrived as a server-sent event: the list was never polled.
    expect(requests.filter((r) => r === 'GET /api/tx').length).toBe(listCallsBefore);

    const group = settled.first();
    const loser = (await group.locator('.attempt-row[data-status="replaced"]').first().getAttribute('data-hash'))!;
    const winner = (await group.locator('.attempt-row[data-status="confirmation"]').first().getAttribute('data-hash'))!;
    await group.locator(`.attempt-row[data-hash="${winner}"]`).click();
    const detail = page.getByTestId('tx-detail');
    await detail.getByText(winner).waitFor();
    await detail.locator('.timeline-item[data-kind="confirmation"]').waitFor();
    expect(await detail.locator('.chart-bar').count()).toBeGreaterThanOrEqual(2);
    await screenshot(page, 'transaction-detail', { tall: true });

    // The page showed what the core recorded.
    const records = await api<{ transactionHash: string; status?: string; replacedBy: string | null; nonce: number }[]>('/api/tx');
    const byHash = new Map(records.map((r) => [r.transactionHash, r]));
    expect(byHash.get(loser)?.status).toBe('replaced');
    expect(byHash.get(winner)?.status).toBe('confirmation');
    expect(byHash.get(loser)?.nonce).toBe(byHash.get(winner)?.nonce);
  }, 600_000);

  it('browses tokens with a collection filter and pages through them', async () => {
    // Keyboard: Tab reaches the navigation, Enter opens the token browser.
    await page.getByRole('navigation', { name: 'Main' }).getByRole('button', { name: 'Tokens' }).focus();
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { name: 'Tokens', level: 1 }).waitFor();
    await page.locator('.token-card').first().waitFor();
    await screenshot(page, 'tokens-own');

    const totals = await Promise.all(
      holders.map((h) => api<{ pagination: { totalCount: number } }>(`/nft/v1/accounts/${h}/tokens?size=1`)),
    );
    const best = totals.map((t, i) => ({ holder: holders[i]!, total: t.pagination.totalCount })).sort((a, b) => b.total - a.total)[0]!;
    expect(best.total).toBeGreaterThan(6);

    await page.getByLabel('Account', { exact: true }).fill(best.holder);
    await page.getByRole('button', { name: 'Show', exact: true }).click();
    await page.getByLabel('Per page').selectOption('6');
    const pages = Math.ceil(best.total / 6);
    const status = page.getByTestId('page-status');
    await expect.poll(() => status.textContent()).toBe(`Page 1 of ${pages}`);
    await expect.poll(() => page.getByTestId('token-total').textContent()).toBe(`${best.total} tokens`);
    await expect.poll(() => page.locator('.token-grid[aria-busy="false"] .token-card').count()).toBe(6);
    const firstPage = await page
      .locator('.token-card')
      .evaluateAll((els) => els.map((e) => `${e.getAttribute('data-contract')}:${e.getAttribute('data-token-id')}`));

    await page.getByRole('button', { name: 'Next →' }).click();
    await expect.poll(() => status.textContent()).toBe(`Page 2 of ${pages}`);
    await expect.poll(() => page.locator('.token-grid[aria-busy="false"] .token-card').count()).toBe(Math.min(6, best.total - 6));
    const secondPage = await page
      .locator('.token-card')
      .evaluateAll((els) => els.map((e) => `${e.getAttribute('data-contract')}:${e.getAttribute('data-token-id')}`));
    expect(secondPage.some((t) => firstPage.includes(t))).toBe(false);
    await page.getByRole('button', { name: '← Previous' }).click();
    await expect.poll(() => status.textContent()).toBe(`Page 1 of ${pages}`);

    // Images come from the tokens' metadata through the core, and actually load.
    await expect
      .poll(
        () =>
          page
            .locator('.token-card img')
            .first()
            .evaluate((img) => (img as unknown as { complete: boolean; naturalWidth: number }).naturalWidth > 0),
        { timeout: 30_000 },
      )
      .toBe(true);
    // ...through the core's proxy: the CSP allows no other image host, so the page never asks the metadata's URL itself.
    const src = await page
      .locator('.token-card img')
      .first()
      .evaluate((img) => (img as unknown as { currentSrc: string }).currentSrc);
    expect(new URL(src).pathname).toBe('/api/token-image');
    expect(new URL(src).origin).toBe(serve.appUrl);
    expect(requests).toContain('GET /api/token-image');
    await screenshot(page, 'tokens');

    // Filter to one collection: the count follows the listing and every card belongs to it.
    const chip = page.locator('.chip[data-contract]').first();
    const contract = (await chip.getAttribute('data-contract'))!;
    const expected = (
      await api<{ pagination: { totalCount: number } }>(`/nft/v1/accounts/${best.holder}/tokens?size=1&contractAddresses=${contract}`)
    ).pagination.totalCount;
    await chip.click();
    await expect.poll(() => page.getByTestId('token-total').textContent()).toBe(`${expected} token${expected === 1 ? '' : 's'}`);
    await expect.poll(() => page.locator('.token-grid[aria-busy="false"] .token-card').count()).toBe(Math.min(6, expected));
    const contracts = await page.locator('.token-card').evaluateAll((els) => els.map((e) => e.getAttribute('data-contract')));
    expect(new Set(contracts)).toEqual(new Set([contract]));
    expect(await chip.getAttribute('aria-pressed')).toBe('true');
    await screenshot(page, 'tokens-filtered');
  }, 300_000);

  it('imports a key that never comes back to the page', async () => {
    const wallet = Wallet.createRandom();
    const secret = wallet.privateKey.slice(2).toLowerCase();
    await nav('Settings');
    const keyCard = page.getByRole('region', { name: 'Signing key' });
    const field = keyCard.getByLabel('Import a private key');
    await field.fill(wallet.privateKey);
    const seenBefore = bodies.length;
    // The app already has a key: importing over it goes through the confirmation.
    await keyCard.getByRole('button', { name: 'Import…', exact: true }).click();
    const dialog = page.getByTestId('key-replace-dialog');
    await dialog.getByRole('checkbox').check();
    await dialog.getByRole('button', { name: 'Replace with the imported key' }).click();
    await expect
      .poll(() => keyCard.getByTestId('key-address').textContent(), { timeout: 120_000 })
      .toMatch(new RegExp(`^${wallet.address}$`, 'i'));
    expect(await field.inputValue()).toBe('');
    await expect.poll(() => page.locator('.notice-success').count()).toBeGreaterThan(0);
    await screenshot(page, 'settings-key-imported');

    // Not in the DOM (text, attributes, input values), not in storage, not in any response the page received.
    // A string, not a function: this project type-checks tests without the DOM library.
    const inPage = await page.evaluate(`(() => {
      const s = ${JSON.stringify(secret)};
      const html = document.documentElement.outerHTML.toLowerCase();
      const values = [...document.querySelectorAll('input, textarea')].map((e) => e.value.toLowerCase());
      const storage = JSON.stringify({ ...localStorage, ...sessionStorage }).toLowerCase();
      return html.includes(s) || values.some((v) => v.includes(s)) || storage.includes(s);
    })()`);
    expect(inPage).toBe(false);
    await expect.poll(() => bodies.length).toBeGreaterThan(seenBefore);
    const leaks = bodies.filter((b) => b.body.toLowerCase().includes(secret)).map((b) => b.url);
    expect(leaks).toEqual([]);
    const keyInfo = await api<Record<string, unknown>>('/api/key');
    expect(JSON.stringify(keyInfo).toLowerCase()).not.toContain(secret);
    expect(String(keyInfo.address).toLowerCase()).toBe(wallet.address.toLowerCase());

    // After a reload the page knows only the address.
    await page.reload();
    await nav('Settings');
    await expect.poll(() => page.getByTestId('key-address').textContent()).toMatch(new RegExp(`^${wallet.address}$`, 'i'));
    expect((await page.content()).toLowerCase()).not.toContain(secret);
  }, 300_000);

  it('switches the dev chain congestion from the panel', async () => {
    const panel = page.getByRole('region', { name: 'Dev chain' });
    await panel.getByRole('button', { name: 'Low', exact: true }).click();
    await expect.poll(() => panel.getByRole('button', { name: 'Low', exact: true }).getAttribute('aria-pressed')).toBe('true');
    expect((await api<{ congestion: string }>('/api/devchain')).congestion).toBe('low');
    // Blocks keep arriving over the event stream.
    const height = Number((await panel.getByTestId('block-height').textContent())?.replace(/,/g, ''));
    await expect
      .poll(async () => Number((await panel.getByTestId('block-height').textContent())?.replace(/,/g, '')), { timeout: 60_000 })
      .toBeGreaterThan(height);
  }, 120_000);

  it('signs in with e-mail and password, and says so when they are wrong', async () => {
    const email = `e2e-${Date.now()}@example.com`;
    const password = 'correct horse battery staple';
    const signup = await fetch(`${String(serve.info.serviceUrl)}/users/v1/signup`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email, password, name: 'E2E', organization: 'txdesk' }),
    });
    expect(signup.status).toBe(201);

    await nav('Settings');
    const card = page.getByRole('region', { name: 'Data service access' });
    await card.getByRole('tab', { name: 'Sign in' }).click();
    await card.getByLabel('E-mail').fill(email);
    await card.getByLabel('Password').fill('wrong password');
    await card.getByRole('button', { name: 'Sign in', exact: true }).click();
    await card.getByRole('alert').waitFor();
    expect(await card.getByLabel('Password').inputValue()).toBe('');
    await screenshot(page, 'settings-sign-in-error');

    await card.getByLabel('Password').fill(password);
    await card.getByRole('button', { name: 'Sign in', exact: true }).click();
    await card.getByText(email).waitFor();
    expect((await api<{ signedInAs: string | null }>('/api/settings')).signedInAs).toBe(email);
  }, 120_000);

  it('opens the paste-the-token page for a used login link; a wrong token says so, the right one gets the person in', async () => {
    // A second browser with no cookie (a restarted browser, another profile) opens the link the first one already used.
    const second = await launchBrowser();
    try {
      const p = second.page;
      p.setDefaultTimeout(60_000);
      const urls: string[] = [];
      const errors: string[] = [];
      p.on('request', (r) => urls.push(r.url()));
      p.on('pageerror', (e) => errors.push(e.message));
      // The refused link, the wrong token and the renderer's requests without a cookie are 401 on purpose.
      p.on('console', (m) => {
        if (m.type() === 'error' && !/\b401\b/.test(m.text())) errors.push(`${m.text()} (${m.location().url})`);
      });
      const tokenFile = String(serve.info.apiTokenFile);
      const token = readFileSync(tokenFile, 'utf8').trim();
      const heading = p.getByRole('heading', { name: 'Sign in to txdesk', level: 1 });
      const submit = () => p.getByRole('button', { name: 'Sign in', exact: true }).click();

      const used = await p.goto(serve.loginUrl);
      expect(used?.status()).toBe(401);
      await heading.waitFor();
      expect(await p.getByRole('alert').textContent()).toBe('This login link was already used or is wrong.');
      expect(await p.locator('main').textContent()).toContain(tokenFile);
      // Its own style applies (the CSP allows it by hash) and nothing else is loaded.
      expect(await p.evaluate('getComputedStyle(document.body).display')).toBe('grid');
      await screenshot(p, 'login-used-link');

      await p.getByLabel('API token').fill('not-the-token');
      await submit();
      await p.waitForURL(`${serve.appUrl}/login`);
      await heading.waitFor();
      expect(await p.getByRole('alert').textContent()).toBe(
        `That is not the token in ${tokenFile}; copy the whole line from that file and try again.`,
      );
      expect(await second.context.cookies()).toEqual([]);
      await screenshot(p, 'login-wrong-token');

      await p.getByLabel('API token').fill(token);
      await submit();
      await p.waitForURL(`${serve.appUrl}/`);
      await p.getByRole('heading', { name: 'Transactions', level: 1 }).waitFor();
      const [cookie] = await second.context.cookies();
      expect(cookie).toMatchObject({ name: `txdesk-session-${new URL(serve.appUrl).port}`, httpOnly: true, sameSite: 'Strict', path: '/' });
      expect(cookie!.value).not.toContain(token);

      // The cookie gone (cleared, or from an older token): the page asks for the token again instead of broken screens.
      await second.context.clearCookies();
      // The app's own poll may meet the missing cookie first and move to /login while the reload starts (Chromium then
      // reports the page detached): either way the page must end on /login, which is what is checked next.
      await p.reload().catch((e: unknown) => {
        if (!/Not attached|ERR_ABORTED|interrupted/i.test(String(e))) throw e;
      });
      await p.waitForURL(`${serve.appUrl}/login`);
      await heading.waitFor();
      expect(await p.getByRole('alert').count()).toBe(0);
      await p.getByLabel('API token').fill(token);
      await submit();
      await p.getByRole('heading', { name: 'Transactions', level: 1 }).waitFor();
      expect(p.url()).toBe(`${serve.appUrl}/`);

      expect(urls.filter((u) => u.includes(token))).toEqual([]);
      expect(errors).toEqual([]);
    } finally {
      await second.close();
    }
  }, 180_000);

  it('raised no page errors, CSP violations or failed loads', () => {
    expect(pageErrors).toEqual([]);
  });
});
