// Webhook signatures: the service signs every delivery with signWebhook, and a receiver checks it with verifyWebhook
// before it trusts (or even parses) the body. The header is `txdesk-signature: t=<unix seconds>,v1=<hex HMAC-SHA256>`,
// the HMAC keyed with the webhook's secret over `<t>.<raw body>`. The timestamp sits inside the MAC so that a captured
// delivery stops verifying after the tolerance; several v1 entries let either secret verify while one is rotated.
import { createHmac, timingSafeEqual } from 'node:crypto';

/** The header's name. HTTP header names are case-insensitive: Node hands it to a receiver in lower case. */
export const WEBHOOK_SIGNATURE_HEADER = 'txdesk-signature';

export type WebhookVerification = { ok: true; timestamp: number } | { ok: false; reason: string };

const DEFAULT_TOLERANCE_SECONDS = 300;
// A header we send is under 200 characters (two v1 entries during a rotation); parsing stops well before a header
// large enough to cost anything.
const MAX_HEADER_LENGTH = 4096;
const TIMESTAMP = /^\d{1,16}$/; // and a safe integer, as signWebhook requires
const V1_HEX = /^[0-9a-fA-F]{64}$/;
const FORMAT = 't=<unix seconds>,v1=<hex signature>';

function mac(body: string | Uint8Array, secret: string, timestampSeconds: number): Buffer {
  // A string body goes in as UTF-8, the bytes a receiver reads off the wire, so both forms give the same MAC.
  return createHmac('sha256', Buffer.from(secret, 'utf8')).update(`${timestampSeconds}.`, 'utf8').update(body).digest();
}

/**
 * The header value for `body` sent at `timestampSeconds`: one v1 entry per secret (the new secret first during a
 * rotation). Throws a RangeError on a timestamp that is not whole unix seconds or on no (or an empty) secret: both are
 * mistakes in the caller, never in a delivery.
 */
export function signWebhook(body: string | Uint8Array, secrets: string | readonly string[], timestampSeconds: number): string {
  if (!Number.isSafeInteger(timestampSeconds) || timestampSeconds < 0) {
    throw new RangeError(`signWebhook needs the time as whole unix seconds, not ${String(timestampSeconds)}.`);
  }
  const keys = typeof secrets === 'string' ? [secrets] : [...new Set(secrets)];
  if (keys.length === 0 || keys.some((k) => typeof k !== 'string' || k === '')) {
    throw new RangeError('signWebhook needs at least one secret, and no empty one.');
  }
  return [`t=${timestampSeconds}`, ...keys.map((k) => `v1=${mac(body, k, timestampSeconds).toString('hex')}`)].join(',');
}

/** The timestamp and v1 signatures of a header, or why it is not one of ours. */
function parseHeader(header: string | null | undefined): { timestamp: number; signatures: Buffer[] } | { reason: string } {
  if (typeof header !== 'string' || header.trim() === '') {
    return {
      reason: `The request has no ${WEBHOOK_SIGNATURE_HEADER} header: it was not sent by txdesk, or something on the way dropped the header.`,
    };
  }
  const malformed = { reason: `The ${WEBHOOK_SIGNATURE_HEADER} header is malformed: expected ${FORMAT}.` };
  if (header.length > MAX_HEADER_LENGTH) return malformed;
  let timestamp: number | null = null;
  const signatures: Buffer[] = [];
  for (const item of header.split(',')) {
    const eq = item.indexOf('=');
    if (eq < 0) return malformed;
    const key = item.slice(0, eq).trim();
    const value = item.slice(eq + 1).trim();
    if (key === 't') {
      if (timestamp !== null || !TIMESTAMP.test(value) || !Number.isSafeInteger(Number(value))) return malformed;
      timestamp = Number(value);
    } else if (key === 'v1') {
      if (!V1_HEX.test(value)) return malformed;
      signatures.push(Buffer.from(value, 'hex'));
    } else if (!/^[a-z0-9]+$/.test(key)) {
      return malformed;
    } // Other keys are left alone, so that a later scheme (v2=) can be added beside v1 without breaking receivers.
  }
  if (timestamp === null) return malformed;
  if (signatures.length === 0) return { reason: `The ${WEBHOOK_SIGNATURE_HEADER} header has no v1 signature: expected ${FORMAT}.` };
  return { timestamp, signatures };
}

/**
 * Whether `header` signs `body` with `secret` at a time within `toleranceSeconds` (default 300) of `nowSeconds`
 * (default the clock). `body` must be the raw request body exactly as received. Never throws on what a request
 * carries; throws a RangeError only on options that are not numbers of seconds.
 */
export function verifyWebhook(
  body: string | Uint8Array,
  header: string | null | undefined,
  secret: string,
  opts: { toleranceSeconds?: number; nowSeconds?: number } = {},
): WebhookVerification {
  const tolerance = opts.toleranceSeconds ?? DEFAULT_TOLERANCE_SECONDS;
  const now = opts.nowSeconds ?? Date.now() / 1000;
  if (!Number.isFinite(tolerance) || tolerance < 0)
    throw new RangeError(`toleranceSeconds must be a number of seconds, not ${String(tolerance)}.`);
  if (!Number.isFinite(now)) throw new RangeError(`nowSeconds must be unix seconds, not ${String(now)}.`);

  const parsed = parseHeader(header);
  if ('reason' in parsed) return { ok: false, reason: parsed.reason };
  if (typeof body !== 'string' && !(body instanceof Uint8Array)) {
    return { ok: false, reason: 'The body must be the raw request body as received (a string or bytes), not parsed JSON.' };
  }
  if (typeof secret !== 'string' || secret === '') {
    return {
      ok: false,
      reason: "No secret was given to check the signature with: pass the webhook's secret (it is shown once at creation or rotation).",
    };
  }

  const expected = mac(body, secret, parsed.timestamp);
  // Every entry is compared, in constant time each, so the time taken says nothing about which bytes were right.
  let matched = false;
  for (const given of parsed.signatures) {
    if (given.length === expected.length && timingSafeEqual(given, expected)) matched = true;
  }
  if (!matched) {
    return {
      ok: false,
      reason:
        "The signature does not match: check the webhook's secret (it is shown once at creation or rotation) and that the " +
        'body is the raw request body, not re-serialised JSON.',
    };
  }

  // Checked after the MAC, so these reasons are only given for deliveries txdesk really signed.
  const age = now - parsed.timestamp;
  if (age > tolerance) {
    return {
      ok: false,
      reason:
        `The signature is ${Math.round(age)} s old, more than the ${tolerance} s allowed: this may be a replayed ` +
        `request (if it keeps happening, check this machine's clock).`,
    };
  }
  if (-age > tolerance) {
    return {
      ok: false,
      reason:
        `The signature is dated ${Math.round(-age)} s in the future, more than the ${tolerance} s allowed: this may ` +
        `be a replayed request, or this machine's clock is behind.`,
    };
  }
  return { ok: true, timestamp: parsed.timestamp };
}
