// Requests from local tools waiting for a person (configured networks): the waiting list as the core last pushed it,
// the person's answer, and the standing rules that let a tool's transactions through without asking.
import type { ApprovalDecision, ApprovalRequest, ApprovalRule } from '../../../../shared/approvals.js';
import { errorInfo, type ErrorInfo } from '../../transport/api-error.js';
import type { ActionResult } from './settings-slice.js';
import type { LoadState, SliceCreator } from './types.js';

export interface ApprovalsSlice {
  /** Oldest first, as the core lists them; [] on the embedded dev chain. */
  approvals: ApprovalRequest[];
  approvalRules: ApprovalRule[];
  approvalRulesState: LoadState;
  approvalRulesError: ErrorInfo | null;
  /** Reads the waiting requests (at start and after the event stream was away). */
  loadApprovals(): Promise<void>;
  /** The waiting requests as the core pushed them after a change. */
  applyApprovals(waiting: ApprovalRequest[]): void;
  /** Sends the person's answer; the request leaves the list once the core has it (or says it is no longer waiting). */
  decideApproval(id: string, decision: ApprovalDecision): Promise<ActionResult>;
  loadApprovalRules(): Promise<void>;
  revokeApprovalRule(id: string): Promise<ActionResult>;
}

export const createApprovalsSlice: SliceCreator<ApprovalsSlice> = (api) => (set, get) => {
  // A list read before a push arrived is older than the push: counting pushes lets a late answer be dropped.
  let pushes = 0;
  const without = (id: string) => get().approvals.filter((a) => a.id !== id);

  return {
    approvals: [],
    approvalRules: [],
    approvalRulesState: 'idle',
    approvalRulesError: null,
    async loadApprovals() {
      const seen = pushes;
      try {
        const waiting = await api.listApprovals();
        if (seen === pushes) set({ approvals: waiting });
      } catch {
        // Nothing to show is the safe reading: the next push or reconnect reads the list again.
      }
    },
    applyApprovals(waiting) {
      pushes++;
      set({ approvals: waiting });
    },
    async decideApproval(id, decision) {
      try {
        await api.decideApproval(id, decision);
      } catch (e) {
        const error = errorInfo(e);
        // The core no longer has it (expired, or answered in another window): it is not waiting any more.
        if (error.code === 'NOT_FOUND') set({ approvals: without(id) });
        return error;
      }
      set({ approvals: without(id) });
      if (decision.allowPerDayWei !== undefined) void get().loadApprovalRules();
      return null;
    },
    async loadApprovalRules() {
      if (get().approvalRulesState !== 'ready') set({ approvalRulesState: 'loading', approvalRulesError: null });
      try {
        set({ approvalRules: await api.listApprovalRules(), approvalRulesState: 'ready', approvalRulesError: null });
      } catch (e) {
        set({ approvalRulesState: 'error', approvalRulesError: errorInfo(e) });
      }
    },
    async revokeApprovalRule(id) {
      try {
        await api.revokeApprovalRule(id);
      } catch (e) {
        return errorInfo(e);
      }
      set({ approvalRules: get().approvalRules.filter((r) => r.id !== id) });
      void get().loadApprovalRules();
      return null;
    },
  };
};
