// The tracker SDK as a program installs it: `npm pack` of packages/tracker, `npm install <tarball>` into an empty
// folder (only ws comes with it), and a plain Node program there that tracks a transaction against a real data
// service on a real anvil and checks a webhook signature, importing nothing but @txdesk/tracker.
import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { signWebhook } from '@txdesk/tracker/webhook-signature';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { repoRoot } from '../support/chain/devchain-helpers.js';
import { sendTransfer, startTrackerStack, type TrackerStack } from '../support/service/tracker-harness.js';
import { ensureTrackerPackageBuilt } from '../support/tracker-package-build.js';

const packageDir = join(repoRoot, 'packages', 'tracker');
/** The original @haechi-labs/henesis-tracker installed at 144 KB; ours with ws should stay in that range. */
const MAX_INSTALLED_BYTES = 400 * 1024;

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs a command without blocking this process: the data service the program talks to lives in it. */
function run(cmd: string, args: string[], cwd: string, env: NodeJS.ProcessEnv = process.env): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString('utf8')));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString('utf8')));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

/** npm's environment without what `npm test` sets for the repository's own package (workspace, lifecycle). */
function npmEnv(): NodeJS.ProcessEnv {
  return Object.fromEntries(Object.entries(process.env).filter(([k]) => !/^npm_(package_|lifecycle_|config_workspace)/i.test(k)));
}

function bytesUnder(dir: string): number {
  return readdirSync(dir, { withFileTypes: true }).reduce((sum, e) => {
    const p = join(dir, e.name);
    return sum + (e.isDirectory() ? bytesUnder(p) : e.isFile() ? statSync(p).size : 0);
  }, 0);
}

/** What the user's program does: track one hash to its confirmation, then check a signed and a tampered body. */
const PROGRAM = `
import { TransactionTracker, verifyWebhook } from '@txdesk/tracker';
const [url, clientId, hash] = process.argv.slice(2);
const webhook = JSON.parse(process.env.WEBHOOK);
const tracker = new TransactionTracker(clientId, { platform: 'ethereum', network: 'local', url });
const sub = tracker.subscribe('transaction', { subscriptionId: 'packed-sdk' });
const types = [];
const confirmed = new Promise((resolve) => {
  sub.on('message', async (m) => {
    types.push(m.data.type);
    await m.ack();
    if (m.data.type === 'confirmation') resolve(m.data.result.transactionHash);
  });
});
sub.on('error', (e) => console.error('tracker error', e.code, e.reason ?? '', e.message));
await sub.ready;
await tracker.trackTransaction(hash, { timeout: 60000, confirmation: 1 });
const confirmedHash = await confirmed;
await tracker.close();
console.log(JSON.stringify({
  confirmedHash,
  types,
  ws: import.meta.resolve('ws'),
  signed: verifyWebhook(webhook.body, webhook.header, webhook.secret).ok,
  tampered: verifyWebhook(webhook.body.replace('1', '2'), webhook.header, webhook.secret).ok,
}));
`;

let stack: TrackerStack;
let folder: string;

beforeAll(async () => {
  folder = mkdtempSync(join(tmpdir(), 'txdesk-sdk-user-'));
  stack = await startTrackerStack();
});
afterAll(async () => {
  await stack?.close();
  if (folder) rmSync(folder, { recursive: true, force: true });
});

describe('@txdesk/tracker packed and installed alone', () => {
  let tarball: string;

  it('packs to the built files, its README and package.json', async () => {
    // The test's own SDK copy is the source; the tarball carries dist/, which must be as new as that source.
    ensureTrackerPackageBuilt();
    const packed = await run('npm', ['pack', '--json', '--ignore-scripts', '--pack-destination', folder], packageDir, npmEnv());
    expect(packed.code, packed.stderr).toBe(0);
    const [info] = JSON.parse(packed.stdout) as { filename: string; size: number; unpackedSize: number; files: { path: string }[] }[];
    const files = info!.files.map((f) => f.path).sort();
    expect(files).toEqual(
      expect.arrayContaining([
        'README.md',
        'package.json',
        'dist/index.js',
        'dist/index.d.ts',
        'dist/webhook-signature.js',
        'dist/tracker-wire.js',
      ]),
    );
    expect(files.filter((f) => !/^(README\.md|package\.json|dist\/[\w-]+\.(js|d\.ts))$/.test(f))).toEqual([]);
    console.info(`@txdesk/tracker tarball: ${info!.size} bytes packed, ${info!.unpackedSize} unpacked, ${files.length} files`);
    tarball = join(folder, info!.filename);
  });

  it('installs into an empty folder with ws as its only dependency', async () => {
    writeFileSync(join(folder, 'package.json'), JSON.stringify({ name: 'sdk-user', version: '1.0.0', private: true, type: 'module' }));
    const installed = await run(
      'npm',
      ['install', tarball, '--prefer-offline', '--no-audit', '--no-fund', '--ignore-scripts'],
      folder,
      npmEnv(),
    );
    expect(installed.code, installed.stderr).toBe(0);
    const modules = join(folder, 'node_modules');
    const top = readdirSync(modules).filter((n) => !n.startsWith('.'));
    const names = top.flatMap((n) => (n.startsWith('@') ? readdirSync(join(modules, n)).map((s) => `${n}/${s}`) : [n])).sort();
    expect(names).toEqual(['@txdesk/tracker', 'ws']);
    const lock = JSON.parse(readFileSync(join(folder, 'package-lock.json'), 'utf8')) as { packages: Record<string, unknown> };
    expect(Object.keys(lock.packages).filter(Boolean).sort()).toEqual(['node_modules/@txdesk/tracker', 'node_modules/ws']);
    const bytes = bytesUnder(modules);
    console.info(`installed node_modules: ${bytes} bytes (${names.join(', ')})`);
    expect(bytes).toBeLessThan(MAX_INSTALLED_BYTES);
  });

  it("tracks a transaction to its confirmation and verifies a webhook's signature from that folder", async () => {
    writeFileSync(join(folder, 'track.mjs'), PROGRAM);
    const clientId = await stack.newClientId();
    const tx = await sendTransfer(stack.wallet(3));
    const body = JSON.stringify({ type: 'confirmation', amount: 1 });
    const secret = 'whsec_packed_sdk_test';
    const webhook = { body, secret, header: signWebhook(body, secret, Math.floor(Date.now() / 1000)) };
    const program = await run(process.execPath, ['track.mjs', stack.service.url, clientId, tx.hash], folder, {
      ...process.env,
      WEBHOOK: JSON.stringify(webhook),
    });
    expect(program.code, program.stderr).toBe(0);
    const out = JSON.parse(program.stdout.trim().split('\n').pop()!) as {
      confirmedHash: string;
      types: string[];
      ws: string;
      signed: boolean;
      tampered: boolean;
    };
    expect(out.confirmedHash).toBe(tx.hash);
    expect(out.types).toContain('receipt');
    expect(out.types.at(-1)).toBe('confirmation');
    expect(out.ws).toContain(`${folder}/node_modules/ws/`);
    expect(out).toMatchObject({ signed: true, tampered: false });
  });
});
