// Tells public internet addresses from the ones that stay inside a machine or a private network (IANA special-purpose
// registries), so requests steered by untrusted input (token metadata URIs) cannot reach local services.
import { isIPv4, isIPv6 } from 'node:net';

// IPv4 ranges that are not globally reachable (IANA special-purpose registry), as [first address, prefix length].
const V4_REFUSED: readonly (readonly [string, number])[] = [
  ['0.0.0.0', 8], // unspecified, "this network"
  ['10.0.0.0', 8],
  ['100.64.0.0', 10], // CGNAT
  ['127.0.0.0', 8],
  ['169.254.0.0', 16], // link-local, cloud metadata
  ['172.16.0.0', 12],
  ['192.0.0.0', 24], // IETF protocol assignments
  ['192.0.2.0', 24], // documentation
  ['192.168.0.0', 16],
  ['198.18.0.0', 15], // benchmarking
  ['198.51.100.0', 24], // documentation
  ['203.0.113.0', 24], // documentation
  ['224.0.0.0', 4], // multicast
  ['240.0.0.0', 4], // reserved, broadcast
];

const v4ToInt = (ip: string): number => ip.split('.').reduce((n, part) => n * 256 + Number(part), 0);
const V4_MASKS = V4_REFUSED.map(([base, bits]) => ({ base: v4ToInt(base), size: 2 ** (32 - bits) }));

function isPublicV4(n: number): boolean {
  return !V4_MASKS.some(({ base, size }) => n >= base && n < base + size);
}

/** The eight 16-bit groups of a valid IPv6 address (a dotted IPv4 tail becomes two groups). */
function v6Groups(ip: string): number[] {
  const [head = '', tail] = ip.split('::') as [string, string | undefined];
  const parse = (s: string): number[] =>
    s === ''
      ? []
      : s.split(':').flatMap((g) => {
          if (!g.includes('.')) return [parseInt(g, 16)];
          const n = v4ToInt(g);
          return [Math.floor(n / 65536), n % 65536];
        });
  const left = parse(head);
  const right = tail === undefined ? [] : parse(tail);
  return [...left, ...Array<number>(8 - left.length - right.length).fill(0), ...right];
}

/**
 * Whether a connection to `ip` leaves the machine for the public internet. False for loopback, private (RFC 1918,
 * fc00::/7), link-local, CGNAT, unspecified, multicast and reserved addresses, for IPv6 forms that carry one of those
 * IPv4 addresses (mapped, compatible, NAT64, 6to4), and for anything that is not an IP address.
 */
export function isPublicAddress(ip: string): boolean {
  const bare = ip.replace(/^\[(.*)\]$/, '$1').replace(/%.*$/, '');
  if (isIPv4(bare)) return isPublicV4(v4ToInt(bare));
  if (!isIPv6(bare)) return false;
  const g = v6Groups(bare);
  const v4At = (i: number) => isPublicV4(g[i]! * 65536 + g[i + 1]!);
  const zero = (from: number, to: number) => g.slice(from, to).every((x) => x === 0);
  if (zero(0, 5) && g[5] === 0xffff) return v4At(6); // ::ffff:a.b.c.d, mapped
  if (zero(0, 6)) return v4At(6); // ::a.b.c.d, compatible; also :: and ::1 (0.0.0.0/8)
  if (zero(0, 4) && g[4] === 0xffff && g[5] === 0) return v4At(6); // ::ffff:0:a.b.c.d, translated
  if (g[0] === 0x64 && g[1] === 0xff9b) return zero(2, 6) && v4At(6); // NAT64; 64:ff9b:1::/48 is local-use
  if (g[0] === 0x2002) return v4At(1); // 6to4
  const first = g[0]!;
  if ((first & 0xfe00) === 0xfc00) return false; // unique local fc00::/7
  if ((first & 0xff80) === 0xfe80) return false; // link-local fe80::/10 and deprecated site-local fec0::/10
  if ((first & 0xff00) === 0xff00) return false; // multicast
  return true;
}
