// Table of who may talk to the localhost server (Host against DNS rebinding, Origin against cross-site requests).
import { describe, expect, it } from 'vitest';
import { guardRequest } from '../../../../src/core/adapters/http/app-server-guard.js';

const P = 3000;
describe('guardRequest', () => {
  it.each([
    ['GET', { host: '127.0.0.1:3000' }, true],
    ['POST', { host: 'localhost:3000' }, true],
    ['POST', { host: 'LOCALHOST:3000' }, true],
    ['POST', { host: '127.0.0.1:3000', origin: 'http://127.0.0.1:3000' }, true],
    ['POST', { host: '127.0.0.1:3000', origin: 'http://localhost:3000' }, true],
    ['GET', { host: '127.0.0.1:3000', 'sec-fetch-site': 'cross-site' }, true], // a link or an image: read-only
    ['POST', { host: '127.0.0.1:3000', 'sec-fetch-site': 'same-origin' }, true],
    ['GET', {}, false],
    ['GET', { host: '127.0.0.1' }, false],
    ['GET', { host: '127.0.0.1:3001' }, false],
    ['GET', { host: 'evil.example:3000' }, false],
    ['GET', { host: '[::1]:3000' }, false],
    ['GET', { host: '127.0.0.1:3000.evil.example' }, false],
    ['POST', { host: '127.0.0.1:3000', origin: 'null' }, false],
    ['POST', { host: '127.0.0.1:3000', origin: 'https://127.0.0.1:3000' }, false],
    ['POST', { host: '127.0.0.1:3000', origin: 'http://127.0.0.1:3001' }, false],
    ['GET', { host: '127.0.0.1:3000', origin: 'https://evil.example' }, false],
    ['OPTIONS', { host: '127.0.0.1:3000', origin: 'https://evil.example' }, false],
    ['POST', { host: '127.0.0.1:3000', origin: 'http://127.0.0.1:3000.evil.example' }, false],
    ['POST', { host: '127.0.0.1:3000', 'sec-fetch-site': 'cross-site' }, false],
  ] as const)('%s %o -> allowed %s', (method, headers, allowed) => {
    const r = guardRequest(method, headers, P);
    expect(r === null).toBe(allowed);
    if (r) {
      expect(r.code).toBe('FORBIDDEN');
      expect(r.status).toBe(403);
    }
  });
});
