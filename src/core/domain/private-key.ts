// What makes 32 bytes a usable secp256k1 private key: not zero and below the curve order. Pure, so every key that
// goes into a vault (and every key read back from one) is checked by the same rule before anything else happens.

/** The order n of secp256k1's base point: a private key is an integer in [1, n-1]. */
export const SECP256K1_ORDER = 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n;

/** Null when `hex` (64 hex digits, 0x optional) makes a wallet; otherwise what is wrong, in words that never echo it. */
export function privateKeyProblem(hex: string): string | null {
  const digits = hex.startsWith('0x') || hex.startsWith('0X') ? hex.slice(2) : hex;
  if (!/^[0-9a-fA-F]{64}$/.test(digits)) return 'a private key is 64 hex digits, optionally after 0x';
  const k = BigInt(`0x${digits}`);
  if (k === 0n) return 'a private key of zero makes no wallet; use a random key';
  if (k >= SECP256K1_ORDER) return 'this value is at or above the secp256k1 curve order, so it makes no wallet; use a random key';
  return null;
}

/** The key as ethers wants it: lowercase with 0x. Call only after privateKeyProblem said null. */
export function normalizePrivateKey(hex: string): string {
  const digits = hex.startsWith('0x') || hex.startsWith('0X') ? hex.slice(2) : hex;
  return `0x${digits.toLowerCase()}`;
}
