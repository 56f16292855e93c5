// Test helpers for the tracker: a real anvil + real data service (startService) in a temp dir, a raw JSON-RPC
// WebSocket client that records every frame, and signed transactions from the dev accounts.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { JsonRpcProvider, Wallet, keccak256, parseUnits, type TransactionRequest } from 'ethers';
import WebSocket from 'ws';
import { devAccounts } from '../../../src/devchain/dev-accounts.js';
import { startAnvil, type RunningAnvil } from '../../../src/devchain/devchain.js';
import { createLogger, silentLogger } from '../../../src/lib/log.js';
import { startService, type RunningService, type ServiceOptions } from '../../../src/service/index.js';
import { waitFor } from '../poll.js';

/** The anvil mnemonic's funded accounts (public test keys). */
export const DEV_KEYS = devAccounts(20).map((a) => a.privateKey);

export interface TrackerStack {
  anvil: RunningAnvil;
  service: RunningService;
  provider: JsonRpcProvider;
  dataDir: string;
  newClientId(): Promise<string>;
  /** A new account's clientId and its API secret (what webhook management needs). */
  newAccount(): Promise<{ clientId: string; apiSecret: string }>;
  wallet(i: number): Wallet;
  close(): Promise<void>;
}

let accountSeq = 0;

/** `service`: more service options (webhooks' tuning, say). */
export async function startTrackerStack(
  opts: { minAckTimeoutMs?: number; blockTimeSeconds?: number; service?: Partial<ServiceOptions> } = {},
): Promise<TrackerStack> {
  const anvil = await startAnvil({ blockTimeSeconds: opts.blockTimeSeconds ?? 1 });
  const dataDir = mkdtempSync(join(tmpdir(), 'txdesk-tracker-test-'));
  let service: RunningService;
  try {
    service = await startService({
      nodeUrl: anvil.url,
      dataDir,
      port: 0,
      openSignup: true,
      confirmations: 0,
      minAckTimeoutMs: opts.minAckTimeoutMs ?? 300,
      log: process.env.TXDESK_TEST_LOG ? createLogger('tracker-test') : silentLogger,
      ...opts.service,
    });
  } catch (e) {
    await anvil.stop();
    throw e;
  }
  const provider = new JsonRpcProvider(anvil.url, undefined, { staticNetwork: true, cacheTimeout: -1 });
  const createAccount = async () => {
    const n = ++accountSeq;
    const email = `tracker-${process.pid}-${n}@example.com`;
    const { clientId } = await service.accounts.createAccount({
      email,
      password: 'correct horse battery staple',
      name: `Tracker ${n}`,
      organization: 'txdesk tests',
    });
    return { email, clientId };
  };
  return {
    anvil,
    service,
    provider,
    dataDir,
    newClientId: async () => (await createAccount()).clientId,
    async newAccount() {
      const { email, clientId } = await createAccount();
      return { clientId, apiSecret: (await service.accounts.replaceApiSecret(email)).apiSecret };
    },
    wallet(i) {
      return new Wallet(DEV_KEYS[i]!, provider);
    },
    async close() {
      provider.destroy();
      await service.stop();
      await anvil.stop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

export function trackerWsUrl(serviceUrl: string, clientId: string, platform = 'ethereum', network = 'local'): string {
  return `${serviceUrl.replace(/^http/, 'ws')}/tracker/${platform}/${network}?clientId=${encodeURIComponent(clientId)}`;
}

export interface PushFrame {
  jsonrpc: '2.0';
  id: string;
  result: { ackId: string; messageId: string; payload: { type: 'pending' | 'receipt' | 'confirmation'; result: any } };
}

/** A bare JSON-RPC client over `ws`: every received frame is kept, pushes separately. */
export class RawTrackerClient {
  readonly frames: any[] = [];
  readonly pushes: PushFrame[] = [];
  private nextId = 1;
  private closed: Promise<void>;

  private constructor(readonly ws: WebSocket) {
    ws.on('message', (data) => {
      const msg = JSON.parse(String(data));
      this.frames.push(msg);
      if (!Array.isArray(msg) && typeof msg.id === 'string' && msg.result) this.pushes.push(msg as PushFrame);
    });
    this.closed = new Promise((r) => ws.once('close', () => r()));
  }

  static connect(url: string): Promise<RawTrackerClient> {
    return new Promise((resolve, reject) => {
      const ws = new WebSocket(url);
      ws.once('open', () => resolve(new RawTrackerClient(ws)));
      ws.once('error', reject);
      ws.once('unexpected-response', (_req, res) => {
        let body = '';
        res.on('data', (c) => (body += c));
        res.on('end', () => reject(Object.assign(new Error(`HTTP ${res.statusCode}`), { status: res.statusCode, body })));
      });
    });
  }

  get isOpen(): boolean {
    return this.ws.readyState === WebSocket.OPEN;
  }

  sendRaw(text: string): void {
    this.ws.send(text);
  }

  /** Sends a request and waits for the frame answering its id. */
  async request(method: string, params: unknown[]): Promise<any> {
    const id = this.nextId++;
    const seen = this.frames.length;
    this.ws.send(JSON.stringify({ jsonrpc: '2.0', id, method, params }));
    return this.waitFrame((f) => f.id === id, `an answer to ${method}`, seen);
  }

  /** Waits for a frame matching `pred` among frames received after index `from`. */
  async waitFrame(pred: (f: any) => boolean, what: string, from = 0, timeoutMs = 30_000): Promise<any> {
    return waitFor(what, () => this.frames.slice(from).find(pred), { timeoutMs: timeoutMs });
  }

  pushesOf(type: string, hash?: string): PushFrame[] {
    return this.pushes.filter(
      (p) => p.result.payload.type === type && (hash === undefined || p.result.payload.result.transactionHash === hash),
    );
  }

  async close(): Promise<void> {
    if (this.ws.readyState !== WebSocket.CLOSED) this.ws.close();
    await this.closed;
  }
}

/** Signs (without sending) a plain 1-wei transfer; its hash is known before any node sees it. */
export async function signTransfer(
  wallet: Wallet,
  opts: { nonce: number; gwei?: string; to?: string; chainId?: number },
): Promise<{ hash: string; raw: string; nonce: number }> {
  const fee = parseUnits(opts.gwei ?? '2', 'gwei');
  const req: TransactionRequest = {
    to: opts.to ?? '0x000000000000000000000000000000000000dEaD',
    value: 1n,
    nonce: opts.nonce,
    gasLimit: 21_000n,
    maxFeePerGas: fee * 10n,
    maxPriorityFeePerGas: fee,
    chainId: BigInt(opts.chainId ?? 31337),
    type: 2,
  };
  const raw = await wallet.signTransaction(req);
  return { hash: keccak256(raw).toLowerCase(), raw, nonce: opts.nonce };
}

/** Signs and broadcasts a plain transfer; `nonceOffset` > 0 leaves a gap so it waits in the pool. */
export async function sendTransfer(
  wallet: Wallet,
  opts: { nonce?: number; gwei?: string; to?: string; chainId?: number } = {},
): Promise<{ hash: string; raw: string; nonce: number }> {
  const signed = await signTransfer(wallet, { ...opts, nonce: opts.nonce ?? (await wallet.getNonce('pending')) });
  const hash = (await (wallet.provider as JsonRpcProvider).send('eth_sendRawTransaction', [signed.raw])) as string;
  return { ...signed, hash: hash.toLowerCase() };
}
