// The webhook address guard: each kind of address by example and, for every IPv4 address fast-check draws, against a
// reference built from the CIDR table with node's BlockList; IPv6 forms that carry an IPv4 address; the URL rules; and
// resolution, where every address a name has must be reachable.
import { BlockList, SocketAddress } from 'node:net';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  classifyAddress,
  resolveWebhookAddress,
  WebhookAddressError,
  webhookUrlProblem,
  type AddressKind,
  type LookupAll,
} from '../../../src/service/webhooks/webhook-address-guard.js';

describe('classifyAddress', () => {
  it.each<[AddressKind, string[]]>([
    [
      'loopback',
      [
        '127.0.0.1',
        '127.255.255.254',
        '::1',
        '[::1]',
        '::ffff:127.0.0.1',
        '::ffff:7f00:1',
        '::127.0.0.1',
        '64:ff9b::127.0.0.1',
        '64:ff9b::7f00:1',
        '2002:7f00:1::',
        '::ffff:0:127.0.0.1',
      ],
    ],
    [
      'private',
      [
        '10.0.0.1',
        '10.255.255.255',
        '172.16.0.1',
        '172.31.255.255',
        '192.168.1.1',
        '100.64.0.1',
        '100.127.255.255',
        'fc00::1',
        'fd12:3456::1',
        'fec0::1',
        '64:ff9b:1::1',
        '::ffff:10.0.0.5',
        '::ffff:a00:5',
        '64:ff9b::192.168.0.1',
        '2002:c0a8:101::1',
      ],
    ],
    ['link-local', ['169.254.0.1', '169.254.169.253', '169.254.255.255', 'fe80::1', 'fe80::1%eth0', 'febf::1', '::ffff:169.254.1.1']],
    [
      'metadata',
      [
        '169.254.169.254',
        'fd00:ec2::254',
        '100.100.100.200',
        '168.63.129.16',
        '::ffff:169.254.169.254',
        '::ffff:a9fe:a9fe',
        '64:ff9b::a9fe:a9fe',
        '2002:a9fe:a9fe::',
      ],
    ],
    ['unspecified', ['0.0.0.0', '0.1.2.3', '::', '::ffff:0.0.0.0', '::0.0.0.2']],
    [
      'reserved',
      [
        '224.0.0.1',
        '239.255.255.250',
        '240.0.0.1',
        '255.255.255.255',
        '192.0.0.8',
        '192.0.2.1',
        '198.18.0.1',
        '198.19.255.255',
        '198.51.100.7',
        '203.0.113.9',
        'ff02::1',
        'ff0e::1',
        '2001:db8::1',
        '3fff::1',
        '100::1',
        '::ffff:224.0.0.1',
      ],
    ],
    ['reserved', ['', 'localhost', 'example.com', '1.2.3', '256.1.1.1', '::g', '01.2.3.4']], // not addresses at all
    [
      'public',
      [
        '1.1.1.1',
        '8.8.8.8',
        '93.184.216.34',
        '172.15.255.255',
        '172.32.0.0',
        '100.63.255.255',
        '100.128.0.0',
        '169.253.255.255',
        '192.169.0.0',
        '223.255.255.255',
        '2606:4700:4700::1111',
        '2001:4860:4860::8888',
        '::ffff:8.8.8.8',
        '64:ff9b::808:808',
        '2002:808:808::1',
        'fbff::1',
        'fe7f::1',
      ],
    ],
  ])('%s: %j', (kind, addresses) => {
    expect(addresses.map((a) => [a, classifyAddress(a)])).toEqual(addresses.map((a) => [a, kind]));
  });

  // The reference: the ranges the guard promises, written again as CIDR rows and checked by node's BlockList; the
  // first row that holds an address wins, as in the guard.
  const REFERENCE_V4: [string, number, AddressKind][] = [
    ['169.254.169.254', 32, 'metadata'],
    ['100.100.100.200', 32, 'metadata'],
    ['168.63.129.16', 32, 'metadata'],
    ['127.0.0.0', 8, 'loopback'],
    ['0.0.0.0', 8, 'unspecified'],
    ['10.0.0.0', 8, 'private'],
    ['172.16.0.0', 12, 'private'],
    ['192.168.0.0', 16, 'private'],
    ['100.64.0.0', 10, 'private'],
    ['169.254.0.0', 16, 'link-local'],
    ['255.255.255.255', 32, 'reserved'],
    ['224.0.0.0', 4, 'reserved'],
    ['240.0.0.0', 4, 'reserved'],
    ['192.0.0.0', 24, 'reserved'],
    ['198.18.0.0', 15, 'reserved'],
    ['192.0.2.0', 24, 'reserved'],
    ['198.51.100.0', 24, 'reserved'],
    ['203.0.113.0', 24, 'reserved'],
  ];
  const referenceLists = REFERENCE_V4.map(([net, prefix, kind]) => {
    const list = new BlockList();
    list.addSubnet(net, prefix, 'ipv4');
    return { list, kind };
  });
  // The address is parsed once and checked against each range (a string would be parsed again by every list).
  const referenceKind = (ip: string): AddressKind => {
    const address = new SocketAddress({ address: ip, family: 'ipv4' });
    return referenceLists.find(({ list }) => list.check(address))?.kind ?? 'public';
  };

  const dotted = (n: number) => [n >>> 24, (n >>> 16) & 255, (n >>> 8) & 255, n & 255].join('.');
  const hex16 = (n: number) => n.toString(16);
  // Every range's first and last address and its neighbours outside, so the boundaries are drawn as well as the bulk.
  const edges = REFERENCE_V4.flatMap(([net, prefix]) => {
    const base = net.split('.').reduce((n, o) => n * 256 + Number(o), 0);
    const last = base + 2 ** (32 - prefix) - 1;
    return [base - 1, base, last, last + 1].filter((n) => n >= 0 && n <= 0xffffffff);
  });
  const v4Int = fc.oneof(fc.integer({ min: 0, max: 0xffffffff }), fc.constantFrom(...edges));

  it('classifies every IPv4 address as the CIDR table says', () => {
    fc.assert(
      fc.property(v4Int, (n) => {
        // Compared first, `expect` only on a mismatch: it would cost more than the check, twenty thousand times.
        const [got, want] = [classifyAddress(dotted(n)), referenceKind(dotted(n))];
        if (got !== want) expect(got, dotted(n)).toBe(want);
      }),
      { numRuns: 20_000 },
    );
  });

  it('classifies an IPv4 address carried in IPv6 (mapped, compatible, translated, NAT64, 6to4) as that address', () => {
    fc.assert(
      fc.property(v4Int, fc.integer({ min: 0, max: 0xffff }), (n, subnet) => {
        const hi = hex16(n >>> 16);
        const lo = hex16(n & 0xffff);
        const kind = referenceKind(dotted(n));
        const forms = [
          `::ffff:${dotted(n)}`,
          `::ffff:${hi}:${lo}`,
          `::ffff:0:${dotted(n)}`,
          `64:ff9b::${dotted(n)}`,
          `64:ff9b::${hi}:${lo}`,
          `2002:${hi}:${lo}:${hex16(subnet)}::1`,
        ];
        // The compatible form's :: and ::1 are the unspecified and loopback IPv6 addresses, not 0.0.0.0 and 0.0.0.1.
        if (n > 1) forms.push(`::${dotted(n)}`);
        expect(forms.map((f) => [f, classifyAddress(f)])).toEqual(forms.map((f) => [f, kind]));
      }),
      { numRuns: 5_000 },
    );
  });
});

