// Requests from local tools that wait for a person on a configured network: each transaction, personal_sign and
// typed-data signature asks in the app and is declined (EIP-1193 4001) when the person says no or does not answer in
// time; a standing rule per requester lets transactions through up to a most-cost per day. On the embedded dev chain
// nothing waits.
import { randomUUID } from 'node:crypto';
import type { Logger } from '../../lib/log.js';
import type { ApprovalDecision, ApprovalRequest, ApprovalRule, Requester } from '../../shared/approvals.js';
import type { ReplacementPolicy } from '../../shared/desktop-api.js';
import { TxdeskError } from '../../shared/errors.js';
import type { TxPayload } from '../../shared/tx-request.js';
import { calledFunction, ruleAllows, spentWithin, withSpend, type StoredRule } from '../domain/approval-rules.js';
import { formatEth } from '../domain/refusal.js';
import { worstCost } from '../domain/replacement.js';
import type { Clock, TypedData } from '../ports.js';

export interface ApprovalsDeps {
  /** False on the embedded dev chain: every request is signed at once. */
  required: boolean;
  clock: Clock;
  /** How long a request waits for an answer (the `approvalTimeoutMs` setting). */
  timeoutMs(): number;
  policy(): ReplacementPolicy;
  /** Where the standing rules persist (the settings). */
  rules: { load(): StoredRule[]; save(rules: StoredRule[]): void };
  /** The waiting requests after every change (pushed to every window). */
  changed(waiting: ApprovalRequest[]): void;
  log: Logger;
}

interface Waiting {
  request: ApprovalRequest;
  settle(decision: ApprovalDecision | Error): void;
}

const declined = (why: string) => new TxdeskError('DECLINED', why);

/** A rule's spends are written at most this often (they change with every transaction it lets through). */
const SPEND_WRITE_MS = 1_000;

