// Test helpers for the data service: a dev service on a free port in a temp dir, a small JSON HTTP client, and waiting.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { silentLogger } from '../../../src/lib/log.js';
import { startDevService, type DevService, type DevServiceOptions } from '../../../src/service/index.js';
import { waitFor } from '../poll.js';

export interface TestDevService extends DevService {
  dataDir: string;
  /** Stops everything and removes the data dir. */
  close(): Promise<void>;
}

export async function startTestDevService(opts: DevServiceOptions = {}): Promise<TestDevService> {
  const dataDir = opts.dataDir ?? mkdtempSync(join(tmpdir(), 'txdesk-service-test-'));
  // One dev chain unless a test asks for ethereum/local-2 too: the second costs a start and sample deployment.
  const dev = await startDevService({
    port: 0,
    blockTimeSeconds: 1,
    congestion: 'off',
    secondChain: false,
    log: silentLogger,
    ...opts,
    dataDir,
  });
  return {
    ...dev,
    dataDir,
    async close() {
      await dev.stop();
      if (!opts.dataDir) rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

export interface Answer<T = any> {
  status: number;
  headers: Headers;
  body: T;
  text: string;
}

/** One HTTP request; the body is parsed as JSON when it is JSON. Never throws on an HTTP status. */
export async function call<T = any>(
  url: string,
  init: { method?: string; body?: unknown; token?: string; headers?: Record<string, string>; rawBody?: string } = {},
): Promise<Answer<T>> {
  const headers: Record<string, string> = { ...init.headers };
  if (init.body !== undefined) headers['content-type'] = 'application/json';
  if (init.token !== undefined) headers.authorization = `Bearer ${init.token}`;
  const res = await fetch(url, {
    method: init.method ?? 'GET',
    headers,
    body: init.rawBody ?? (init.body === undefined ? undefined : JSON.stringify(init.body)),
  });
  const text = await res.text();
  let body: any;
  try {
    body = JSON.parse(text);
  } catch {
    body = undefined;
  }
  return { status: res.status, headers: res.headers, body, text };
}

/** Waits until the service's index has reached `block`. */
export async function waitForIndexed(serviceUrl: string, block: number): Promise<void> {
  await waitFor(`the index to reach block ${block}`, async () => {
    const h = await call<{ indexedBlock: number }>(`${serviceUrl}/health`);
    return h.status === 200 && h.body.indexedBlock >= block;
  });
}

export function tempDir(prefix = 'txdesk-service-test-'): string {
  return mkdtempSync(join(tmpdir(), prefix));
}
