// Pure JSON-RPC 2.0 handling for the tracker socket: turns one text frame into validated commands or error replies
// (docs/tracker-protocol.md §2). Nothing here does I/O, so every malformed-frame case is a table row in the tests.
import { z } from 'zod';
import {
  MAX_BATCH_LENGTH,
  RPC_INVALID_PARAMS,
  RPC_INVALID_REQUEST,
  RPC_METHOD_NOT_FOUND,
  RPC_PARSE_ERROR,
  checkAckTimeout,
  checkSubscriptionId,
  parseTrackParams,
  type Checked,
} from '@txdesk/tracker/tracker-wire';

export type RpcId = number | string | null;

export type TrackerCommand =
  | { method: 'track_transaction'; hash: string; confirmation: number; timeout: number }
  | { method: 'tracker_subscribe'; subscriptionId: string; ackTimeout: number }
  | { method: 'tracker_unsubscribe'; subscriptionId: string }
  | { method: 'ack'; ackId: string }
  | { method: 'HEARTBEAT' };

/** One request of a frame: a command to run, or an error to answer with. `notify` requests get no reply. */
export type FrameItem =
  | { ok: true; id: RpcId; notify: boolean; command: TrackerCommand }
  | { ok: false; id: RpcId; notify: boolean; code: number; message: string };

export interface ParsedFrame {
  batch: boolean;
  items: FrameItem[];
}

const envelope = z.object({
  jsonrpc: z.literal('2.0'),
  id: z.union([z.number().int(), z.string().max(128), z.null()]).optional(),
  method: z.string().min(1).max(64),
  params: z.array(z.unknown()).optional(),
});

export function parseFrame(text: string, minAckTimeoutMs: number): ParsedFrame {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    return { batch: false, items: [fail(null, false, RPC_PARSE_ERROR, 'Parse error: the frame is not valid JSON.')] };
  }
  if (Array.isArray(raw)) {
    if (raw.length === 0) return { batch: false, items: [fail(null, false, RPC_INVALID_REQUEST, 'Invalid request: an empty batch.')] };
    if (raw.length > MAX_BATCH_LENGTH) {
      return {
        batch: false,
        items: [fail(null, false, RPC_INVALID_REQUEST, `Invalid request: a batch holds at most ${MAX_BATCH_LENGTH} requests.`)],
      };
    }
    return { batch: true, items: raw.map((r) => parseRequest(r, minAckTimeoutMs)) };
  }
  return { batch: false, items: [parseRequest(raw, minAckTimeoutMs)] };
}

function parseRequest(raw: unknown, minAckTimeoutMs: number): FrameItem {
  const rawId = typeof raw === 'object' && raw !== null && 'id' in raw ? (raw as { id: unknown }).id : null;
  const parsed = envelope.safeParse(raw);
  if (!parsed.success) {
    const id: RpcId = typeof rawId === 'number' || typeof rawId === 'string' ? rawId : null;
    const issue = parsed.error.issues[0];
    const where = issue && issue.path.length > 0 ? issue.path.join('.') : 'request';
    return fail(
      id,
      false,
      RPC_INVALID_REQUEST,
      `Invalid request: ${where} is wrong; send {"jsonrpc":"2.0","id":<integer>,"method":…,"params":[…]}.`,
    );
  }
  const { method, params = [] } = parsed.data;
  const notify = parsed.data.id === undefined;
  const id = parsed.data.id ?? null;
  const command = parseCommand(method, params, minAckTimeoutMs);
  if (command === null)
    return fail(
      id,
      notify,
      RPC_METHOD_NOT_FOUND,
      `Method not found: ${method}; the tracker speaks track_transaction, tracker_subscribe, tracker_unsubscribe, ack and HEARTBEAT.`,
    );
  if (!command.ok) return fail(id, notify, RPC_INVALID_PARAMS, `Invalid params: ${command.message}`);
  return { ok: true, id, notify, command: command.value };
}

function parseCommand(method: string, params: unknown[], minAckTimeoutMs: number): Checked<TrackerCommand> | null {
  switch (method) {
    case 'track_transaction': {
      const r = parseTrackParams(params);
      return r.ok ? { ok: true, value: { method, ...r.value } } : r;
    }
    case 'tracker_subscribe': {
      if (params.length < 1 || params.length > 3) return bad('params must be [subscriptionId, "transaction", ackTimeout|null].');
      const sub = checkSubscriptionId(params[0], 'params[0] (subscriptionId)');
      if (!sub.ok) return sub;
      if (params.length >= 2 && params[1] !== 'transaction') return bad('params[1] (topic) must be "transaction".');
      const ack = checkAckTimeout(params[2], minAckTimeoutMs, 'params[2] (ackTimeout)');
      if (!ack.ok) return ack;
      return { ok: true, value: { method, subscriptionId: sub.value, ackTimeout: ack.value } };
    }
    case 'tracker_unsubscribe': {
      if (params.length !== 1) return bad('params must be [subscriptionId].');
      const sub = checkSubscriptionId(params[0], 'params[0] (subscriptionId)');
      return sub.ok ? { ok: true, value: { method, subscriptionId: sub.value } } : sub;
    }
    case 'ack': {
      const ackId = params[0];
      if (params.length !== 1 || typeof ackId !== 'string' || ackId.length === 0 || ackId.length > 128) {
        return bad('params[0] (ackId) must be the ackId string of a delivered message.');
      }
      return { ok: true, value: { method, ackId } };
    }
    case 'HEARTBEAT':
      return { ok: true, value: { method } };
    default:
      return null;
  }
}

function bad(message: string): Checked<never> {
  return { ok: false, message };
}

function fail(id: RpcId, notify: boolean, code: number, message: string): FrameItem {
  return { ok: false, id, notify, code, message };
}

export function resultFrame(id: RpcId, result: unknown): string {
  return JSON.stringify({ jsonrpc: '2.0', id, result });
}

export function errorFrame(id: RpcId, code: number, message: string): string {
  return JSON.stringify({ jsonrpc: '2.0', id, error: { code, message } });
}
