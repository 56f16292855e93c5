// Calldata of the two token transfers the token browser sends: ERC-721 and ERC-1155 `safeTransferFrom`. The renderer
// carries no ethers, and these two calls need only fixed 32-byte words plus one `bytes`, so they are encoded by hand
// (test/renderer checks them against ethers' Interface.encodeFunctionData). Pure.

/** safeTransferFrom(address from, address to, uint256 tokenId): keccak256 of the signature, first 4 bytes. */
export const ERC721_SAFE_TRANSFER_FROM = '0x42842e0e';
/** safeTransferFrom(address from, address to, uint256 id, uint256 amount, bytes data). */
export const ERC1155_SAFE_TRANSFER_FROM = '0xf242432a';

const UINT256_MAX = (1n << 256n) - 1n;

/** One ABI word for an address: 12 zero bytes, then the 20 address bytes. */
function addressWord(address: string): string {
  if (!/^0x[0-9a-fA-F]{40}$/.test(address)) throw new Error(`not an address: ${address}`);
  return address.slice(2).toLowerCase().padStart(64, '0');
}

/** One ABI word for a uint256 given as a decimal (or 0x-hex) string or a bigint. */
function uintWord(value: string | bigint): string {
  const v = typeof value === 'bigint' ? value : BigInt(value);
  if (v < 0n || v > UINT256_MAX) throw new Error(`not a uint256: ${value}`);
  return v.toString(16).padStart(64, '0');
}

/** A dynamic `bytes` tail: its length word, then the bytes right-padded to a whole number of words. */
function bytesTail(hex: string): string {
  if (!/^0x([0-9a-fA-F]{2})*$/.test(hex)) throw new Error(`not 0x-hex bytes: ${hex}`);
  const body = hex.slice(2).toLowerCase();
  const padded = body.padEnd(Math.ceil(body.length / 64) * 64, '0');
  return uintWord(BigInt(body.length / 2)) + padded;
}

export function encodeErc721SafeTransferFrom(from: string, to: string, tokenId: string | bigint): string {
  return ERC721_SAFE_TRANSFER_FROM + addressWord(from) + addressWord(to) + uintWord(tokenId);
}

export function encodeErc1155SafeTransferFrom(from: string, to: string, id: string | bigint, amount: string | bigint, data = '0x'): string {
  // Five head words; the `bytes` argument's head is the offset of its tail from the start of the arguments.
  const tailOffset = 5n * 32n;
  return (
    ERC1155_SAFE_TRANSFER_FROM +
    addressWord(from) +
    addressWord(to) +
    uintWord(id) +
    uintWord(amount) +
    uintWord(tailOffset) +
    bytesTail(data)
  );
}
