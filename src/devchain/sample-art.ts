// Pure generators of the sample tokens' metadata JSON and their small SVG pictures (deterministic per collection and id).

export interface TokenMetadataJson {
  name: string;
  description: string;
  image: string;
  attributes: { trait_type: string; value: string | number }[];
}

/** A cheap deterministic 32-bit hash (FNV-1a), so each token gets stable colours. */
function hash(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h;
}

export function tokenPalette(collection: string, tokenId: string): { hue: number; shape: 'circle' | 'square' | 'diamond' } {
  const h = hash(`${collection.toLowerCase()}/${tokenId}`);
  const shapes = ['circle', 'square', 'diamond'] as const;
  return { hue: h % 360, shape: shapes[(h >>> 9) % 3]! };
}

export function tokenSvg(collection: string, collectionName: string, tokenId: string): string {
  const { hue, shape } = tokenPalette(collection, tokenId);
  const fg = `hsl(${(hue + 180) % 360} 70% 55%)`;
  const figure =
    shape === 'circle'
      ? `<circle cx="128" cy="112" r="64" fill="${fg}"/>`
      : shape === 'square'
        ? `<rect x="64" y="48" width="128" height="128" rx="12" fill="${fg}"/>`
        : `<polygon points="128,40 200,112 128,184 56,112" fill="${fg}"/>`;
  const label = escapeXml(`${collectionName} #${tokenId}`);
  return [
    '<svg xmlns="http://www.w3.org/2000/svg" width="256" height="256" viewBox="0 0 256 256">',
    `<rect width="256" height="256" fill="hsl(${hue} 60% 22%)"/>`,
    figure,
    `<text x="128" y="228" font-family="sans-serif" font-size="20" fill="#fff" text-anchor="middle">${label}</text>`,
    '</svg>',
  ].join('');
}

export function tokenMetadata(collection: string, collectionName: string, tokenId: string, imageUrl: string): TokenMetadataJson {
  const { hue, shape } = tokenPalette(collection, tokenId);
  return {
    name: `${collectionName} #${tokenId}`,
    description: `Sample token ${tokenId} of ${collectionName}, deployed by the txdesk dev chain.`,
    image: imageUrl,
    attributes: [
      { trait_type: 'shape', value: shape },
      { trait_type: 'hue', value: hue },
    ],
  };
}

function escapeXml(s: string): string {
  return s.replace(/[<>&"']/g, (c) => `&#${c.charCodeAt(0)};`);
}
