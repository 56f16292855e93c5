// Formatting of wei, gwei, ether, hashes and times for display; pure, shared by every feature.
import { formatGwei } from '../../../shared/fee-words.js';

const GWEI = 1_000_000_000n;
const ETHER = 1_000_000_000_000_000_000n;

function toBigInt(value: string | number | bigint | null | undefined): bigint | null {
  if (value === null || value === undefined || value === '') return null;
  try {
    if (typeof value === 'number') return Number.isFinite(value) ? BigInt(Math.trunc(value)) : null;
    return BigInt(value);
  } catch {
    return null;
  }
}

/** From this amount (0.00001 ETH) up an amount reads in ETH; below it, in gwei, so it is not a row of zeros. */
const ETH_FROM_WEI = 10_000_000_000_000n;
/** Below this an amount reads in wei, as fees do (formatFee). */
const GWEI_FROM_WEI = 100_000n;

/** `value` in `unit` with at most `decimals` decimals, rounded toward zero, trailing zeros dropped. */
function truncUnits(value: bigint, unit: bigint, decimals: number): string {
  const whole = value / unit;
  const digits = unit.toString().length - 1;
  const frac = (value % unit).toString().padStart(digits, '0').slice(0, decimals).replace(/0+$/, '');
  return `${whole.toLocaleString('en-US')}${frac ? `.${frac}` : ''}`;
}

/**
 * Every ETH amount the app shows (the balance in the sidebar and Settings, the Send form's hint and button, what a
 * nonce sends), one way and with its unit: from 0.00001 ETH in ETH, below that in gwei, below 100,000 wei in wei, so
 * no amount reads as a row of zeros ("1 wei", "5,000 gwei", "0.125 ETH"). `short` keeps four significant decimals
 * and rounds toward zero, so a balance never looks larger than it is (99.98949 ETH reads "99.9894 ETH");
 * `exact` keeps every digit, for an amount about to be sent or that was sent.
 */
export function formatEthAmount(wei: string | number | bigint | null | undefined, precision: 'short' | 'exact' = 'short'): string {
  const v = toBigInt(wei);
  if (v === null) return '—';
  const sign = v < 0n ? '-' : '';
  const abs = v < 0n ? -v : v;
  if (abs === 0n) return '0 ETH';
  if (abs < GWEI_FROM_WEI) return `${sign}${abs.toLocaleString('en-US')} wei`;
  if (abs < ETH_FROM_WEI) return `${sign}${truncUnits(abs, GWEI, precision === 'exact' ? 9 : 4)} gwei`;
  if (precision === 'exact') return `${sign}${truncUnits(abs, ETHER, 18)} ETH`;
  // Four significant decimals: after the zeros that lead a fraction below 1 (0.0123456 -> "0.01234").
  const leadingZeros = abs < ETHER ? 18 - abs.toString().length : 0;
  return `${sign}${truncUnits(abs, ETHER, leadingZeros + 4)} ETH`;
}

/** Wei as a float of gwei, for charts only (precision is irrelevant there). */
export function weiToGweiNumber(wei: string | number | bigint | null | undefined): number {
  const v = toBigInt(wei);
  return v === null ? 0 : Number(v) / 1e9;
}

/** "1.5" gwei -> "1500000000" wei; null when the text is not a non-negative decimal with at most 9 decimals. */
export function parseGweiToWei(text: string): string | null {
  const m = /^\s*(\d{1,30})(?:\.(\d{0,9}))?\s*$/.exec(text);
  if (!m) return null;
  const whole = BigInt(m[1]!);
  const frac = BigInt((m[2] ?? '').padEnd(9, '0') || '0');
  return (whole * GWEI + frac).toString();
}

/** Wei -> gwei text an input can show and parseGweiToWei can read back exactly. */
export function weiToGweiInput(wei: string): string {
  const v = toBigInt(wei);
  if (v === null) return '';
  const whole = v / GWEI;
  const frac = (v % GWEI).toString().padStart(9, '0').replace(/0+$/, '');
  return frac ? `${whole}.${frac}` : whole.toString();
}

export function shortHex(hex: string | null | undefined, head = 6, tail = 4): string {
  if (!hex) return '—';
  return hex.length <= head + tail + 1 ? hex : `${hex.slice(0, head)}…${hex.slice(-tail)}`;
}

export function formatInteger(n: number | string | null | undefined): string {
  if (n === null || n === undefined || n === '') return '—';
  const v = typeof n === 'number' ? n : Number(n);
  return Number.isFinite(v) ? v.toLocaleString('en-US') : String(n);
}

/** Local time of day with seconds, for timelines: "14:03:27". */
export function formatTime(iso: string): string {
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return '—';
  return d.toLocaleTimeString('en-GB', { hour12: false });
}

/** Whole seconds between two instants, as "+2.4 s" style offsets in timelines. */
export function formatOffset(fromIso: string, toIso: string): string {
  const ms = new Date(toIso).getTime() - new Date(fromIso).getTime();
  if (!Number.isFinite(ms)) return '';
  return ms < 1000
    ? `+${ms} ms`
    : ms < 60_000
      ? `+${(ms / 1000).toFixed(1)} s`
      : `+${Math.floor(ms / 60_000)} min ${Math.round((ms % 60_000) / 1000)} s`;
}

/** Every fee the app shows, one way, the way the core's sentences write it (shared/fee-words.ts): "1.8 gwei", "7 wei". */
export function formatFee(wei: string | number | bigint | null | undefined): string {
  const v = toBigInt(wei);
  return v === null ? '—' : formatGwei(v);
}

/** How long ago, in the largest whole unit: "12 s", "3 min", "2 h", "4 days". */
export function formatDuration(ms: number): string {
  const s = Math.max(0, Math.floor(ms / 1000));
  if (s < 60) return `${s} s`;
  const min = Math.floor(s / 60);
  if (min < 60) return `${min} min`;
  const h = Math.floor(min / 60);
  if (h < 48) return `${h} h`;
  const days = Math.floor(h / 24);
  return `${days} days`;
}

/** "waiting 3 min", "confirmed 2 h ago": a verb phrase with the age of `iso` at `nowMs`. */
export function formatAge(iso: string, nowMs: number): string {
  const t = new Date(iso).getTime();
  return Number.isNaN(t) ? '—' : formatDuration(nowMs - t);
}

/** The full local date and time with the time zone, for tooltips: "24 Nov 2026, 14:03:27 CET". */
export function formatFullDate(iso: string, timeZone?: string): string {
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return '—';
  return d.toLocaleString('en-GB', {
    day: 'numeric',
    month: 'short',
    year: 'numeric',
    hour: '2-digit',
    minute: '2-digit',
    second: '2-digit',
    hour12: false,
    timeZoneName: 'short',
    ...(timeZone ? { timeZone } : {}),
  });
}
