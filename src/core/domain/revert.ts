// Why a call reverts, read from the revert data a node returns: Error(string), Panic(uint256) or a custom error's
// selector, as data (`decodeRevert`) and as the one sentence a person reads (`describeRevert`). Pure.

export type RevertReason =
  | { kind: 'error'; message: string }
  | { kind: 'panic'; code: bigint }
  | { kind: 'custom'; selector: string; data: string }
  | { kind: 'none' };

const ERROR_SELECTOR = '0x08c379a0';
const PANIC_SELECTOR = '0x4e487b71';

/** Solidity's panic codes (docs.soliditylang.org, "Panic via assert and Error via require"). */
export const PANIC_MEANINGS: Readonly<Record<number, string>> = {
  0x00: 'a generic compiler panic',
  0x01: 'an assert failed',
  0x11: 'an arithmetic overflow or underflow',
  0x12: 'a division or modulo by zero',
  0x21: 'a value too large for its enum',
  0x22: 'a corrupt storage byte array',
  0x31: 'pop() on an empty array',
  0x32: 'an array index out of bounds',
  0x41: 'too much memory allocated',
  0x51: 'a call to an uninitialized internal function',
};

const word = (hex: string, i: number): bigint | null => {
  const w = hex.slice(i * 64, (i + 1) * 64);
  return w.length === 64 ? BigInt(`0x${w}`) : null;
};

function decodeErrorString(body: string): string | null {
  const offset = word(body, 0);
  if (offset === null || offset % 32n !== 0n || offset > BigInt(body.length)) return null;
  const at = Number(offset / 32n);
  const length = word(body, at);
  if (length === null) return null;
  const bytesHex = body.slice((at + 1) * 64, (at + 1) * 64 + Number(length) * 2);
  if (bytesHex.length !== Number(length) * 2) return null;
  const bytes = Uint8Array.from(bytesHex.match(/../g) ?? [], (b) => parseInt(b, 16));
  return new TextDecoder('utf-8', { fatal: false }).decode(bytes);
}

/** The reason in `data` (0x-hex revert data); `none` when there is none (a bare `revert()` or an out-of-gas). */
export function decodeRevert(data: unknown): RevertReason {
  if (typeof data !== 'string' || !/^0x([0-9a-fA-F]{2})*$/.test(data) || data.length < 10) return { kind: 'none' };
  const hex = data.toLowerCase();
  const selector = hex.slice(0, 10);
  const body = hex.slice(10);
  if (selector === ERROR_SELECTOR) {
    const message = decodeErrorString(body);
    if (message !== null) return { kind: 'error', message };
  }
  if (selector === PANIC_SELECTOR) {
    const code = word(body, 0);
    if (code !== null) return { kind: 'panic', code };
  }
  return { kind: 'custom', selector, data: hex };
}

/** "The call would revert (…); nothing was signed: …" with the reason in words. */
export function describeRevert(r: RevertReason, nodeMessage?: string): string {
  return `The call would revert (${revertWhy(r, nodeMessage)}); nothing was signed: fix the call or its arguments and send it again.`;
}

function revertWhy(r: RevertReason, nodeMessage?: string): string {
  switch (r.kind) {
    case 'error':
      return `the contract says "${r.message}"`;
    case 'panic':
      return `Panic(0x${r.code.toString(16).padStart(2, '0')}): ${(r.code <= 0xffn ? PANIC_MEANINGS[Number(r.code)] : undefined) ?? 'an unknown panic code'}`;
    case 'custom':
      return `the contract raised the custom error ${r.selector} (look the selector up in its ABI)`;
    case 'none':
      return nodeMessage ? `the node says "${nodeMessage}", with no reason given` : 'no reason given';
  }
}
