// Keeps webhooks, whose URLs strangers choose, off the service's own machine and network: classifies IP addresses,
// checks a webhook URL's form, and resolves its host to an address a delivery may connect to. Deliveries resolve again
// every time (a name that was public at creation may point inside later), and connect to exactly the checked address.
import { promises as dns } from 'node:dns';
import { isIP } from 'node:net';

// A sibling of src/core/services/public-address.ts (the core's metadata fetches), which the service may not import:
// this one names the kind of address, because the kind decides what --allow-private-webhooks lets through and what
// the refusal says. A test checks that it refuses at least everything the core's guard refuses.

export type AddressKind = 'public' | 'loopback' | 'private' | 'link-local' | 'metadata' | 'unspecified' | 'reserved';

/** How a host is looked up: every address it has, as dns.promises.lookup(host, { all: true }) answers. */
export type LookupAll = (hostname: string) => Promise<{ address: string; family: number }[]>;

/** The kinds --allow-private-webhooks lets through. Metadata, unspecified and reserved addresses are never reached. */
const ALLOWED_WHEN_PRIVATE: ReadonlySet<AddressKind> = new Set(['loopback', 'private', 'link-local']);

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
const v6Table = (ranges: readonly Range[]) => ranges.map(([base, prefix, kind]) => ({ base: v6ToBigInt(base), shift: BigInt(128 - prefix), kind }));
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
const bareAddress = (host: string): string => host.replace(/^\[(.*)\]$/, '$1').replace(/%.*$/, '');

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

const KIND_PHRASE: Record<AddressKind, string> = {
  public: 'a public address',
  loopback: 'a loopback address',
  private: 'a private address',
  'link-local': 'a link-local address',
  metadata: 'a cloud metadata address',
  unspecified: 'an unspecified address',
  reserved: 'a reserved address',
};

/** Whether a webhook may connect to an address of this kind. */
const reachable = (kind: AddressKind, allowPrivate: boolean) => kind === 'public' || (allowPrivate && ALLOWED_WHEN_PRIVATE.has(kind));

/** What the operator can do about a refused kind (the whole refusal is built in one place, here). */
function remedy(kind: AddressKind): string {
  return ALLOWED_WHEN_PRIVATE.has(kind)
    ? 'webhooks may only reach public addresses unless the service runs with --allow-private-webhooks'
    : 'webhooks never reach those, not even with --allow-private-webhooks';
}

/** Why a webhook's host may not be reached: the kind of address it has, or `unresolvable`. */
export class WebhookAddressError extends Error {
  constructor(
    readonly kind: AddressKind | 'unresolvable',
    readonly hostname: string,
    /** The refused address, or the resolver's error code for `unresolvable`. */
    readonly detail: string,
  ) {
    super(describeRefusal(kind, hostname, detail));
    this.name = 'WebhookAddressError';
  }
}

function describeRefusal(kind: AddressKind | 'unresolvable', hostname: string, detail: string): string {
  if (kind === 'unresolvable') return `${hostname} does not resolve to any address (${detail}); check the host name in the webhook's URL.`;
  if (isIP(bareAddress(hostname))) return `${hostname} is ${KIND_PHRASE[kind]}; ${remedy(kind)}.`;
  return `${hostname} resolves to ${KIND_PHRASE[kind]} (${detail}); ${remedy(kind)}.`;
}

const MAX_URL_LENGTH = 2048;

/**
 * Why `url` cannot be a webhook's URL, as one sentence saying what to do, or null when it can. Its form only: no DNS
 * (resolveWebhookAddress checks where a name points). https is required; http only for a loopback receiver, which
 * itself needs allowPrivate.
 */
export function webhookUrlProblem(url: string, opts: { allowPrivate: boolean }): string | null {
  if (url.length > MAX_URL_LENGTH) return `The URL is ${url.length} characters long; use one of at most ${MAX_URL_LENGTH}.`;
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return 'The URL is not a valid absolute URL; give one like https://example.com/hooks/txdesk.';
  }
  if (u.protocol !== 'https:' && u.protocol !== 'http:') return `Webhook URLs must start with https:// (${u.protocol} is not supported).`;
  if (u.username !== '' || u.password !== '') {
    return 'Remove the user name and password from the URL: put a token in its path or query if you need one, and check the txdesk-signature header.';
  }
  // The fragment is never sent; `https://x/#` has an empty hash, hence the look at the text.
  if (url.includes('#')) return 'Remove the #fragment from the URL: it is never sent to the receiver.';

  const host = bareAddress(u.hostname);
  // `localhost` always means this machine (RFC 6761), so it is judged as the loopback address it is.
  const literalKind = isIP(host) ? classifyAddress(host) : host === 'localhost' ? 'loopback' : null;
  if (u.protocol === 'http:' && literalKind !== 'loopback') {
    return 'Webhook URLs must start with https://; plain http:// is only accepted for a receiver on this machine (localhost, 127.0.0.1, [::1]).';
  }
  if (literalKind !== null && !reachable(literalKind, opts.allowPrivate)) {
    return `The URL's host ${u.hostname} is ${KIND_PHRASE[literalKind]}; ${remedy(literalKind)}.`;
  }
  return null;
}

const systemLookup: LookupAll = (hostname) => dns.lookup(hostname, { all: true, verbatim: true });

/**
 * The address a delivery to `hostname` connects to: the first one it resolves to, when every one it resolves to may
 * be reached (checking them all, since a connection could use any of them). A literal IP is checked without DNS.
 * Throws WebhookAddressError when one may not, or when the name resolves to nothing.
 */
export async function resolveWebhookAddress(hostname: string, opts: { allowPrivate: boolean; lookup?: LookupAll }): Promise<{ address: string; family: 4 | 6 }> {
  const host = bareAddress(hostname);
  let answers: { address: string; family: number }[];
  if (isIP(host)) {
    answers = [{ address: host, family: isIP(host) }];
  } else {
    try {
      answers = await (opts.lookup ?? systemLookup)(host);
    } catch (e) {
      throw new WebhookAddressError('unresolvable', host, (e as NodeJS.ErrnoException).code ?? (e as Error).message ?? String(e));
    }
  }
  if (!Array.isArray(answers) || answers.length === 0) throw new WebhookAddressError('unresolvable', host, 'no addresses');
  for (const { address } of answers) {
    const kind = classifyAddress(address);
    if (!reachable(kind, opts.allowPrivate)) throw new WebhookAddressError(kind, host, address);
  }
  const address = bareAddress(answers[0]!.address);
  return { address, family: isIP(address) === 6 ? 6 : 4 };
}
