// Option validation of the long-running commands: table of raw values and what they become or the one-line error.
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { CliError } from '../../src/cli/cli-errors.js';
import {
  blockTimeOption,
  confirmationsOption,
  congestionOption,
  flagName,
  httpUrlOption,
  nodeUrlOption,
  parseOptions,
  portOption,
  seedOption,
} from '../../src/cli/cli-options.js';

describe('option values', () => {
  it.each([
    ['0', 0],
    ['8545', 8545],
    [' 65535 ', 65535],
  ])('port %j -> %j', (raw, port) => expect(portOption.parse(raw)).toBe(port));

  it.each(['65536', '-1', 'abc', '80.5', '', '1e3', '999999'])('port %j is refused', (raw) =>
    expect(portOption.safeParse(raw).success).toBe(false),
  );

  it.each([
    ['http://127.0.0.1:4000', 'http://127.0.0.1:4000'],
    ['http://127.0.0.1:4000/', 'http://127.0.0.1:4000'],
    ['https://Example.COM/txdesk/', 'https://example.com/txdesk'],
  ])('url %j -> %j', (raw, url) => expect(httpUrlOption.parse(raw)).toBe(url));

  it.each(['localhost:4000', 'ftp://host', 'http://user:pw@host', 'http://host/?a=1', 'http://host/#x', 'not a url', ''])(
    'url %j is refused',
    (raw) => expect(httpUrlOption.safeParse(raw).success).toBe(false),
  );

  // A node may be given by its WebSocket URL too (a provider's wss:// endpoint, a node's ws port); a service may not.
  it.each([
    ['http://127.0.0.1:8545', 'http://127.0.0.1:8545'],
    ['ws://127.0.0.1:8546/', 'ws://127.0.0.1:8546'],
    ['wss://eth.example.com/v2/KEY', 'wss://eth.example.com/v2/KEY'],
  ])('node url %j -> %j', (raw, url) => expect(nodeUrlOption.parse(raw)).toBe(url));
  it.each(['localhost:8545', 'ftp://host', 'ws://user:pw@host', 'wss://host/?key=1', 'not a url'])('node url %j is refused', (raw) =>
    expect(nodeUrlOption.safeParse(raw).success).toBe(false),
  );
  it('refuses a WebSocket URL for the service', () => expect(httpUrlOption.safeParse('ws://127.0.0.1:4000').success).toBe(false));

  it.each(['off', 'low', 'high', 'market'])('congestion %j is accepted', (raw) => expect(congestionOption.parse(raw)).toBe(raw));
  it.each(['medium', 'OFF', 'Market', ''])('congestion %j is refused', (raw) =>
    expect(congestionOption.safeParse(raw).success).toBe(false),
  );

  it.each([
    ['0', 0],
    [' 42 ', 42],
    ['4294967295', 4294967295],
  ])('seed %j -> %j', (raw, n) => expect(seedOption.parse(raw)).toBe(n));
  it.each(['-1', '1.5', '4294967296', '12345678901', 'x', ''])('seed %j is refused', (raw) =>
    expect(seedOption.safeParse(raw).success).toBe(false),
  );

  it.each([
    ['1', 1],
    ['0.5', 0.5],
  ])('block time %j -> %j', (raw, s) => expect(blockTimeOption.parse(raw)).toBe(s));
  it.each(['0', '-1', 'x', '3601'])('block time %j is refused', (raw) => expect(blockTimeOption.safeParse(raw).success).toBe(false));

  it.each([
    ['0', 0],
    ['12', 12],
  ])('confirmations %j -> %j', (raw, n) => expect(confirmationsOption.parse(raw)).toBe(n));
  it.each(['-1', '1001', '2.5'])('confirmations %j is refused', (raw) => expect(confirmationsOption.safeParse(raw).success).toBe(false));
});

describe('parseOptions', () => {
  const schema = z.object({ port: portOption.optional(), blockTime: blockTimeOption.optional(), json: z.boolean().optional() });

  it('returns the parsed bag', () => {
    expect(parseOptions(schema, { port: '0', json: true })).toEqual({ port: 0, json: true });
  });

  it.each([
    [{ port: 'abc' }, 'Invalid --port "abc": give a whole number from 0 to 65535 (0 picks a free port).'],
    [{ blockTime: '0' }, 'Invalid --block-time "0": give a number of seconds greater than 0, e.g. 1 or 0.5.'],
  ])('%j -> one line naming the flag and the value, exit code 2', (raw, message) => {
    let error: unknown;
    try {
      parseOptions(schema, raw);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(CliError);
    expect((error as CliError).message).toBe(message);
    expect((error as CliError).exitCode).toBe(2);
  });

  it('spells flags as typed', () => {
    expect(flagName('dataDir')).toBe('--data-dir');
    expect(flagName('port')).toBe('--port');
  });
});
