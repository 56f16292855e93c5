// Tells what kind of address an IP address is (IANA's special-purpose registries): public, or one that stays inside
// the machine or a private network. Whatever connects where untrusted input points (webhook URLs, token metadata URIs)
// asks this first, so neither reaches local services or a cloud's metadata endpoint.
import { isIP } from 'node:net';

export type AddressKind = 'public' | 'loopback' | 'private' | 'link-local' | 'metadata' | 'unspecified' | 'reserved';

/** An address range as [first address, prefix length, kind]. In each table the first range that holds an address wins. */
type Range = readonly [base: string, prefix: number, kind: AddressKind];

// IANA's special-purpose registries, as far as they matter to an outgoing connection.
const V4_RANGES: readonly Range[] = [
  ['169.254.169.254', 32, 'metadata'], // AWS, GCP, Azure, Oracle instance metadata
  ['100.100.100.200', 32, 'metadata'], // Alibaba Cloud instance metadata
  ['168.63.129.16', 32, 'metadata'], // Azure's host endpoint (WireServer): a public-looking address only the VM's host answers
  ['0.0.0.0', 8, 'unspecified'], // "this network"; connecting to 0.0.0.0 reaches the machine itself
  ['127.0.0.0', 8, 'loopback'],
  ['10.0.0.0', 8, 'private'],
  ['172.16.0.0', 12, 'private'],
  ['192.168.0.0', 16, 'private'],
  ['100.64.0.0', 10, 'private'], // carrier-grade NAT, often a cloud's internal network
  ['169.254.0.0', 16, 'link-local'],
  ['192.0.0.0', 24, 'reserved'], // IETF protocol assignments
  ['192.0.2.0', 24, 'reserved'], // documentation
  ['198.18.0.0', 15, 'reserved'], // benchmarking
  ['198.51.100.0', 24, 'reserved'], // documentation
  ['203.0.113.0', 24, 'reserved'], // documentation
  ['224.0.0.0', 4, 'reserved'], // multicast
  ['240.0.0.0', 4, 'reserved'], // reserved, and 255.255.255.255 broadcast
];

// Checked before the embedded-IPv4 forms below, which would otherwise read :: and ::1 as 0.0.0.0 and 0.0.0.1.
const V6_EXACT: readonly Range[] = [
  ['::', 128, 'unspecified'],
  ['::1', 128, 'loopback'],
  ['fd00:ec2::254', 128, 'metadata'], // AWS instance metadata over IPv6
];

const V6_RANGES: readonly Range[] = [
  ['fc00::', 7, 'private'], // unique local
  ['fec0::', 10, 'private'], // site-local, deprecated but still routed inside some networks
  ['64:ff9b:1::', 48, 'private'], // NAT64 for local use
  ['fe80::', 10, 'link-local'],
  ['ff00::', 8, 'reserved'], // multicast
  ['100::', 64, 'reserved'], // discard-only
  ['2001:db8::', 32, 'reserved'], // documentation
  ['3fff::', 20, 'reserved'], // documentation
];

/** IPv6 forms that carry an IPv4 address, which decides where a connection really goes: [prefix, length, bit offset of the IPv4]. */
const V6_EMBEDDING: readonly (readonly [base: string, prefix: number, shift: bigint])[] = [
  ['::ffff:0:0', 96, 0n], // mapped
  ['::', 96, 0n], // compatible (deprecated)
  ['::ffff:0:0:0', 96, 0n], // translated (SIIT)
  ['64:ff9b::', 96, 0n], // NAT64
  ['2002::', 16, 80n], // 6to4
];

function v4ToInt(ip: string): number {
  return ip.split('.').reduce((n, octet) => n * 256 + Number(octet), 0);
}

/** A valid IPv6 address as one 128-bit number (a dotted IPv4 tail counts as its last 32 bits). */
function v6ToBigInt(ip: string): bigint {
  const [head = '', tail] = ip.split('::') as [string, string | undefined];
  const groups = (part: string): number[] =>
    part === ''
      ? []
      : part.split(':').flatMap((g) => {
          if (!g.includes('.')) return [parseInt(g, 16)];
          const v4 = v4ToInt(g);
          return [Math.floor(v4 / 0x10000), v4 % 0x10000];
        });
  const left = groups(head);
  const right = tail === undefined ? [] : groups(tail);
  const all = [...left, ...Array<number>(8 - left.length - right.length).fill(0), ...right];
  return all.reduce((n, g) => (n << 16n) | BigInt(g), 0n);
}

const V4_TABLE = V4_RANGES.map(([base, prefix, kind]) => ({ base: v4ToInt(base), size: 2 ** (32 - prefix), kind }));
const v6Table = (ranges: readonly Range[]) =>
  ranges.map(([base, prefix, kind]) => ({ base: v6ToBigInt(base), shift: BigInt(128 - prefix), kind }));
const V6_EXACT_TABLE = v6Table(V6_EXACT);
const V6_TABLE = v6Table(V6_RANGES);
const V6_EMBEDDING_TABLE = V6_EMBEDDING.map(([base, prefix, at]) => ({ base: v6ToBigInt(base), shift: BigInt(128 - prefix), at }));

function classifyV4(n: number): AddressKind {
  return V4_TABLE.find(({ base, size }) => n >= base && n < base + size)?.kind ?? 'public';
}

function classifyV6(n: bigint): AddressKind {
  const inRange = (r: { base: bigint; shift: bigint }) => n >> r.shift === r.base >> r.shift;
  const exact = V6_EXACT_TABLE.find(inRange);
  if (exact) return exact.kind;
  const embedding = V6_EMBEDDING_TABLE.find(inRange);
  if (embedding) return classifyV4(Number((n >> embedding.at) & 0xffffffffn));
  return V6_TABLE.find(inRange)?.kind ?? 'public';
}

/** `[::1]` and `fe80::1%eth0` as the bare address. */
export const bareAddress = (host: string): string => host.replace(/^\[(.*)\]$/, '$1').replace(/%.*$/, '');

/**
 * What kind of address `ip` (IPv4 or IPv6 text, brackets and zone allowed) is. IPv6 forms that carry an IPv4 address
 * (mapped, compatible, translated, NAT64, 6to4) are the kind of that address. Text that is not an IP address is
 * `reserved`, so that nothing unparsed is ever taken for public.
 */
export function classifyAddress(ip: string): AddressKind {
  const bare = bareAddress(ip);
  const family = isIP(bare);
  if (family === 4) return classifyV4(v4ToInt(bare));
  if (family === 6) return classifyV6(v6ToBigInt(bare));
  return 'reserved';
}

/** Whether a connection to `ip` leaves the machine for the public internet (anything not an IP address: false). */
export const isPublicAddress = (ip: string): boolean => classifyAddress(ip) === 'public';