describe('webhookUrlProblem', () => {
  it.each<[string, boolean, RegExp | null]>([
    ['https://hooks.example.com/txdesk?token=abc', false, null],
    ['https://hooks.example.com:8443/path', false, null],
    ['https://93.184.216.34/hook', false, null],
    ['https://[2606:4700:4700::1111]/hook', false, null],
    ['HTTPS://Hooks.Example.com/', false, null],
    ['ftp://hooks.example.com/', false, /^Webhook URLs must start with https:\/\/ \(ftp: is not supported\)\.$/],
    ['ws://hooks.example.com/', false, /must start with https:\/\//],
    ['javascript:alert(1)', false, /must start with https:\/\//],
    ['not a url', false, /^The URL is not a valid absolute URL/],
    ['/relative/path', false, /not a valid absolute URL/],
    ['http://hooks.example.com/', false, /plain http:\/\/ is only accepted for a receiver on this machine/],
    ['http://hooks.example.com/', true, /plain http:\/\//],
    ['http://10.0.0.1/', true, /plain http:\/\//],
    ['https://user:pass@hooks.example.com/', false, /^Remove the user name and password/],
    ['https://user@hooks.example.com/', false, /^Remove the user name and password/],
    ['https://hooks.example.com/#frag', false, /^Remove the #fragment/],
    ['https://hooks.example.com/#', false, /^Remove the #fragment/],
    [`https://hooks.example.com/${'a'.repeat(2100)}`, false, /characters long; use one of at most 2048\.$/],
    [
      'https://10.0.0.1/hook',
      false,
      /^The URL's host 10\.0\.0\.1 is a private address; webhooks may only reach public addresses unless the service runs with --allow-private-webhooks\.$/,
    ],
    ['https://10.0.0.1/hook', true, null],
    ['https://[fe80::1]/hook', false, /is a link-local address/],
    ['https://[fe80::1]/hook', true, null],
    ['https://[::ffff:192.168.0.1]/hook', false, /is a private address/],
    ['https://0x7f.1/hook', false, /127\.0\.0\.1 is a loopback address/],
    ['https://2130706433/hook', false, /127\.0\.0\.1 is a loopback address/],
    ['http://127.0.0.1:8080/hook', false, /is a loopback address/],
    ['http://127.0.0.1:8080/hook', true, null],
    ['http://127.8.9.10/hook', true, null],
    ['http://[::1]:8080/hook', false, /is a loopback address/],
    ['http://[::1]:8080/hook', true, null],
    ['http://localhost:8080/hook', false, /^The URL's host localhost is a loopback address/],
    ['http://localhost:8080/hook', true, null],
    [
      'https://169.254.169.254/latest/meta-data',
      false,
      /is a cloud metadata address; webhooks never reach those, not even with --allow-private-webhooks\.$/,
    ],
    ['https://169.254.169.254/latest/meta-data', true, /is a cloud metadata address/],
    ['https://[fd00:ec2::254]/', true, /is a cloud metadata address/],
    ['https://0.0.0.0/', true, /is an unspecified address/],
    ['https://224.0.0.1/', true, /is a reserved address/],
  ])('%s (allowPrivate %s)', (url, allowPrivate, problem) => {
    const said = webhookUrlProblem(url, { allowPrivate });
    if (problem === null) expect(said).toBeNull();
    else expect(said).toMatch(problem);
  });

  it('never throws, and answers a sentence or null for any string', () => {
    fc.assert(
      fc.property(
        fc.oneof(fc.string(), fc.webUrl({ withFragments: true, withQueryParameters: true })),
        fc.boolean(),
        (url, allowPrivate) => {
          const said = webhookUrlProblem(url, { allowPrivate });
          if (said !== null) expect(said).toMatch(/^[A-Z].*\.$/);
        },
      ),
      { numRuns: 3_000 },
    );
  });
});

describe('resolveWebhookAddress', () => {
  const answering =
    (...addresses: string[]): LookupAll =>
    async () =>
      addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
  const refusal = async (p: Promise<unknown>): Promise<WebhookAddressError> => {
    const e = await p.then(
      () => null,
      (err: unknown) => err,
    );
    expect(e).toBeInstanceOf(WebhookAddressError);
    return e as WebhookAddressError;
  };

  it('gives the first address of a name that resolves only to public ones, with its family', async () => {
    await expect(
      resolveWebhookAddress('hooks.example.com', { allowPrivate: false, lookup: answering('93.184.216.34', '2606:2800:220:1::1') }),
    ).resolves.toEqual({ address: '93.184.216.34', family: 4 });
    await expect(
      resolveWebhookAddress('hooks.example.com', { allowPrivate: false, lookup: answering('2606:2800:220:1::1') }),
    ).resolves.toEqual({ address: '2606:2800:220:1::1', family: 6 });
  });

  it('refuses a public-looking name that resolves to a private address, naming host, kind, address and the flag', async () => {
    const e = await refusal(resolveWebhookAddress('hooks.example.com', { allowPrivate: false, lookup: answering('10.0.0.5') }));
    expect(e.kind).toBe('private');
    expect(e.message).toBe(
      'hooks.example.com resolves to a private address (10.0.0.5); webhooks may only reach public addresses unless the ' +
        'service runs with --allow-private-webhooks.',
    );
  });

  it('refuses a name with any non-public address among public ones, wherever it stands', async () => {
    for (const lookup of [
      answering('93.184.216.34', '127.0.0.1'),
      answering('::1', '93.184.216.34'),
      answering('93.184.216.34', '2606:2800:220:1::1', '::ffff:169.254.169.254'),
    ]) {
      const e = await refusal(resolveWebhookAddress('rebind.example', { allowPrivate: false, lookup }));
      expect(['loopback', 'metadata']).toContain(e.kind);
    }
  });

  it('with allowPrivate lets loopback, private and link-local through, never metadata, unspecified or reserved', async () => {
    const mixed = answering('10.0.0.5', '93.184.216.34', 'fe80::1', '127.0.0.1');
    await expect(resolveWebhookAddress('lan.example', { allowPrivate: true, lookup: mixed })).resolves.toEqual({
      address: '10.0.0.5',
      family: 4,
    });
    for (const [address, kind] of [
      ['169.254.169.254', 'metadata'],
      ['0.0.0.0', 'unspecified'],
      ['239.1.1.1', 'reserved'],
    ] as const) {
      const e = await refusal(resolveWebhookAddress('lan.example', { allowPrivate: true, lookup: answering('10.0.0.5', address) }));
      expect(e.kind).toBe(kind);
      expect(e.message).toMatch(/not even with --allow-private-webhooks\.$/);
    }
  });

  it('checks a literal IP without asking DNS, brackets or not', async () => {
    const lookup: LookupAll = async () => {
      throw new Error('DNS asked about a literal address');
    };
    await expect(resolveWebhookAddress('93.184.216.34', { allowPrivate: false, lookup })).resolves.toEqual({
      address: '93.184.216.34',
      family: 4,
    });
    await expect(resolveWebhookAddress('[2606:4700::1]', { allowPrivate: false, lookup })).resolves.toEqual({
      address: '2606:4700::1',
      family: 6,
    });
    const e = await refusal(resolveWebhookAddress('[::ffff:7f00:1]', { allowPrivate: false, lookup }));
    expect(e.kind).toBe('loopback');
    expect(e.message).toBe(
      '::ffff:7f00:1 is a loopback address; webhooks may only reach public addresses unless the service runs with --allow-private-webhooks.',
    );
  });

  it('refuses a name that does not resolve, or resolves to nothing, and says to check the host', async () => {
    const failing: LookupAll = async () => {
      throw Object.assign(new Error('getaddrinfo ENOTFOUND nowhere.invalid'), { code: 'ENOTFOUND' });
    };
    const e = await refusal(resolveWebhookAddress('nowhere.invalid', { allowPrivate: true, lookup: failing }));
    expect(e.kind).toBe('unresolvable');
    expect(e.message).toBe("nowhere.invalid does not resolve to any address (ENOTFOUND); check the host name in the webhook's URL.");
    expect((await refusal(resolveWebhookAddress('empty.example', { allowPrivate: true, lookup: answering() }))).kind).toBe('unresolvable');
  });

  it('refuses an answer that is not an address at all', async () => {
    const e = await refusal(resolveWebhookAddress('odd.example', { allowPrivate: true, lookup: answering('not-an-ip') }));
    expect(e.kind).toBe('reserved');
  });

  it('with the system resolver refuses localhost unless private addresses are allowed', async () => {
    const e = await refusal(resolveWebhookAddress('localhost', { allowPrivate: false }));
    expect(e.kind).toBe('loopback');
    expect(e.message).toMatch(
      new RegExp(
        /^localhost resolves to a loopback address \((127\.0\.0\.1|::1)\); /.source +
          /webhooks may only reach public addresses unless the service runs with --allow-private-webhooks\.$/.source,
      ),
    );
    const allowed = await resolveWebhookAddress('localhost', { allowPrivate: true });
    expect(classifyAddress(allowed.address)).toBe('loopback');
    expect([4, 6]).toContain(allowed.family);
  });
});
