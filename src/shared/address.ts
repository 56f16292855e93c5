// The one spelling of an Ethereum address in this project: 0x and 40 hex digits, any case (checksums are not required).
export const ADDRESS_PATTERN = /^0x[0-9a-fA-F]{40}$/;

export const isAddress = (s: string): boolean => ADDRESS_PATTERN.test(s);

/** The zero address: a token moved from it is minted, to it burned. */
export const ZERO_ADDRESS = '0x0000000000000000000000000000000000000000';
