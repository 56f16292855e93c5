// Send, in Debian's Chromium against the real `txdesk serve` on the embedded dev chain: ETH from the Send form (checked
// before sending, amounts written as the sidebar writes them, Max leaving room for the fee at the cap, the button naming
// a sum only while it can be sent, a refusal of the core shown inline, the recipient's balance rises by the amount once
// mined), and a sample ERC-721 and ERC-1155 token the dev account holds from the token browser (the card says "being
// sent" until the listing moves it; the recipient owns it in the listing afterwards, read through the app's listing
// proxy).
// Screenshots at 1280x860 go to test-artifacts/screenshots/send-*.png (docs/screenshots/ keeps the chosen ones).
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { Wallet } from 'ethers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { browserSuites, launchBrowser, screenshot, type E2eBrowser, type Page } from '../support/browser/e2e-browser.js';
import { startServeProcess, type ServeProcess } from '../support/browser/e2e-serve.js';

const axeSource = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

interface ListedToken {
  id: string;
  owner: string;
  balance?: string;
  contract: { address: string; standard?: string };
}
interface Rec {
  transactionHash: string;
  nonce: number;
}

describe.skipIf(!browserSuites())('Send: ETH and tokens (Chromium, txdesk serve)', () => {
  let serve: ServeProcess;
  let browser: E2eBrowser;
  let page: Page;
  const pageErrors: string[] = [];

  const call = async (method: string, path: string, body?: unknown) => {
    const res = await fetch(`${serve.appUrl}${path}`, {
      method,
      headers: body === undefined ? serve.auth : { ...serve.auth, 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: res.status, body: (await res.json().catch(() => null)) as unknown };
  };
  const api = async <T>(path: string): Promise<T> => {
    const r = await call('GET', path);
    expect(r.status, `${path} answered ${r.status}`).toBe(200);
    return r.body as T;
  };
  /** eth_getBalance straight from the dev chain's node, in wei. */
  const balanceOf = async (address: string): Promise<bigint> => {
    const { nodeUrl } = await api<{ nodeUrl: string }>('/api/app');
    const res = await fetch(nodeUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_getBalance', params: [address, 'latest'] }),
    });
    return BigInt(((await res.json()) as { result: string }).result);
  };
  /** What an account holds, through the app's listing proxy. */
  const listing = async (owner: string): Promise<ListedToken[]> =>
    (await api<{ data: ListedToken[] }>(`/nft/v1/accounts/${owner}/tokens?size=200`)).data;
  const nav = (name: 'Transactions' | 'Tokens') =>
    page.getByRole('navigation', { name: 'Main' }).getByRole('button', { name, exact: true }).click();
  const axe = async (): Promise<string[]> => {
    await page.evaluate(axeSource);
    return (await page.evaluate(`axe.run(document, { resultTypes: ['violations'] }).then((r) => r.violations
      .filter((v) => v.impact === 'serious' || v.impact === 'critical')
      .flatMap((v) => v.nodes.map((n) => v.id + ': ' + n.target.join(' '))))`)) as string[];
  };
  const closeNotices = async () => {
    const close = page.locator('.notice .icon-btn');
    for (let n = await close.count(); n > 0; n--)
      await close
        .first()
        .click({ timeout: 2_000 })
        .catch(() => {});
  };

  beforeAll(async () => {
    serve = await startServeProcess({ congestion: 'off' });
    browser = await launchBrowser();
    page = browser.page;
    page.setDefaultTimeout(60_000);
    page.on('pageerror', (e) => pageErrors.push(e.message));
    page.on('console', (m) => {
      // The refusal this test provokes (422) is logged by the browser as a failed request.
      if (m.type() === 'error' && !/\b4\d\d\b/.test(m.text())) pageErrors.push(`${m.text()} (${m.location().url})`);
    });
    await page.setViewportSize({ width: 1280, height: 860 });
    // The printed login link: sets the session cookie the API asks of the page.
    await page.goto(serve.loginUrl);
    await page.getByRole('heading', { name: 'Transactions', level: 1 }).waitFor();
  }, 300_000);

  afterAll(async () => {
    await browser?.close();
    await serve?.stop();
  });

  it("sends ETH from the Send form: checked first, the core's refusal inline, then the recipient's balance rises by the amount", async () => {
    const recipient = Wallet.createRandom().address; // checksummed, as people paste them
    expect(await balanceOf(recipient)).toBe(0n);
    await page.getByTestId('send').click();
    const dialog = page.getByTestId('send-dialog');
    await dialog.waitFor();
    // Focus starts in the form, on the recipient.
    expect(await page.evaluate('document.activeElement.getAttribute("name")')).toBe('to');

    // Checked before sending: every invalid field marked at once, with its sentence tied to it.
    await dialog.getByLabel('Recipient').fill(recipient.slice(0, 30));
    await dialog.getByLabel('Amount (ETH)').fill('0,5');
    await dialog.getByLabel('Data (optional)').fill('0x123');
    await dialog.getByTestId('send-submit').click();
    for (const [label, sentence] of [
      ['Recipient', /has 28 hex digits after 0x; an address has 40/],
      ['Amount (ETH)', /with a point for decimals/],
      ['Data (optional)', /even number of hex digits/],
    ] as const) {
      const field = dialog.getByLabel(label);
      expect(await field.getAttribute('aria-invalid')).toBe('true');
      const described = (await field.getAttribute('aria-describedby'))!.split(' ');
      const texts = await Promise.all(described.map((id) => page.locator(`[id="${id}"]`).textContent()));
      expect(texts.join(' ')).toMatch(sentence);
    }
    expect(await axe()).toEqual([]);

    // A call the chain would revert: the core refuses it before signing, and the form shows its sentence.
    const contract = (await listing((await api<{ address: string }>('/api/app')).address))[0]!.contract.address;
    const before = (await api<Rec[]>('/api/tx')).length;
    await dialog.getByLabel('Recipient').fill(contract);
    await dialog.getByLabel('Amount (ETH)').fill('');
    await dialog.getByLabel('Data (optional)').fill('0xdeadbeef');
    await dialog.getByTestId('send-submit').click();
    const refusal = dialog.getByTestId('send-refusal');
    await refusal.waitFor();
    expect((await refusal.textContent())!.length).toBeGreaterThan(10);
    expect(await refusal.getAttribute('role')).toBe('alert');
    expect((await api<Rec[]>('/api/tx')).length).toBe(before);

    // Amounts: the hint says the balance as the sidebar does; the button names a sum only while it can be sent; Max
    // fills in the balance less 21,000 gas at the fee cap, exactly, and the form takes it.
    await dialog.getByLabel('Recipient').fill(recipient);
    await dialog.getByLabel('Data (optional)').fill('');
    const sidebarBalance = (await page.locator('.account-balance').textContent())!;
    expect(sidebarBalance).toMatch(/^[\d,]+(\.\d{1,4})? ETH$/);
    const amountHint = async () => {
      const described = (await dialog.getByLabel('Amount (ETH)').getAttribute('aria-describedby'))!.split(' ');
      return (await Promise.all(described.map((id) => page.locator(`[id="${id}"]`).textContent()))).join(' ');
    };
    expect(await amountHint()).toContain(`This account holds ${sidebarBalance}`);
    await dialog.getByLabel('Amount (ETH)').fill('1000000');
    expect(await dialog.getByTestId('send-submit').textContent()).toBe('Send');
    await dialog.getByLabel('Amount (ETH)').fill('0.000000000000000001');
    expect(await dialog.getByTestId('send-submit').textContent()).toBe('Send 1 wei');
    const { balanceWei } = await api<{ balanceWei: string }>('/api/key');
    const { policy } = await api<{ policy: { maxFeeWei: string } }>('/api/settings');
    await dialog.getByTestId('send-max').click();
    const maxWei = BigInt(balanceWei) - 21_000n * BigInt(policy.maxFeeWei);
    const [whole = '0', frac = ''] = (await dialog.getByLabel('Amount (ETH)').inputValue()).split('.');
    expect(BigInt(whole) * 10n ** 18n + BigInt(frac.padEnd(18, '0'))).toBe(maxWei);
    expect(await dialog.getByTestId('send-submit').textContent()).toMatch(/^Send [\d,.]+ ETH$/);
    await screenshot(page, 'send-max-1280');
    // The whole balance leaves nothing for the fee: the form says so before anything is sent.
    await dialog
      .getByLabel('Amount (ETH)')
      .fill(`${BigInt(balanceWei) / 10n ** 18n}.${(BigInt(balanceWei) % 10n ** 18n).toString().padStart(18, '0')}`);
    expect(await dialog.getByTestId('send-submit').textContent()).toBe('Send');
    await dialog.getByTestId('send-submit').click();
    expect(await amountHint()).toMatch(
      /That leaves too little for the fee: 21,000 gas at up to the fee cap of [\d.]+ gwei may cost [\d.]+ ETH, so at most [\d,.]+ ETH can be sent/,
    );

    // Now a real one.
    await dialog.getByLabel('Amount (ETH)').fill('0.125');
    expect(await dialog.getByTestId('send-submit').textContent()).toBe('Send 0.125 ETH');
    await page.evaluate('document.activeElement.blur()');
    await screenshot(page, 'send-1280');
    await dialog.getByTestId('send-submit').click();
    await dialog.waitFor({ state: 'detached' });

    // Like any other nonce on the dashboard, saying what it does.
    const card = page.locator('.group-card', { has: page.getByTestId('tx-what').filter({ hasText: '0.125 ETH' }) });
    await card.waitFor();
    expect(await card.getByTestId('tx-what').textContent()).toMatch(new RegExp(`^0\\.125 ETH to ${recipient.slice(0, 6)}`, 'i'));
    await expect.poll(() => card.getAttribute('data-state'), { timeout: 120_000 }).toMatch(/^(mined|confirmed)$/);
    await expect.poll(() => balanceOf(recipient), { timeout: 60_000 }).toBe(125_000_000_000_000_000n);
    await closeNotices();
    await screenshot(page, 'send-dashboard-1280');
    expect(pageErrors).toEqual([]);
  }, 300_000);

  it('under market pricing the form asks for a speed (the policy’s own until picked) and the request carries it', async () => {
    expect((await call('PATCH', '/api/settings', { policy: { pricing: 'market', speed: 'normal' } })).status).toBe(200);
    try {
      await nav('Transactions');
      await page.getByTestId('send').click();
      const dialog = page.getByTestId('send-dialog');
      await dialog.waitFor();
      const speed = dialog.getByRole('group', { name: 'Speed' });
      expect(await speed.getByRole('button', { pressed: true }).textContent()).toBe('Normal');
      expect(await dialog.locator('.send-fee-note').textContent()).toMatch(/^Priced from recent blocks at the normal speed/);
      await speed.getByRole('button', { name: 'Fast' }).click();
      expect(await speed.getByRole('button', { pressed: true }).textContent()).toBe('Fast');
      expect(await dialog.locator('.send-fee-note').textContent()).toMatch(/^Priced from recent blocks at the fast speed/);
      const recipient = Wallet.createRandom().address;
      await dialog.getByLabel('Recipient').fill(recipient);
      await dialog.getByLabel('Amount (ETH)').fill('0.01');
      await screenshot(page, 'send-speed-1280');
      await dialog.getByTestId('send-submit').click();
      await dialog.waitFor({ state: 'detached' });
      const sent = (await api<Array<Rec & { to?: string | null; pricedBy?: { by: string; speed?: string } }>>('/api/tx')).find(
        (r) => r.to?.toLowerCase() === recipient.toLowerCase(),
      );
      expect(sent?.pricedBy).toMatchObject({ by: 'market', speed: 'fast' });
      await closeNotices();
    } finally {
      expect((await call('PATCH', '/api/settings', { policy: { pricing: 'seed' } })).status).toBe(200);
    }
    // Under the seed preset there is no speed to ask for.
    await page.getByTestId('send').click();
    const dialog = page.getByTestId('send-dialog');
    await dialog.waitFor();
    expect(await dialog.getByRole('group', { name: 'Speed' }).count()).toBe(0);
    expect(await dialog.locator('.send-fee-note').textContent()).toMatch(/^Signed at /);
    await dialog.getByRole('button', { name: 'Close' }).click();
    await dialog.waitFor({ state: 'detached' });
    expect(pageErrors).toEqual([]);
  }, 300_000);

  /**
   * Sends `amount` of the first card of `standard` in `collection` to a fresh address from the token browser; returns
   * what was sent. Tiles, not Drops: the batch-minted sample has transferFrom only, so its safeTransferFrom reverts.
   */
  async function sendToken(standard: 'ERC721' | 'ERC1155', collection: string, amount: string | null, shot: string | null) {
    const owner = (await api<{ address: string }>('/api/app')).address.toLowerCase();
    const recipient = Wallet.createRandom().address;
    await nav('Tokens');
    await page.getByRole('heading', { name: 'Tokens', level: 1 }).waitFor();
    // The fullest ERC-1155 balance, so an amount below it leaves some behind.
    const cards = page.locator(`.token-grid[aria-busy="false"] .token-card[data-standard="${standard}"]`, { hasText: collection });
    await expect.poll(() => cards.count(), { timeout: 120_000 }).toBeGreaterThan(0);
    let card = cards.first();
    if (standard === 'ERC1155') {
      const badges = await cards.locator('[data-testid="token-balance"]').allTextContents();
      const most = badges.map((b) => Number(b.replace('×', ''))).reduce((m, n, i, all) => (n > all[m]! ? i : m), 0);
      card = cards.nth(most);
    }
    const contract = (await card.getAttribute('data-contract'))!;
    const id = (await card.getAttribute('data-token-id'))!;
    const held = (await listing(owner)).find((t) => t.contract.address === contract && t.id === id)!;
    expect(held).toBeDefined();

    await card.locator('.token-open').click();
    await page.getByTestId('token-detail').getByTestId('token-send').click();
    const dialog = page.getByTestId('token-send-dialog');
    await dialog.waitFor();
    // The holder itself is refused before anything is sent.
    await dialog.getByLabel('Recipient').fill(owner);
    await dialog.getByTestId('token-send-submit').click();
    expect(await dialog.getByLabel('Recipient').getAttribute('aria-invalid')).toBe('true');
    await dialog.getByLabel('Recipient').fill(recipient);
    if (amount !== null) {
      await dialog.getByLabel('Amount').fill(String(Number(held.balance) + 1));
      await dialog.getByTestId('token-send-submit').click();
      expect(await dialog.getByLabel('Amount').getAttribute('aria-invalid')).toBe('true');
      await dialog.getByLabel('Amount').fill(amount);
    }
    expect(await axe()).toEqual([]);
    await dialog.getByTestId('token-send-submit').click();
    await dialog.waitFor({ state: 'detached' });

    // Being sent, with its transaction's state, until the listing moves it.
    const sent = page.locator(`.token-card[data-contract="${contract}"][data-token-id="${id}"]`);
    const badge = sent.getByTestId('token-sending');
    await badge.waitFor();
    expect(await badge.textContent()).toMatch(/^Being sent · (Sending|Waiting|Stuck — replacing|Mined|Confirmed)$/);
    if (shot) {
      await closeNotices();
      // No card under the pointer (a hovered card lifts and shows its refresh button).
      await page.mouse.move(1, 1);
      await page.waitForTimeout(300);
      await screenshot(page, shot);
    }
    return { owner, recipient: recipient.toLowerCase(), contract, id, held, sent, badge };
  }

  it('refuses a transfer the contract would revert inline, stores nothing and marks nothing', async () => {
    await nav('Tokens');
    const card = page.locator('.token-grid[aria-busy="false"] .token-card[data-standard="ERC721"]', { hasText: 'Drops' }).first();
    await card.waitFor({ timeout: 120_000 });
    const before = (await api<Rec[]>('/api/tx')).length;
    await card.locator('.token-open').click();
    await page.getByTestId('token-detail').getByTestId('token-send').click();
    const dialog = page.getByTestId('token-send-dialog');
    await dialog.getByLabel('Recipient').fill(Wallet.createRandom().address);
    await dialog.getByTestId('token-send-submit').click();
    const refusal = dialog.getByTestId('send-refusal');
    await refusal.waitFor();
    expect(await refusal.textContent()).toMatch(/revert.*may not implement safeTransferFrom/s);
    await closeNotices();
    await screenshot(page, 'token-send-refused-1280');
    expect((await api<Rec[]>('/api/tx')).length).toBe(before);
    await dialog.getByRole('button', { name: 'Close' }).click();
    await dialog.waitFor({ state: 'detached' });
    expect(await card.getByTestId('token-sending').count()).toBe(0);
  }, 180_000);

  it('sends a sample ERC-721 token: being sent, then the recipient owns it in the listing and it leaves the grid', async () => {
    const s = await sendToken('ERC721', 'Tiles', null, 'token-send-1280');
    await expect
      .poll(async () => (await listing(s.recipient)).some((t) => t.contract.address === s.contract && t.id === s.id), { timeout: 120_000 })
      .toBe(true);
    expect((await listing(s.owner)).some((t) => t.contract.address === s.contract && t.id === s.id)).toBe(false);
    // The page follows the listing: the card is gone, and so is "being sent".
    await s.sent.waitFor({ state: 'detached', timeout: 60_000 });
    // On the dashboard, the nonce says which call it made.
    await nav('Transactions');
    const what = page.getByTestId('tx-what').filter({ hasText: '0x42842e0e' }).first();
    expect(await what.textContent()).toMatch(new RegExp(`safeTransferFrom \\(ERC-721\\) on .*: token ${s.id} to`));
    expect(pageErrors).toEqual([]);
  }, 300_000);

  it('sends 2 of a sample ERC-1155 token: the recipient holds 2 in the listing, the owner the rest', async () => {
    const s = await sendToken('ERC1155', 'Gems', '2', 'token-send-1155-1280');
    const listed = async (owner: string) =>
      (await listing(owner)).find((t) => t.contract.address === s.contract && t.id === s.id)?.balance ?? null;
    await expect.poll(() => listed(s.recipient), { timeout: 120_000 }).toBe('2');
    expect(await listed(s.owner)).toBe(String(Number(s.held.balance) - 2));
    // The card stays (some are left), with its new balance and without "being sent".
    await s.badge.waitFor({ state: 'detached', timeout: 60_000 });
    await expect.poll(() => s.sent.getByTestId('token-balance').textContent()).toBe(`×${Number(s.held.balance) - 2}`);
    expect(pageErrors).toEqual([]);
  }, 300_000);
});
