// Amounts of ETH as people type them, to and from decimal wei, exactly: string and BigInt arithmetic, never floats
// (0.1 + 0.2 is not 0.3 in a float, and a wei more or less is someone's money). Pure.

const DECIMALS = 18;
const WEI_PER_ETH = 10n ** BigInt(DECIMALS);
/** The largest value a transaction can carry. */
const UINT256_MAX = (1n << 256n) - 1n;

export type EtherParse = { ok: true; wei: string } | { ok: false; error: string };

/**
 * "0.5", "1", ".25" -> decimal wei: digits with at most one point and 18 decimals. Spaces around are forgiven; signs,
 * exponents, commas and a second point are refused with a sentence saying what to type.
 */
export function parseEtherToWei(text: string): EtherParse {
  const t = text.trim();
  if (t === '') return { ok: false, error: 'Enter an amount in ETH, e.g. 0.05.' };
  if (t.startsWith('-')) return { ok: false, error: 'The amount cannot be negative.' };
  if (/,/.test(t)) return { ok: false, error: 'Write the amount with a point for decimals and no thousands separators, e.g. 1250.5.' };
  const m = /^(\d*)(?:\.(\d*))?$/.exec(t);
  if (!m || (m[1] === '' && (m[2] ?? '') === '')) return { ok: false, error: 'Enter the amount as a decimal number of ETH, e.g. 0.05.' };
  const whole = m[1] ?? '';
  const frac = m[2] ?? '';
  if (frac.length > DECIMALS) return { ok: false, error: 'ETH has at most 18 decimals (1 wei is 0.000000000000000001 ETH).' };
  const wei = BigInt(whole || '0') * WEI_PER_ETH + BigInt(frac.padEnd(DECIMALS, '0') || '0');
  if (wei > UINT256_MAX) return { ok: false, error: 'That amount is larger than any transaction can carry.' };
  return { ok: true, wei: wei.toString() };
}

/** Decimal wei -> ETH with every significant decimal (no rounding): "500000000000000000" -> "0.5". */
export function formatWeiAsEther(wei: string | bigint): string {
  let v: bigint;
  try {
    v = BigInt(wei);
  } catch {
    return '—';
  }
  const negative = v < 0n;
  const abs = negative ? -v : v;
  const whole = (abs / WEI_PER_ETH).toLocaleString('en-US');
  const frac = (abs % WEI_PER_ETH).toString().padStart(DECIMALS, '0').replace(/0+$/, '');
  return `${negative ? '-' : ''}${whole}${frac ? `.${frac}` : ''}`;
}

/** Decimal wei -> the ETH text an amount field holds and parseEtherToWei reads back exactly (no thousands separators). */
export function weiToEtherInput(wei: string | bigint): string {
  return formatWeiAsEther(wei).replace(/,/g, '');
}
