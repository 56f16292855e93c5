// A person approves what a local tool asks, on a configured network: a stand-in Sepolia (anvil --chain-id 11155111), a
// separate data service and `txdesk serve` configured by environment variables; the app logged into in Chromium; the
// test is the tool, an ethers v6 script on `${app}/rpc` with the API token. A transaction waits in the dialog and is
// signed and mined once approved; declined, or not answered in time, the tool gets 4001; a standing rule given with an
// approval lets a small transaction through without asking while a larger one still asks; personal_sign and typed
// data are signed through the dialog. The dialog at 1280x860 lands in test-artifacts/screenshots/approval-1280.png.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FetchRequest, JsonRpcProvider, Wallet, getAddress, parseEther, verifyMessage, verifyTypedData, type JsonRpcSigner } from 'ethers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { gweiText } from '../../src/renderer/src/features/approvals/approval-format.js';
import { formatWeiAsEther } from '../../src/renderer/src/lib/eth-amount.js';
import { toChecksumAddress } from '../../src/renderer/src/lib/address-checksum.js';
import type { ApprovalRequest, ApprovalRule } from '../../src/shared/approvals.js';
import type { AppSettings } from '../../src/shared/desktop-api.js';
import { ensureCliBuilt, startCliDaemon, type CliDaemon } from '../support/cli/cli-binary.js';
import { browserSuites, launchBrowser, screenshot, type E2eBrowser, type Page } from '../support/browser/e2e-browser.js';
import { FUNDED_KEY, SEPOLIA, cleanEnv, signUpClientId, startAnvil, startDataService } from '../support/chain/real-network.js';
import { freePort } from '../support/faults/reliability-procs.js';
import { waitFor } from '../support/poll.js';

/** The account txdesk signs with. */
const account = new Wallet(FUNDED_KEY).address;
const axeSource = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

/** The JSON-RPC error code inside whatever ethers threw (UNKNOWN_ERROR keeps it in `error`, ACTION_REJECTED in `info`). */
function rpcCode(e: unknown): number | undefined {
  const x = e as { error?: { code?: unknown }; info?: { error?: { code?: unknown } } };
  const code = x.info?.error?.code ?? x.error?.code;
  return typeof code === 'number' ? code : undefined;
}

/** Settles to the value or the error, so a request can be started now and looked at after the browser answered it. */
const settled = <T>(p: Promise<T>) =>
  p.then(
    (value) => ({ ok: true as const, value }),
    (error: unknown) => ({ ok: false as const, error }),
  );

