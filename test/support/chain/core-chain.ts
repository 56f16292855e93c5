// Helpers for the core's tests on a real dev chain: a separately started dev service (so the chain outlives the
// app under test), a funded fresh key, the env that points a core at them, and end-state checks against the chain.
import { Wallet } from 'ethers';
import { expect } from 'vitest';
import { unsettledNonces } from '../faults/fault-run.js';
import { startDevService, type DevService } from '../../../src/service/index.js';
import { silentLogger } from '../../../src/lib/log.js';
import type { CongestionLevel } from '../../../src/shared/desktop-api.js';
import type { MarketSchedule } from '../../../src/devchain/devchain.js';
import type { TxRecord } from '../../../src/shared/tx-record.js';

export interface TestChain {
  dev: DevService;
  privateKey: string;
  address: string;
  /** Environment for a configured core (NODE_ENDPOINT, TXDESK_SERVICE_URL, CLIENT_ID, PRIVATE_KEY). */
  env: NodeJS.ProcessEnv;
  rpc<T = unknown>(method: string, params?: unknown[]): Promise<T>;
  stop(): Promise<void>;
}

/** `secondChain`: also ethereum/local-2 (chain 31338), for tests of switching networks; one chain unless set. */
export async function startTestChain(
  o: { congestion?: CongestionLevel; secondChain?: boolean; marketSchedule?: MarketSchedule } = {},
): Promise<TestChain> {
  const dev = await startDevService({
    port: 0,
    congestion: o.congestion ?? 'off',
    blockTimeSeconds: 1,
    secondChain: o.secondChain ?? false,
    ...(o.marketSchedule ? { marketSchedule: o.marketSchedule } : {}),
    log: silentLogger,
  });
  const wallet = Wallet.createRandom();
  await dev.devchain.fund(wallet.address, 100n * 10n ** 18n);
  const rpc = async <T>(method: string, params: unknown[] = []): Promise<T> => {
    const res = await fetch(dev.devchain.nodeUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
    });
    const body = (await res.json()) as { result: T; error?: { message: string } };
    if (body.error) throw new Error(body.error.message);
    return body.result;
  };
  return {
    dev,
    privateKey: wallet.privateKey,
    address: wallet.address.toLowerCase(),
    env: {
      NODE_ENDPOINT: dev.devchain.nodeUrl,
      TXDESK_SERVICE_URL: dev.service.url,
      CLIENT_ID: dev.clientId,
      PRIVATE_KEY: wallet.privateKey,
      PLATFORM: dev.service.platform,
      NETWORK: dev.service.network,
      TXDESK_LOG: 'silent',
    },
    rpc,
    stop: () => dev.stop(),
  };
}

/**
 * Every nonce settled: nonces 0..n-1 of `address` each have exactly one confirmed record and every other record of
 * it replaced, none skipped or used twice, and the chain agrees (its count is n; only the winners have receipts).
 */
export async function expectCleanEndState(
  chain: TestChain,
  records: TxRecord[],
  expectedNonces: number,
  address = chain.address,
): Promise<void> {
  records = records.filter((r) => r.from === address.toLowerCase());
  const byNonce = new Map<number, TxRecord[]>();
  for (const r of records) byNonce.set(r.nonce, [...(byNonce.get(r.nonce) ?? []), r]);
  expect([...byNonce.keys()].sort((a, b) => a - b)).toEqual(Array.from({ length: expectedNonces }, (_, i) => i));
  const mined = Number(BigInt(await chain.rpc<string>('eth_getTransactionCount', [address, 'latest'])));
  expect(mined).toBe(expectedNonces);
  for (const [nonce, group] of byNonce) {
    const confirmed = group.filter((r) => r.status === 'confirmation');
    expect(confirmed, `nonce ${nonce}`).toHaveLength(1);
    for (const r of group) if (r !== confirmed[0]) expect(r.status, `nonce ${nonce} loser ${r.transactionHash}`).toBe('replaced');
    const receipt = await chain.rpc<{ blockNumber: string; from: string } | null>('eth_getTransactionReceipt', [
      confirmed[0]!.transactionHash,
    ]);
    expect(receipt, `receipt of the winner of nonce ${nonce}`).not.toBeNull();
    expect(confirmed[0]!.data.blockNumber).toBe(Number(BigInt(receipt!.blockNumber)));
    for (const r of group) if (r !== confirmed[0]) expect(await chain.rpc('eth_getTransactionReceipt', [r.transactionHash])).toBeNull();
  }
}

/** Every nonce of `records` has a confirmed record. */
export function allConfirmed(records: TxRecord[]): boolean {
  return unsettledNonces(records).size === 0;
}

/** A new funded account (1 ETH unless set): each test's nonces start at 0. */
export async function freshAccount(chain: TestChain, wei = 10n ** 18n): Promise<{ privateKey: string; address: string }> {
  const w = Wallet.createRandom();
  await chain.dev.devchain.fund(w.address, wei);
  return { privateKey: w.privateKey, address: w.address.toLowerCase() };
}
