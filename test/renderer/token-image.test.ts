// Where the renderer loads a token image from: data:image/ as it is, http(s) only through the core, anything else not at all.
import { describe, expect, it } from 'vitest';
import { tokenImageSrc } from '../../src/renderer/src/lib/token-image.js';

const png = 'https://example.org/a b.png?x=1&y=2';
const enc = encodeURIComponent(png);

describe('tokenImageSrc', () => {
  const rows: [string | undefined, 'ipc' | 'http', string | undefined][] = [
    [png, 'http', `/api/token-image?url=${enc}`],
    [png, 'ipc', `txdesk-image://token/?url=${enc}`],
    ['http://127.0.0.1:8545/1.svg', 'http', `/api/token-image?url=${encodeURIComponent('http://127.0.0.1:8545/1.svg')}`],
    ['data:image/svg+xml;base64,PHN2Zy8+', 'http', 'data:image/svg+xml;base64,PHN2Zy8+'],
    ['DATA:image/png;base64,AAAA', 'ipc', 'DATA:image/png;base64,AAAA'],
    ['data:text/html,<script>', 'http', undefined],
    ['javascript:alert(1)', 'http', undefined],
    ['//evil.example/1.png', 'http', undefined],
    ['', 'http', undefined],
    [undefined, 'ipc', undefined],
  ];
  it.each(rows)('%s over %s -> %s', (image, transport, expected) => expect(tokenImageSrc(image, transport)).toBe(expected));

  it('gives the core back exactly the URL from the metadata', () => {
    const src = tokenImageSrc(png, 'http')!;
    expect(new URL(src, 'http://127.0.0.1:3000').searchParams.get('url')).toBe(png);
  });
});
