// The webhook signature as a receiver meets it: what verifies (round trip, either secret during a rotation, string or
// bytes), what does not and why (wrong secret, changed body, stale or future timestamp), and that no header, however
// broken, throws or verifies.
import { createHmac } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import * as sdk from '@txdesk/tracker';
import { signWebhook, verifyWebhook, WEBHOOK_SIGNATURE_HEADER } from '@txdesk/tracker/webhook-signature';

const SECRET = 'whsec_0123456789abcdef';
const OLD_SECRET = 'whsec_old_fedcba9876543210';
const NOW = 1_760_000_000;
const BODY = '{"deliveryId":"d1","payload":{"type":"confirmation","note":"çå 🚀"}}';

const reasonOf = (v: ReturnType<typeof verifyWebhook>) => (v.ok ? 'ok' : v.reason);

describe('signWebhook', () => {
  it('writes t=<seconds>,v1=<hex HMAC-SHA256 of "<t>.<body>">, one v1 per secret in the order given', () => {
    const header = signWebhook(BODY, [SECRET, OLD_SECRET], NOW);
    const hmac = (key: string) => createHmac('sha256', key).update(`${NOW}.${BODY}`).digest('hex');
    expect(header).toBe(`t=${NOW},v1=${hmac(SECRET)},v1=${hmac(OLD_SECRET)}`);
    expect(signWebhook(BODY, SECRET, NOW)).toBe(`t=${NOW},v1=${hmac(SECRET)}`);
    expect(signWebhook(BODY, [SECRET, SECRET], NOW)).toBe(`t=${NOW},v1=${hmac(SECRET)}`);
  });

  it.each([
    ['a fractional timestamp', () => signWebhook(BODY, SECRET, NOW + 0.5)],
    ['a timestamp that is not a number', () => signWebhook(BODY, SECRET, Number.NaN)],
    ['a negative timestamp', () => signWebhook(BODY, SECRET, -1)],
    ['no secret', () => signWebhook(BODY, [], NOW)],
    ['an empty secret', () => signWebhook(BODY, ['', SECRET], NOW)],
  ])('throws on %s', (_what, call) => {
    expect(call).toThrow(RangeError);
  });

  it('is exported by the SDK, with the header name in lower case', () => {
    expect(sdk.signWebhook).toBe(signWebhook);
    expect(sdk.verifyWebhook).toBe(verifyWebhook);
    expect(sdk.WEBHOOK_SIGNATURE_HEADER).toBe('txdesk-signature');
    expect(WEBHOOK_SIGNATURE_HEADER).toBe(WEBHOOK_SIGNATURE_HEADER.toLowerCase());
  });
});

