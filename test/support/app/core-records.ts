// Builders of TxRecord fixtures for table-driven tests of the core and the renderer.
import type { TxRecord } from '../../../src/shared/tx-record.js';
import type { ReplacementPolicy } from '../../../src/shared/desktop-api.js';

export const GWEI = 1_000_000_000n;

export function hashOf(n: number): string {
  return `0x${n.toString(16).padStart(64, '0')}`;
}

export function rec(over: Partial<TxRecord> & { n?: number } = {}): TxRecord {
  const { n = 1, ...rest } = over;
  return {
    transactionHash: hashOf(n),
    from: '0x' + 'a'.repeat(40),
    nonce: 0,
    gasPrice: String(GWEI),
    txType: 'legacy',
    to: '0x' + 'a'.repeat(40),
    value: '0',
    input: '0x',
    gasLimit: '21000',
    data: {},
    replaces: null,
    replacedBy: null,
    attempt: 0,
    kind: 'generate',
    problem: null,
    createdAt: '2026-01-01T00:00:00.000Z',
    updatedAt: '2026-01-01T00:00:00.000Z',
    ...rest,
  };
}

export function policy(over: Partial<ReplacementPolicy> = {}): ReplacementPolicy {
  return {
    pricing: 'seed',
    speed: 'normal',
    txType: 'legacy',
    initialFeeWei: String(GWEI),
    bumpPercent: 12.5,
    maxFeeWei: String(500n * GWEI),
    maxReplacements: 5,
    timeoutMs: 10_000,
    confirmations: 6,
    ...over,
  };
}
