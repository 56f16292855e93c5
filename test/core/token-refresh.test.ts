// The core's token refresh request against a real loopback HTTP server standing in for the data service: 202 is
// success, the service's own refusals keep their code, status and sentence, anything else is one clear sentence.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { requestTokenRefresh } from '../../src/core/adapters/net/token-proxy.js';
import { TxdeskError } from '../../src/shared/errors.js';

let server: Server;
let url: string;
const seen: string[] = [];

beforeAll(async () => {
  server = createServer((req, res) => {
    seen.push(`${req.method} ${req.url}`);
    const id = req.url!.split('/')[6];
    const reply = (status: number, body: string) => res.writeHead(status, { 'content-type': 'application/json' }).end(body);
    if (id === '1') reply(202, '{"status":"accepted"}');
    else if (id === '2') reply(404, '{"error":{"code":"NOT_FOUND","message":"Token 2 is not in the index."}}');
    else if (id === '3') reply(429, '{"error":{"code":"RATE_LIMITED","message":"Too many token refreshes."}}');
    else reply(502, '<html>bad gateway</html>');
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(() => new Promise<void>((r) => server.close(() => r())));

const contract = '0x' + 'ab'.repeat(20);
const refresh = (tokenId: string, o: { clientId?: string | null; serviceUrl?: string } = {}) =>
  requestTokenRefresh({ serviceUrl: o.serviceUrl ?? url, clientId: o.clientId === undefined ? 'c1' : o.clientId, contract, tokenId });

describe('requestTokenRefresh', () => {
  it('POSTs the service route with the client ID and resolves on 202', async () => {
    await expect(refresh('1')).resolves.toBeUndefined();
    expect(seen.at(-1)).toBe(`POST /nft/v1/contracts/${contract}/tokens/1/refresh?clientId=c1`);
  });

  it("passes the service's refusals on with their code, status and sentence", async () => {
    await expect(refresh('2')).rejects.toMatchObject({ code: 'NOT_FOUND', status: 404, message: 'Token 2 is not in the index.' });
    await expect(refresh('3')).rejects.toMatchObject({ code: 'RATE_LIMITED', status: 429 });
  });

  it('says what to do when the answer is not the service, when it is unreachable, and without a client ID', async () => {
    await expect(refresh('4')).rejects.toThrow(/answered HTTP 502 to a token refresh; try again later/);
    await expect(refresh('1', { serviceUrl: 'http://127.0.0.1:1' })).rejects.toThrow(/could not be reached/);
    const e = await refresh('1', { clientId: null }).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(TxdeskError);
    expect((e as TxdeskError).code).toBe('UNAUTHORIZED');
  });
});
