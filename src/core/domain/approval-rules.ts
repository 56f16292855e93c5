// Standing approval rules as data: how much a rule has let through in the last 24 hours, whether it lets one more
// transaction through, and what a call is when its selector is a well-known one. Pure.

/** A rule as it is stored: its limit and the spends it allowed (pruned past the window). */
export interface StoredRule {
  id: string;
  requester: { kind: 'token' | 'browser'; fingerprint: string; label: string };
  maxPerDayWei: string;
  createdAt: string;
  spends: { at: string; wei: string }[];
}

export const RULE_WINDOW_MS = 24 * 3600 * 1000;

/** The spends of `rule` still inside the window at `nowMs`. */
export function recentSpends(rule: StoredRule, nowMs: number): StoredRule['spends'] {
  return rule.spends.filter((s) => nowMs - Date.parse(s.at) < RULE_WINDOW_MS);
}

export function spentWithin(rule: StoredRule, nowMs: number): bigint {
  return recentSpends(rule, nowMs).reduce((sum, s) => sum + BigInt(s.wei), 0n);
}

/** Whether `costWei` more stays within the rule's daily limit. */
export function ruleAllows(rule: StoredRule, costWei: bigint, nowMs: number): boolean {
  return spentWithin(rule, nowMs) + costWei <= BigInt(rule.maxPerDayWei);
}

const MINUTE_MS = 60_000;

/**
 * The rule after it let `costWei` through at `nowMs` (older spends dropped). Spends are kept per minute, so a busy
 * tool's rule holds at most 1,440 of them; a spend counts until its minute leaves the window (a little late, never
 * early).
 */
export function withSpend(rule: StoredRule, costWei: bigint, nowMs: number): StoredRule {
  // Stamped with the end of its minute, so it leaves the window late rather than early.
  const minute = new Date(Math.floor(nowMs / MINUTE_MS) * MINUTE_MS + MINUTE_MS).toISOString();
  const spends = recentSpends(rule, nowMs);
  const last = spends.at(-1);
  if (last?.at === minute)
    return { ...rule, spends: [...spends.slice(0, -1), { at: minute, wei: (BigInt(last.wei) + costWei).toString() }] };
  return { ...rule, spends: [...spends, { at: minute, wei: costWei.toString() }] };
}

/** Selectors a person is likely to meet from tools, by their signature: the token standards' moves and approvals. */
const KNOWN_FUNCTIONS: Readonly<Record<string, string>> = {
  '0xa9059cbb': 'transfer(address,uint256)',
  '0x095ea7b3': 'approve(address,uint256)',
  '0x23b872dd': 'transferFrom(address,address,uint256)',
  '0x42842e0e': 'safeTransferFrom(address,address,uint256)',
  '0xb88d4fde': 'safeTransferFrom(address,address,uint256,bytes)',
  '0xa22cb465': 'setApprovalForAll(address,bool)',
  '0xf242432a': 'safeTransferFrom(address,address,uint256,uint256,bytes)',
  '0x2eb2c2d6': 'safeBatchTransferFrom(address,address,uint256[],uint256[],bytes)',
  '0xd0e30db0': 'deposit()',
  '0x2e1a7d4d': 'withdraw(uint256)',
};

/** The selector and, when well known, the signature of the function `input` calls; nulls for a plain transfer. */
export function calledFunction(to: string | null, input: string): { selector: string | null; functionName: string | null } {
  if (to === null || input.length < 10) return { selector: null, functionName: null };
  const selector = input.slice(0, 10).toLowerCase();
  return { selector, functionName: KNOWN_FUNCTIONS[selector] ?? null };
}
