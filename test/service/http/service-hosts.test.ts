// The data service's Host allow-list and public URL rule as plain functions: loopback and the bind address on the
// service's port, the public URL's host, nothing else; a public URL is an origin.
import { describe, expect, it } from 'vitest';
import { allowedServiceHosts, checkServiceHost, publicUrlProblem } from '../../../src/service/http/service-hosts.js';

describe('allowedServiceHosts', () => {
  it.each([
    ['loopback bind', 4000, '127.0.0.1', {}, ['127.0.0.1:4000', 'localhost:4000', '[::1]:4000']],
    ['wildcard bind: loopback only', 4000, '0.0.0.0', {}, ['127.0.0.1:4000', 'localhost:4000', '[::1]:4000']],
    ['LAN address', 4000, '192.168.1.5', {}, ['127.0.0.1:4000', 'localhost:4000', '[::1]:4000', '192.168.1.5:4000']],
    ['IPv6 address', 4000, 'fe80::1', {}, ['127.0.0.1:4000', 'localhost:4000', '[::1]:4000', '[fe80::1]:4000']],
    [
      'public URL, default port',
      4000,
      '0.0.0.0',
      { publicUrl: 'https://TxDesk.Example.com' },
      ['127.0.0.1:4000', 'localhost:4000', '[::1]:4000', 'txdesk.example.com'],
    ],
    [
      'public URL with port',
      4000,
      '127.0.0.1',
      { publicUrl: 'http://svc.example:8080' },
      ['127.0.0.1:4000', 'localhost:4000', '[::1]:4000', 'svc.example:8080'],
    ],
  ])('%s', (_name, port, bind, access, expected) => {
    expect([...allowedServiceHosts(port, bind, access)].sort()).toEqual([...expected].sort());
  });

  it.each([
    ['127.0.0.1:4000', true],
    ['LOCALHOST:4000', true],
    ['txdesk.example.com', true],
    ['txdesk.example.com:443', false],
    ['evil.example', false],
    ['127.0.0.1.evil.example:4000', false],
    ['127.0.0.1:4001', true],
    ['127.0.0.1', true],
    ['[::1]:8080', true],
    ['localhost.evil.example:4000', false],
    ['', false],
  ])('Host %j -> %s', (host, ok) => {
    const allowed = allowedServiceHosts(4000, '127.0.0.1', { publicUrl: 'https://txdesk.example.com' });
    const e = checkServiceHost(host ? { host } : {}, allowed);
    expect(e === null).toBe(ok);
    if (e) expect([e.status, e.message]).toEqual([403, expect.stringMatching(/--public-url/)]);
  });
});

describe('publicUrlProblem', () => {
  it.each([
    ['https://txdesk.example.com', null],
    ['https://txdesk.example.com/', null],
    ['http://10.0.0.5:4000', null],
    ['txdesk.example.com', /absolute/],
    ['ftp://x.example', /http/],
    ['https://x.example/api', /no path/],
    ['https://u:p@x.example', /no path/],
    ['https://x.example/?a=1', /no path/],
  ])('%s', (value, problem) => {
    const p = publicUrlProblem(value);
    if (problem === null) expect(p).toBeNull();
    else expect(p).toMatch(problem);
  });
});
