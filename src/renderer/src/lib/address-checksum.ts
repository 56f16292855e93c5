// EIP-55 checksums of addresses typed or pasted into a send form: mixed case that is not the checksum is a typo, and a
// token sent to a typo is gone (the core checks the `to` of a transaction, but not an address inside calldata). Pure;
// the hash is @noble/hashes' audited keccak-256 (ethers uses the same library).
import { keccak_256 as keccak256 } from '@noble/hashes/sha3';

/** The EIP-55 spelling of a 0x + 40 hex address. */
export function toChecksumAddress(address: string): string {
  const lower = address.slice(2).toLowerCase();
  const hash = keccak256(new TextEncoder().encode(lower));
  let out = '0x';
  for (let i = 0; i < 40; i++) {
    const nibble = (hash[i >> 1]! >> (i % 2 === 0 ? 4 : 0)) & 0xf;
    out += nibble >= 8 ? lower[i]!.toUpperCase() : lower[i];
  }
  return out;
}

/** True for an address in one case (no checksum claimed) or in its exact EIP-55 spelling. */
export function hasValidChecksum(address: string): boolean {
  const body = address.slice(2);
  if (body === body.toLowerCase() || body === body.toUpperCase()) return true;
  return toChecksumAddress(address) === address;
}