describe.skipIf(!browserSuites())('approvals on a configured network (Chromium, txdesk serve, ethers on /rpc)', () => {
  const temps: string[] = [];
  const temp = (prefix: string) => {
    const d = mkdtempSync(join(tmpdir(), prefix));
    temps.push(d);
    return d;
  };
  let anvil: Awaited<ReturnType<typeof startAnvil>>;
  let service: CliDaemon;
  let app: CliDaemon;
  let base: string;
  let auth: { authorization: string };
  let browser: E2eBrowser;
  let page: Page;
  let tool: JsonRpcProvider;
  let signer: JsonRpcSigner;
  const pageErrors: string[] = [];

  const api = async <T>(path: string, init: RequestInit = {}): Promise<T> => {
    const res = await fetch(`${base}${path}`, {
      ...init,
      headers: { ...auth, 'content-type': 'application/json', ...(init.headers as Record<string, string> | undefined) },
    });
    const body = (await res.json()) as T;
    expect(res.ok, `${init.method ?? 'GET'} ${path} answered ${res.status}: ${JSON.stringify(body)}`).toBe(true);
    return body;
  };
  const setTimeoutMs = (approvalTimeoutMs: number) =>
    api<AppSettings>('/api/settings', { method: 'PATCH', body: JSON.stringify({ approvalTimeoutMs }) });
  const waiting = () => api<ApprovalRequest[]>('/api/approvals');
  const dialog = () => page.getByTestId('approval-dialog');
  const nav = (name: 'Transactions' | 'Settings') =>
    page.getByRole('navigation', { name: 'Main' }).getByRole('button', { name, exact: true }).click();
  const axe = async (): Promise<string[]> => {
    await page.evaluate(axeSource);
    return (await page.evaluate(`axe.run(document, { resultTypes: ['violations'] }).then((r) => r.violations
      .filter((v) => v.impact === 'serious' || v.impact === 'critical')
      .flatMap((v) => v.nodes.map((n) => v.id + ': ' + n.target.join(' '))))`)) as string[];
  };
  /** What the node says about a transaction the tool got a hash for: mined, and successful. Polled rather than ethers'
   * waitForTransaction, which looks again only when a block arrives: this anvil mines a block per transaction, so a
   * first look made before the broadcast would wait forever for the next block. */
  const minedStatus = async (hash: string) =>
    (await waitFor('the transaction is mined', () => tool.getTransactionReceipt(hash), { timeoutMs: 60_000, everyMs: 200 })).status;

  beforeAll(async () => {
    ensureCliBuilt();
    // Mines every transaction at once: what is approved shows up mined without waiting for blocks.
    anvil = await startAnvil(SEPOLIA);
    service = await startDataService(anvil.url, await freePort(), temp('txdesk-appr-service-'));
    const clientId = await signUpClientId(String(service.ready.serviceUrl), temp('txdesk-appr-cli-'));
    app = await startCliDaemon(['serve', '--port', '0', '--json'], {
      env: {
        ...cleanEnv(),
        NODE_ENDPOINT: anvil.url,
        TXDESK_SERVICE_URL: String(service.ready.serviceUrl),
        CLIENT_ID: clientId,
        PRIVATE_KEY: FUNDED_KEY,
        TXDESK_DATA_DIR: temp('txdesk-appr-app-'),
      },
    });
    expect(app.ready).toMatchObject({ chainId: SEPOLIA, mode: 'configured' });
    base = String(app.ready.apiUrl).replace(/\/+$/, '');
    const token = readFileSync(String(app.ready.apiTokenFile), 'utf8').trim();
    auth = { authorization: `Bearer ${token}` };

    // The tool: ethers pointed at txdesk, unchanged apart from the Authorization header.
    const request = new FetchRequest(`${base}/rpc`);
    request.setHeader('Authorization', `Bearer ${token}`);
    tool = new JsonRpcProvider(request, SEPOLIA, { staticNetwork: true, pollingInterval: 250 });
    signer = await tool.getSigner();
    expect(getAddress(signer.address)).toBe(account);

    browser = await launchBrowser();
    page = browser.page;
    page.setDefaultTimeout(60_000);
    page.on('pageerror', (e) => pageErrors.push(e.message));
    page.on('console', (m) => {
      if (m.type() === 'error') pageErrors.push(`${m.text()} (${m.location().url})`);
    });
    await page.setViewportSize({ width: 1280, height: 860 });
    // The printed login link: the page gets the session cookie, the only credential that may answer a request.
    await page.goto(String(app.ready.appUrl));
    await page.getByRole('heading', { name: 'Transactions', level: 1 }).waitFor();
  }, 300_000);

  afterAll(async () => {
    tool?.destroy();
    await browser?.close();
    await app?.stop();
    await service?.stop();
    anvil?.child.kill('SIGKILL');
    for (const d of temps) rmSync(d, { recursive: true, force: true });
  });

  it('a transaction waits in the dialog, with what it sends and costs; approved in the browser, it is signed and mined', async () => {
    const recipient = Wallet.createRandom().address;
    const value = parseEther('0.0123');
    const sent = settled(signer.sendTransaction({ to: recipient, value }));
    await dialog().waitFor();
    const [asked] = await waiting();
    expect(asked).toMatchObject({ kind: 'transaction', transaction: { value: value.toString(), selector: null } });
    const tx = asked!.transaction!;
    const { policy } = await api<AppSettings>('/api/settings');

    await expect(dialog().getByRole('heading', { name: 'A tool asks to send a transaction' }).isVisible()).resolves.toBe(true);
    expect(await dialog().getByTestId('approval-requester').textContent()).toBe(asked!.requester.label);
    expect(await dialog().getByTestId('approval-to').textContent()).toBe(toChecksumAddress(recipient));
    expect(await dialog().getByTestId('approval-value').textContent()).toBe('0.0123 ETH');
    expect(await dialog().getByTestId('approval-call').textContent()).toBe('none: a plain transfer');
    // The range starts at what the first attempt would pay now (on this configured network, the market's price).
    expect(BigInt(tx.feeFromWei) > 0n && BigInt(tx.feeFromWei) <= BigInt(policy.maxFeeWei)).toBe(true);
    expect(await dialog().getByTestId('approval-fee').textContent()).toBe(
      `${gweiText(tx.feeFromWei)}, up to ${gweiText(policy.maxFeeWei)}`,
    );
    expect(BigInt(tx.maxCostWei)).toBe(value + BigInt(tx.gasLimit) * BigInt(policy.maxFeeWei));
    expect(await dialog().getByTestId('approval-max-cost').textContent()).toContain(`${formatWeiAsEther(tx.maxCostWei)} ETH`);
    expect(await dialog().getByTestId('approval-time-left').textContent()).toMatch(/Declined automatically in (1 min \d+ s|2 min)/);

    await screenshot(page, 'approval-1280');
    expect(await axe()).toEqual([]);

    // Focus starts on Decline, and Escape answers nothing: three times, since after a few Chrome closes a dialog
    // whatever the page says; it is shown again with focus where it was.
    const focused = () => page.evaluate('document.activeElement && document.activeElement.getAttribute("data-testid")');
    expect(await focused()).toBe('approval-decline');
    for (let i = 0; i < 3; i++) await page.keyboard.press('Escape');
    await page.waitForTimeout(200);
    expect(await dialog().isVisible()).toBe(true);
    expect(await focused()).toBe('approval-decline');
    expect((await waiting()).map((a) => a.id)).toEqual([asked!.id]);

    await dialog().getByTestId('approval-approve').click();
    const answer = await sent;
    if (!answer.ok) throw answer.error;
    await dialog().waitFor({ state: 'hidden' });
    expect(await minedStatus(answer.value.hash)).toBe(1);
    expect(await tool.getBalance(recipient)).toBe(value);
    expect(await waiting()).toEqual([]);
  });

  it('declined in the browser: the tool gets 4001 and nothing is signed', async () => {
    const before = (await api<unknown[]>('/api/tx')).length;
    const sent = settled(signer.sendTransaction({ to: Wallet.createRandom().address, value: parseEther('0.002') }));
    await dialog().waitFor();
    await dialog().getByTestId('approval-decline').click();
    const answer = await sent;
    expect(answer.ok).toBe(false);
    expect(rpcCode(!answer.ok && answer.error)).toBe(4001);
    await dialog().waitFor({ state: 'hidden' });
    expect((await api<unknown[]>('/api/tx')).length).toBe(before);
  });

  it('not answered within approvalTimeoutMs: the dialog counts down, then the tool gets 4001', async () => {
    await setTimeoutMs(5_000);
    try {
      const started = Date.now();
      const sent = settled(signer.sendTransaction({ to: Wallet.createRandom().address, value: parseEther('0.003') }));
      await dialog().waitFor();
      expect(await dialog().getByTestId('approval-time-left').textContent()).toMatch(/Declined automatically in [1-5] s/);
      const answer = await sent;
      expect(answer.ok).toBe(false);
      expect(rpcCode(!answer.ok && answer.error)).toBe(4001);
      expect(Date.now() - started).toBeGreaterThanOrEqual(4_500);
      await dialog().waitFor({ state: 'hidden' });
      expect(await waiting()).toEqual([]);
    } finally {
      await setTimeoutMs(120_000);
    }
  });

  it('a standing rule given with an approval lets a small transaction through without asking; a larger one still asks; revoked in Settings', async () => {
    const small = parseEther('0.001');
    const first = settled(signer.sendTransaction({ to: Wallet.createRandom().address, value: small }));
    await dialog().waitFor();
    const [asked] = await waiting();
    // Checked before anything is sent: an empty limit is marked, not sent.
    await dialog().getByTestId('approval-allow').click();
    expect(await dialog().getByLabel('Daily limit (ETH)').getAttribute('aria-invalid')).toBe('true');
    await dialog().getByLabel('Daily limit (ETH)').fill('0.05');
    expect(await dialog().getByTestId('approval-allow').textContent()).toBe('Approve and allow this tool up to 0.05 ETH per day');
    await dialog().getByTestId('approval-allow').click();
    const approved = await first;
    if (!approved.ok) throw approved.error;
    expect(await minedStatus(approved.value.hash)).toBe(1);
    const [rule] = await api<ApprovalRule[]>('/api/approval-rules');
    expect(rule).toMatchObject({
      requester: asked!.requester,
      maxPerDayWei: parseEther('0.05').toString(),
      spentWei: asked!.transaction!.maxCostWei,
    });

    // Within the limit: no dialog, no answer needed; the tool gets its hash by itself.
    const second = await Promise.race([
      signer.sendTransaction({ to: Wallet.createRandom().address, value: small }),
      new Promise<never>((_, no) => setTimeout(() => no(new Error('the small transaction waited for an answer')), 30_000)),
    ]);
    expect(await minedStatus(second.hash)).toBe(1);
    expect(await dialog().count()).toBe(0);

    // Beyond what is left of the day's limit: it asks again.
    const large = settled(signer.sendTransaction({ to: Wallet.createRandom().address, value: parseEther('0.1') }));
    await dialog().waitFor();
    expect(await dialog().getByTestId('approval-value').textContent()).toBe('0.1 ETH');
    await dialog().getByTestId('approval-decline').click();
    const refused = await large;
    expect(rpcCode(!refused.ok && refused.error)).toBe(4001);
    await dialog().waitFor({ state: 'hidden' });

    // Settings lists the rule with what it let through, and revokes it.
    await nav('Settings');
    const row = page.getByTestId('approval-rule');
    await row.waitFor();
    const spent = (await api<ApprovalRule[]>('/api/approval-rules'))[0]!.spentWei;
    expect(await row.textContent()).toContain(asked!.requester.label);
    expect(await row.textContent()).toContain('0.05 ETH');
    expect(await row.textContent()).toContain(`${formatWeiAsEther(spent)} ETH`);
    expect(await axe()).toEqual([]);
    await row.getByRole('button', { name: /^Revoke/ }).click();
    await page.getByTestId('approval-rules-empty').waitFor();
    expect(await api<ApprovalRule[]>('/api/approval-rules')).toEqual([]);
    await nav('Transactions');
  });

  it('personal_sign and typed data wait in the dialog too; approved, the signatures recover to the account', async () => {
    const text = 'Sign in to example.org\nNonce: 7c1e';
    const signed = settled(signer.signMessage(text));
    await dialog().waitFor();
    await expect(dialog().getByRole('heading', { name: 'A tool asks you to sign a message' }).isVisible()).resolves.toBe(true);
    expect(await dialog().getByTestId('approval-message').textContent()).toBe(text);
    expect(await dialog().getByTestId('approval-allow').count()).toBe(0); // no standing rule for signatures
    await dialog().getByTestId('approval-approve').click();
    const message = await signed;
    if (!message.ok) throw message.error;
    expect(verifyMessage(text, message.value)).toBe(account);

    const domain = { name: 'Ether Mail', version: '1', chainId: SEPOLIA, verifyingContract: '0xCcCCccccCCCCcCCCCCCcCcCccCcCCCcCcccccccC' };
    const types = {
      Person: [
        { name: 'name', type: 'string' },
        { name: 'wallet', type: 'address' },
      ],
      Mail: [
        { name: 'from', type: 'Person' },
        { name: 'to', type: 'Person' },
        { name: 'contents', type: 'string' },
      ],
    };
    const mail = {
      from: { name: 'Cow', wallet: '0xCD2a3d9F938E13CD947Ec05AbC7FE734Df8DD826' },
      to: { name: 'Bob', wallet: '0xbBbBBBBbbBBBbbbBbbBbbbbBBbBbbbbBbBbbBBbB' },
      contents: 'Hello, Bob!',
    };
    const typed = settled(signer.signTypedData(domain, types, mail));
    await dialog().waitFor();
    expect(await dialog().getByTestId('approval-primary-type').textContent()).toBe('Mail');
    expect(await dialog().getByTestId('approval-domain').textContent()).toContain('name: Ether Mail');
    const shownMessage = await dialog().getByTestId('approval-typed-message').innerText();
    expect(shownMessage.replace(/\s+/g, ' ')).toContain('from: name: Cow');
    expect(shownMessage).toContain('Hello, Bob!');
    await dialog().getByTestId('approval-approve').click();
    const signature = await typed;
    if (!signature.ok) throw signature.error;
    expect(verifyTypedData(domain, types, mail, signature.value)).toBe(account);
    await dialog().waitFor({ state: 'hidden' });
    expect(pageErrors).toEqual([]);
  });
});