describe('verifyWebhook', () => {
  it('accepts what signWebhook signed and gives its timestamp', () => {
    expect(verifyWebhook(BODY, signWebhook(BODY, SECRET, NOW), SECRET, { nowSeconds: NOW })).toEqual({ ok: true, timestamp: NOW });
  });

  it('round-trips any body, secret and time within the tolerance', () => {
    fc.assert(
      fc.property(
        fc.string({ unit: 'grapheme' }),
        fc.string({ minLength: 1 }),
        fc.integer({ min: 0, max: 2 ** 40 }),
        fc.integer({ min: -300, max: 300 }),
        (body, secret, t, skew) => {
          const v = verifyWebhook(body, signWebhook(body, secret, t), secret, { nowSeconds: t + skew });
          expect(v).toEqual({ ok: true, timestamp: t });
        },
      ),
    );
  });

  it('verifies a body given as a string or as its UTF-8 bytes alike, whichever form was signed', () => {
    const bytes = new TextEncoder().encode(BODY);
    const fromString = signWebhook(BODY, SECRET, NOW);
    expect(signWebhook(bytes, SECRET, NOW)).toBe(fromString);
    expect(verifyWebhook(bytes, fromString, SECRET, { nowSeconds: NOW }).ok).toBe(true);
    expect(verifyWebhook(Buffer.from(BODY), fromString, SECRET, { nowSeconds: NOW }).ok).toBe(true);
    expect(verifyWebhook(BODY, signWebhook(bytes, SECRET, NOW), SECRET, { nowSeconds: NOW }).ok).toBe(true);
  });

  it('refuses another secret, and says to check the secret', () => {
    const v = verifyWebhook(BODY, signWebhook(BODY, SECRET, NOW), 'whsec_someone_else', { nowSeconds: NOW });
    expect(reasonOf(v)).toMatch(/^The signature does not match: check the webhook's secret \(it is shown once at creation or rotation\)/);
  });

  it('refuses a body changed by one byte, or re-serialised', () => {
    const header = signWebhook(BODY, SECRET, NOW);
    expect(verifyWebhook(BODY.replace('d1', 'd2'), header, SECRET, { nowSeconds: NOW }).ok).toBe(false);
    expect(verifyWebhook(`${BODY} `, header, SECRET, { nowSeconds: NOW }).ok).toBe(false);
    expect(verifyWebhook(JSON.stringify(JSON.parse(BODY), null, 2), header, SECRET, { nowSeconds: NOW }).ok).toBe(false);
  });

  it('refuses a timestamp moved without re-signing', () => {
    const header = signWebhook(BODY, SECRET, NOW).replace(`t=${NOW}`, `t=${NOW + 1}`);
    expect(reasonOf(verifyWebhook(BODY, header, SECRET, { nowSeconds: NOW }))).toMatch(/does not match/);
  });

  it('refuses a signature older than the tolerance as a possible replay (the boundary itself is inside)', () => {
    const header = signWebhook(BODY, SECRET, NOW);
    expect(verifyWebhook(BODY, header, SECRET, { nowSeconds: NOW + 300 }).ok).toBe(true);
    const late = verifyWebhook(BODY, header, SECRET, { nowSeconds: NOW + 301 });
    expect(reasonOf(late)).toMatch(/^The signature is 301 s old, more than the 300 s allowed: this may be a replayed request/);
    expect(verifyWebhook(BODY, header, SECRET, { nowSeconds: NOW + 3600, toleranceSeconds: 3600 }).ok).toBe(true);
    expect(verifyWebhook(BODY, header, SECRET, { nowSeconds: NOW + 11, toleranceSeconds: 10 }).ok).toBe(false);
  });

  it('refuses a signature dated more than the tolerance in the future, naming a replay or a clock', () => {
    const header = signWebhook(BODY, SECRET, NOW + 301);
    expect(reasonOf(verifyWebhook(BODY, header, SECRET, { nowSeconds: NOW }))).toMatch(
      /^The signature is dated 301 s in the future.*replayed request, or this machine's clock is behind\.$/,
    );
    expect(verifyWebhook(BODY, signWebhook(BODY, SECRET, NOW + 300), SECRET, { nowSeconds: NOW }).ok).toBe(true);
  });

  it('uses the clock when no time is given', () => {
    const t = Math.floor(Date.now() / 1000);
    expect(verifyWebhook(BODY, signWebhook(BODY, SECRET, t), SECRET).ok).toBe(true);
    expect(verifyWebhook(BODY, signWebhook(BODY, SECRET, t - 3600), SECRET).ok).toBe(false);
  });

  it('during a rotation verifies with either secret, and with neither a third', () => {
    const header = signWebhook(BODY, [SECRET, OLD_SECRET], NOW);
    expect(verifyWebhook(BODY, header, SECRET, { nowSeconds: NOW }).ok).toBe(true);
    expect(verifyWebhook(BODY, header, OLD_SECRET, { nowSeconds: NOW }).ok).toBe(true);
    expect(verifyWebhook(BODY, header, 'whsec_third', { nowSeconds: NOW }).ok).toBe(false);
  });

  it('reads the header with spaces around its parts, upper-case hex, and keys of later schemes beside v1', () => {
    const header = signWebhook(BODY, SECRET, NOW);
    const [t, v1] = header.split(',') as [string, string];
    for (const variant of [
      `${t}, ${v1}`,
      ` ${v1} , ${t} `,
      `${t},v1=${v1.slice(3).toUpperCase()}`,
      `${t},v2=abc,${v1}`,
      `${t},v1=${'0'.repeat(64)},${v1}`,
    ]) {
      expect(verifyWebhook(BODY, variant, SECRET, { nowSeconds: NOW }).ok, variant).toBe(true);
    }
  });

  it.each([
    [undefined, /^The request has no txdesk-signature header/],
    [null, /^The request has no txdesk-signature header/],
    ['', /^The request has no txdesk-signature header/],
    ['   ', /^The request has no txdesk-signature header/],
    ['sha256=abcdef', /is malformed: expected t=<unix seconds>,v1=<hex signature>\.$/],
    [`t=${NOW}`, /has no v1 signature/],
    [`t=${NOW},v2=abc`, /has no v1 signature/],
    [`v1=${'a'.repeat(64)}`, /is malformed/],
    [`t=${NOW},t=${NOW},v1=${'a'.repeat(64)}`, /is malformed/],
    [`t=-5,v1=${'a'.repeat(64)}`, /is malformed/],
    [`t=1.5,v1=${'a'.repeat(64)}`, /is malformed/],
    [`t=${NOW},v1=${'a'.repeat(63)}`, /is malformed/],
    [`t=${NOW},v1=${'g'.repeat(64)}`, /is malformed/],
    [`t=${NOW},v1=${'a'.repeat(64)},`, /is malformed/],
    [`t=${NOW},v1=${'a'.repeat(64)}`, /does not match/],
    [`t=${NOW},${'v1=aa,'.repeat(2000)}`, /is malformed/],
  ])('refuses the header %j with a reason', (header, reason) => {
    expect(reasonOf(verifyWebhook(BODY, header, SECRET, { nowSeconds: NOW }))).toMatch(reason);
  });

  it('says so when the body was parsed or the secret is missing, instead of throwing', () => {
    const header = signWebhook(BODY, SECRET, NOW);
    expect(reasonOf(verifyWebhook(JSON.parse(BODY) as string, header, SECRET, { nowSeconds: NOW }))).toMatch(/raw request body/);
    expect(reasonOf(verifyWebhook(BODY, header, '', { nowSeconds: NOW }))).toMatch(/^No secret was given/);
    expect(reasonOf(verifyWebhook(BODY, header, undefined as unknown as string, { nowSeconds: NOW }))).toMatch(/^No secret was given/);
  });

  it('throws on options that are not seconds (a mistake in the receiver, not in a request)', () => {
    const header = signWebhook(BODY, SECRET, NOW);
    expect(() => verifyWebhook(BODY, header, SECRET, { toleranceSeconds: -1 })).toThrow(RangeError);
    expect(() => verifyWebhook(BODY, header, SECRET, { nowSeconds: Number.NaN })).toThrow(RangeError);
  });

  it('never throws on and never accepts an arbitrary header, or one mangled from a real one', () => {
    const real = signWebhook(BODY, SECRET, NOW);
    const mangled = fc
      .tuple(fc.nat({ max: real.length }), fc.nat({ max: 8 }), fc.string({ maxLength: 8 }))
      .map(([at, cut, insert]) => real.slice(0, at) + insert + real.slice(at + cut))
      .filter((h) => h !== real);
    const headers = fc.oneof(
      fc.string(),
      fc.string({ unit: 'binary' }),
      mangled,
      fc.constantFrom('t=', 'v1=', ',', '=', 't=1,v1=', `t=${NOW},v1=`),
    );
    fc.assert(
      fc.property(headers, (header) => {
        const v = verifyWebhook(BODY, header, SECRET, { nowSeconds: NOW });
        // A mangling that only adds spaces or keys of other schemes is the same signature, read leniently.
        if (v.ok)
          expect(
            header
              .replace(/\s/g, '')
              .toLowerCase()
              .split(',')
              .filter((p) => /^(t|v1)=/.test(p))
              .sort()
              .join(','),
          ).toBe(real.split(',').sort().join(','));
        else expect(v.reason).toMatch(/^[A-Z].*\.$/);
      }),
      { numRuns: 2000 },
    );
  });
});
