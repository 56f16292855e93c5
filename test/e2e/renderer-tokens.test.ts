// The token browser in Debian's Chromium against the real `txdesk serve` on the embedded dev chain: the app's account
// holds ERC-721 (Tiles), batch-minted ERC-721 (Drops, EIP-2309) and ERC-1155 (Gems) tokens; ERC-1155 cards carry a
// balance badge; the refresh action on a card asks the data service to read the token's metadata again.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { browserSuites, launchBrowser, screenshot, type E2eBrowser, type Page } from '../support/browser/e2e-browser.js';
import { startServeProcess, type ServeProcess } from '../support/browser/e2e-serve.js';

describe.skipIf(!browserSuites())('token browser with both standards (Chromium)', () => {
  let serve: ServeProcess;
  let browser: E2eBrowser;
  let page: Page;
  const pageErrors: string[] = [];
  const answers: { method: string; path: string; status: number }[] = [];

  beforeAll(async () => {
    serve = await startServeProcess({ congestion: 'off' });
    browser = await launchBrowser();
    page = browser.page;
    page.setDefaultTimeout(60_000);
    page.on('pageerror', (e) => pageErrors.push(e.message));
    page.on('console', (m) => {
      if (m.type() === 'error') pageErrors.push(`${m.text()} (${m.location().url})`);
    });
    page.on('response', (r) => answers.push({ method: r.request().method(), path: new URL(r.url()).pathname, status: r.status() }));
    // The printed login link: sets the session cookie the API asks of the page.
    await page.goto(serve.loginUrl);
    await page.getByRole('navigation', { name: 'Main' }).getByRole('button', { name: 'Tokens', exact: true }).click();
    await page.getByRole('heading', { name: 'Tokens', level: 1 }).waitFor();
  }, 300_000);

  afterAll(async () => {
    await browser?.close();
    await serve?.stop();
  });

  it("shows the app account's tokens of both standards, with a balance badge on ERC-1155 ones", async () => {
    // 3 Tiles + 3 Drops (one ConsecutiveTransfer) + 3 Gem ids (one TransferBatch): 9 (contract, id) pairs.
    await expect.poll(() => page.getByTestId('token-total').textContent(), { timeout: 120_000 }).toBe('9 tokens');
    const cards = page.locator('.token-grid[aria-busy="false"] .token-card');
    await expect.poll(() => cards.count()).toBe(9);
    const standards = await cards.evaluateAll((els) => els.map((e) => e.getAttribute('data-standard')));
    expect(standards.filter((s) => s === 'ERC1155')).toHaveLength(3);
    expect(standards.filter((s) => s === 'ERC721')).toHaveLength(6);
    const badges = await page.locator('.token-card[data-standard="ERC1155"] [data-testid="token-balance"]').allTextContents();
    expect(badges.sort()).toEqual(['×1', '×2', '×5']);
    expect(await page.locator('.token-card[data-standard="ERC721"] [data-testid="token-balance"]').count()).toBe(0);
    // Pictures of every standard load through the core's image proxy (Gems via the EIP-1155 {id} uri).
    await expect
      .poll(
        () =>
          page
            .locator('.token-card img')
            .evaluateAll((imgs) => imgs.filter((i) => (i as unknown as { naturalWidth: number }).naturalWidth > 0).length),
        { timeout: 60_000 },
      )
      .toBe(9);
    await screenshot(page, 'tokens-both-standards');
    expect(pageErrors).toEqual([]);
  }, 300_000);

  it('refreshes a token from its card: the core asks the service (202) and the page reloads', async () => {
    for (const standard of ['ERC1155', 'ERC721']) {
      const card = page.locator(`.token-card[data-standard="${standard}"]`).first();
      const contract = (await card.getAttribute('data-contract'))!;
      const id = (await card.getAttribute('data-token-id'))!;
      await card.hover();
      const button = card.getByRole('button', { name: /^Refresh metadata of / });
      await button.click();
      await expect
        .poll(() => answers.find((a) => a.method === 'POST' && a.path === `/api/tokens/${contract}/${id}/refresh`)?.status)
        .toBe(202);
      await expect.poll(() => button.getAttribute('data-state'), { timeout: 15_000 }).toBe('idle');
    }
    await page.locator('.token-card').first().hover();
    await screenshot(page, 'tokens-refresh');
    expect(pageErrors).toEqual([]);
  }, 120_000);
});
