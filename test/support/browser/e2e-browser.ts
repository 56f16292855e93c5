// Launches Debian's Chromium through playwright-core for the renderer's browser tests, with a fresh profile and no
// background network, and saves screenshots under test-artifacts/screenshots. `browserSuites()` says whether they run:
// without Chromium they fail with one sentence unless TXDESK_SKIP_BROWSER=1.
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromiumPath } from '../required-tools.js';

export { browserSuites } from '../required-tools.js';

export interface E2eBrowser {
  context: BrowserContext;
  page: Page;
  close(): Promise<void>;
}

export async function launchBrowser(): Promise<E2eBrowser> {
  const profile = mkdtempSync(join(tmpdir(), 'txdesk-chromium-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: chromiumPath,
    headless: true,
    viewport: { width: 1440, height: 900 },
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--no-first-run',
      '--disable-sync',
      '--disable-quic',
    ],
  });
  const page = context.pages()[0] ?? (await context.newPage());
  return {
    context,
    page,
    async close() {
      await context.close().catch(() => {});
      rmSync(profile, { recursive: true, force: true });
    },
  };
}

export const screenshotDir = join(process.cwd(), 'test-artifacts', 'screenshots');

/** The app scrolls inside its main area, so a full-page shot shows no more; `tall` grows the window for the shot instead. */
export async function screenshot(page: Page, name: string, opts: { tall?: boolean } = {}): Promise<string> {
  mkdirSync(screenshotDir, { recursive: true });
  const file = join(screenshotDir, `${name}.png`);
  const size = page.viewportSize();
  if (opts.tall && size) await page.setViewportSize({ width: size.width, height: 1400 });
  await page.screenshot({ path: file, fullPage: false });
  if (opts.tall && size) await page.setViewportSize(size);
  return file;
}

export type { Browser, Page };
