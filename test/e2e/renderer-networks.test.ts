// Networks, in Debian's Chromium against the real `txdesk serve` on the embedded default (ethereum/local and
// ethereum/local-2): Settings lists both, one click switches without a restart (in Settings or from the header's
// network chip), Settings > Network and the congestion control follow the switch, a transaction is sent on each and both
// settle (the one left open on local keeps being watched while local-2 is shown), and what the dashboard renders is
// recorded on every DOM change: a nonce of one chain is never shown under the other chain's header.
// Screenshots go to test-artifacts/screenshots/networks-*.png.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { browserSuites, launchBrowser, screenshot, type E2eBrowser, type Page } from '../support/browser/e2e-browser.js';
import { startServeProcess, type ServeProcess } from '../support/browser/e2e-serve.js';

interface Rec {
  transactionHash: string;
  nonce: number;
  chainId?: number;
  status?: string;
}

/** What the dashboard showed at one moment: the chain in its header and the transaction hashes of its rows. */
interface Seen {
  chain: string | null;
  hashes: string[];
}

describe.skipIf(!browserSuites())('Networks: switch in Settings, send on each (Chromium, txdesk serve)', () => {
  let serve: ServeProcess;
  let browser: E2eBrowser;
  let page: Page;
  const pageErrors: string[] = [];

  const api = async <T>(path: string): Promise<T> => {
    const res = await fetch(`${serve.appUrl}${path}`, { headers: serve.auth });
    expect(res.status, `${path} answered ${res.status}`).toBe(200);
    return (await res.json()) as T;
  };
  const nav = (name: 'Transactions' | 'Tokens' | 'Settings') =>
    page.getByRole('navigation', { name: 'Main' }).getByRole('button', { name, exact: true }).click();
  const badge = () => page.getByTestId('network-badge');
  const switchTo = async (network: string) => {
    await nav('Settings');
    await page.getByRole('button', { name: `Switch to ethereum/${network}` }).click();
    await page
      .locator(`.network-row[data-network="ethereum/${network}"][data-active="true"]`)
      .waitFor()
      .catch(async (e: Error) => {
        await screenshot(page, `networks-switch-failed-${network}`);
        throw new Error(`${e.message}\nthe page says: ${await page.locator('.network-list').textContent()}\n${serve.log()}`);
      });
  };
  /** Sends a 0 ETH self-transfer with Generate and returns its record once the dashboard shows it. */
  const generate = async (): Promise<Rec> => {
    const before = new Set((await api<Rec[]>('/api/tx')).map((r) => r.transactionHash));
    await page.getByTestId('generate').click();
    return expect
      .poll(async () => (await api<Rec[]>('/api/tx')).find((r) => !before.has(r.transactionHash)), { timeout: 30_000 })
      .toBeDefined()
      .then(async () => (await api<Rec[]>('/api/tx')).find((r) => !before.has(r.transactionHash))!);
  };
  const cardState = (nonce: number) => page.locator(`.group-card[data-nonce="${nonce}"]`).getAttribute('data-state');

  beforeAll(async () => {
    serve = await startServeProcess({ congestion: 'off' });
    browser = await launchBrowser();
    page = browser.page;
    page.setDefaultTimeout(60_000);
    page.on('pageerror', (e) => pageErrors.push(e.message));
    await page.setViewportSize({ width: 1280, height: 860 });
    await page.goto(serve.loginUrl);
    await page.getByRole('heading', { name: 'Transactions', level: 1 }).waitFor();
    // Every change of the page is recorded: which chain the header names, and which transactions are on screen.
    // A string, run in the page: the test's own types have no DOM.
    await page.evaluate(`(() => {
      window.__seen = [];
      const record = () => {
        const chain = document.querySelector('[data-testid="network-badge"]')?.getAttribute('data-chain-id') ?? null;
        const hashes = [...document.querySelectorAll('.attempt-row[data-hash]')].map((e) => e.dataset.hash);
        const last = window.__seen[window.__seen.length - 1];
        if (!last || last.chain !== chain || last.hashes.join() !== hashes.join()) window.__seen.push({ chain, hashes });
      };
      new MutationObserver(record).observe(document.body, { subtree: true, childList: true, attributes: true, characterData: true });
      record();
    })()`);
  }, 300_000);

  afterAll(async () => {
    await browser?.close();
    await serve?.stop();
  });

  const onLocal: Rec[] = [];
  const onLocal2: Rec[] = [];

  it('names the network in the dashboard header and lists both networks in Settings', async () => {
    expect(await badge().textContent()).toBe('ethereum/local · chain 31337');
    await nav('Settings');
    const rows = page.locator('.network-row');
    await rows.nth(1).waitFor();
    expect(await rows.count()).toBe(2);
    expect(await rows.evaluateAll((els) => els.map((e) => [e.getAttribute('data-network'), e.getAttribute('data-active')]))).toEqual([
      ['ethereum/local', 'true'],
      ['ethereum/local-2', 'false'],
    ]);
    expect(await rows.nth(1).textContent()).toMatch(/chain 31338.*Serving/);
    await screenshot(page, 'networks-settings-before');
  });

  it('sends on local, switches to local-2 while it is open, sends there: the dashboard shows local-2 only', async () => {
    await nav('Transactions');
    onLocal.push(await generate());
    expect([onLocal[0]!.nonce, onLocal[0]!.chainId]).toEqual([0, 31337]);
    await page.locator('.group-card[data-nonce="0"]').waitFor();

    // Switched while local's transaction still waits for its confirmations.
    await switchTo('local-2');
    // Settings > Network follows: the active network's name and node, not the first network's.
    const active = page.getByTestId('active-network');
    await expect.poll(() => active.getByTestId('active-network-name').textContent()).toBe('ethereum/local-2 · chain 31338');
    const local2 = await api<{ nodeUrl: string; network: string }>('/api/app');
    expect(local2.network).toBe('local-2');
    expect(await active.getByTestId('active-node-url').textContent()).toBe(local2.nodeUrl);
    expect(await active.textContent()).toMatch(/Starts on ethereum\/local \(/);
    // The dev chain panel sets the congestion of the chain shown, and says each has its own.
    expect(await page.locator('#congestion-label').textContent()).toBe('Congestion · chain 31338');
    expect(await page.locator('#congestion-hint').textContent()).toMatch(/Per chain: each dev chain keeps its own level\./);
    await page.locator('#settings-network').scrollIntoViewIfNeeded();
    await screenshot(page, 'networks-settings-switched');
    await nav('Transactions');
    await expect.poll(() => badge().textContent()).toBe('ethereum/local-2 · chain 31338');
    await page.getByText('No transactions yet').waitFor();

    onLocal2.push(await generate());
    expect([onLocal2[0]!.nonce, onLocal2[0]!.chainId]).toEqual([0, 31338]);
    onLocal2.push(await generate());
    expect(onLocal2[1]!.nonce).toBe(1);
    await expect.poll(() => cardState(0), { timeout: 120_000 }).toBe('confirmed');
    await expect.poll(() => cardState(1), { timeout: 120_000 }).toBe('confirmed');
    expect(await page.locator('.group-card').count()).toBe(2);
    await screenshot(page, 'networks-dashboard-local-2');

    await nav('Tokens');
    expect(await badge().textContent()).toBe('ethereum/local-2 · chain 31338');
    await page.getByTestId('token-total').waitFor();
    await screenshot(page, 'networks-tokens-local-2');
  });

  it("settles local's transaction in the background, and shows it again after switching back from the header's chip", async () => {
    await nav('Transactions');
    // The chip in the header is the switcher: it lists the networks, one click switches.
    await badge().click();
    const menu = page.getByTestId('network-menu');
    await menu.locator('.network-menu-row[data-network="ethereum/local"]').waitFor();
    expect(await badge().getAttribute('aria-expanded')).toBe('true');
    await screenshot(page, 'networks-switcher-open');
    await menu.getByRole('button', { name: 'Switch to ethereum/local' }).click();
    await menu.waitFor({ state: 'detached' });
    await expect.poll(() => badge().textContent()).toBe('ethereum/local · chain 31337');
    await expect.poll(() => cardState(0), { timeout: 120_000 }).toBe('confirmed');
    expect(await page.locator('.group-card').count()).toBe(1);
    const shown = await page.locator('.attempt-row[data-hash]').evaluateAll((els) => els.map((e) => e.getAttribute('data-hash')));
    expect(shown).toContain(onLocal[0]!.transactionHash);
    await screenshot(page, 'networks-dashboard-local');
  });

  it("never rendered one chain's transaction under the other chain's header", async () => {
    const local = new Set((await api<Rec[]>('/api/tx')).map((r) => r.transactionHash));
    const local2 = new Set(onLocal2.map((r) => r.transactionHash));
    const seen = (await page.evaluate('window.__seen')) as Seen[];
    expect(seen.some((s) => s.chain === '31338' && s.hashes.length > 0)).toBe(true);
    expect(seen.some((s) => s.chain === '31337' && s.hashes.length > 0)).toBe(true);
    for (const s of seen) {
      const wrong = s.hashes.filter((h) => (s.chain === '31337' ? local2.has(h) : s.chain === '31338' ? local.has(h) : false));
      expect(wrong, `chain ${s.chain} showed ${wrong.join(', ')}`).toEqual([]);
    }
    expect(pageErrors).toEqual([]);
  });
});
