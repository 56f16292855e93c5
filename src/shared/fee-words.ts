// How a fee reads, once, for the core's sentences and the renderer's figures alike: below 100,000 wei in wei, else gwei
// with at most 4 decimals (cut, not rounded, so a fee never reads higher than it is), trailing zeros dropped.

const GWEI = 1_000_000_000n;

/** "1.27 gwei", "1.2656 gwei", "1,234 gwei", "7 wei". */
export function formatGwei(wei: bigint): string {
  if (wei < 100_000n && wei > -100_000n) return `${wei} wei`;
  const sign = wei < 0n ? '-' : '';
  const abs = wei < 0n ? -wei : wei;
  const digits = (abs % GWEI).toString().padStart(9, '0').slice(0, 4).replace(/0+$/, '');
  return `${sign}${(abs / GWEI).toLocaleString('en-US')}${digits ? `.${digits}` : ''} gwei`;
}