export function createApprovals(d: ApprovalsDeps) {
  const waiting = new Map<string, Waiting>();
  // The rules live here and are written through: at once when a person changes them, within a second for spends
  // (a crash may forget up to a second of spends, so a tool may exceed its day by that much).
  let rules = d.rules.load();
  let spendTimer: NodeJS.Timeout | null = null;
  const writeRules = () => {
    if (spendTimer) clearTimeout(spendTimer);
    spendTimer = null;
    d.rules.save(rules);
  };
  const writeSpendsSoon = () => {
    spendTimer ??= setTimeout(writeRules, SPEND_WRITE_MS);
    spendTimer.unref();
  };
  const iso = (ms: number) => new Date(ms).toISOString();
  const list = () => [...waiting.values()].map((w) => w.request);

  /** Puts a request in front of the person and resolves with the answer; rejects DECLINED on no, time-out or stop. */
  function ask(partial: Omit<ApprovalRequest, 'id' | 'createdAt' | 'expiresAt'>): Promise<ApprovalDecision> {
    const now = d.clock.now();
    const timeout = d.timeoutMs();
    const request: ApprovalRequest = { ...partial, id: randomUUID(), createdAt: iso(now), expiresAt: iso(now + timeout) };
    return new Promise<ApprovalDecision>((resolve, reject) => {
      const timer = setTimeout(
        () =>
          settle(
            declined(
              `Nobody answered this request in the app within ${Math.round(timeout / 1000)} s, so it was declined; ask ` +
                `again and approve it in the txdesk window.`,
            ),
          ),
        timeout,
      );
      timer.unref();
      const settle = (answer: ApprovalDecision | Error) => {
        if (!waiting.delete(request.id)) return;
        clearTimeout(timer);
        d.changed(list());
        if (answer instanceof Error) reject(answer);
        // "User denied" as wallets word it: ethers reports a refusal (ACTION_REJECTED) by these words, not by the code.
        else if (!answer.approve) reject(declined('User denied the request: it was declined in the txdesk app.'));
        else resolve(answer);
      };
      waiting.set(request.id, { request, settle });
      d.log.info(`waiting for approval of a ${request.kind} from ${request.requester.label} (${request.id})`);
      d.changed(list());
    });
  }

  const ruleOf = (rules: StoredRule[], who: Requester) =>
    rules.find((r) => r.requester.kind === who.kind && r.requester.fingerprint === who.fingerprint);

  return {
    required: d.required,

    /** Resolves when `payload` may be signed: at once on the dev chain or within a rule, else after a yes. */
    async gateTransaction(payload: TxPayload, requester: Requester, firstFeeWei?: bigint | null): Promise<void> {
      if (!d.required) return;
      const policy = d.policy();
      const cap = BigInt(policy.maxFeeWei);
      const maxCost = worstCost(payload, cap);
      const rule = ruleOf(rules, requester);
      if (rule && ruleAllows(rule, maxCost, d.clock.now())) {
        rules = rules.map((r) => (r.id === rule.id ? withSpend(r, maxCost, d.clock.now()) : r));
        writeSpendsSoon();
        d.log.info(`a transaction of at most ${formatEth(maxCost, 'up')} ETH from ${requester.label} went through under its standing rule`);
        return;
      }
      const decision = await ask({
        kind: 'transaction',
        requester,
        transaction: {
          ...payload,
          ...calledFunction(payload.to, payload.input),
          feeFromWei: (firstFeeWei ?? BigInt(policy.initialFeeWei)).toString(),
          feeCapWei: policy.maxFeeWei,
          maxCostWei: maxCost.toString(),
        },
      });
      if (decision.allowPerDayWei !== undefined) {
        const now = d.clock.now();
        const fresh: StoredRule = { id: randomUUID(), requester, maxPerDayWei: decision.allowPerDayWei, createdAt: iso(now), spends: [] };
        // The approved transaction counts against the new rule's day.
        const others = rules.filter((r) => !(r.requester.kind === requester.kind && r.requester.fingerprint === requester.fingerprint));
        rules = [...others, withSpend(fresh, maxCost, now)];
        writeRules();
      }
    },

    /** personal_sign: resolves when the message may be signed. Signatures always ask: one may move tokens (permits). */
    async gateMessage(bytes: Uint8Array, requester: Requester): Promise<void> {
      if (!d.required) return;
      const hex = `0x${Buffer.from(bytes).toString('hex')}`;
      let text: string | null = null;
      try {
        text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
      } catch {
        /* not text: shown as hex only */
      }
      await ask({ kind: 'message', requester, message: { text, hex } });
    },

    /** eth_signTypedData_v4: resolves when the typed data may be signed. */
    async gateTypedData(data: TypedData, requester: Requester): Promise<void> {
      if (!d.required) return;
      await ask({
        kind: 'typed-data',
        requester,
        typedData: { primaryType: data.primaryType, domain: data.domain, message: data.message },
      });
    },

    list,

    /** The person's answer; a request already answered, expired or unknown is a 404. */
    decide(id: string, decision: ApprovalDecision): void {
      const w = waiting.get(id);
      if (!w)
        throw new TxdeskError(
          'NOT_FOUND',
          `No request ${id} is waiting for approval (answered, expired or never made); see the waiting ones with GET /api/approvals.`,
        );
      if (decision.allowPerDayWei !== undefined && (!decision.approve || w.request.kind !== 'transaction')) {
        throw new TxdeskError(
          'INVALID_PARAMETER',
          'A standing rule comes only with the approval of a transaction; approve without allowPerDayWei.',
        );
      }
      w.settle(decision);
    },

    rules(): ApprovalRule[] {
      const now = d.clock.now();
      return rules.map((r) => ({
        id: r.id,
        requester: r.requester,
        maxPerDayWei: r.maxPerDayWei,
        spentWei: spentWithin(r, now).toString(),
        createdAt: r.createdAt,
      }));
    },

    revoke(id: string): void {
      if (!rules.some((r) => r.id === id))
        throw new TxdeskError('NOT_FOUND', `There is no standing rule ${id}; list them with GET /api/approval-rules.`);
      rules = rules.filter((r) => r.id !== id);
      writeRules();
    },

    /** Declines everything still waiting (the app is stopping). */
    stop(): void {
      if (spendTimer) writeRules();
      for (const w of [...waiting.values()])
        w.settle(declined('The txdesk app stopped before the request was answered; ask again once it runs.'));
    },
  };
}

export type Approvals = ReturnType<typeof createApprovals>;
