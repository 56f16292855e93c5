// Keeps webhooks, whose URLs strangers choose, off the service's own machine and network: classifies IP addresses,
// checks a webhook URL's form, and resolves its host to an address a delivery may connect to. Deliveries resolve again
// every time (a name that was public at creation may point inside later), and connect to exactly the checked address.
import { promises as dns } from 'node:dns';
import { isIP } from 'node:net';
import { bareAddress, classifyAddress, type AddressKind } from '../../lib/ip-address.js';

export { classifyAddress, type AddressKind };

/** How a host is looked up: every address it has, as dns.promises.lookup(host, { all: true }) answers. */
export type LookupAll = (hostname: string) => Promise<{ address: string; family: number }[]>;

/** The kinds --allow-private-webhooks lets through. Metadata, unspecified and reserved addresses are never reached. */
const ALLOWED_WHEN_PRIVATE: ReadonlySet<AddressKind> = new Set(['loopback', 'private', 'link-local']);

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
export async function resolveWebhookAddress(
  hostname: string,
  opts: { allowPrivate: boolean; lookup?: LookupAll },
): Promise<{ address: string; family: 4 | 6 }> {
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
