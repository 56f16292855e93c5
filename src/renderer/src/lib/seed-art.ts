// Deterministic colours from an address or token id, for avatars and tokens without an image; pure.

function hash(text: string): number {
  let h = 2166136261;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 16777619);
  }
  return h >>> 0;
}

/** A two-stop gradient, as a CSS `background` value (set through the style object, which the CSP allows). */
export function seedGradient(seed: string): string {
  const h = hash(seed);
  const a = h % 360;
  const b = (a + 40 + ((h >>> 9) % 100)) % 360;
  return `linear-gradient(135deg, hsl(${a} 70% 58%), hsl(${b} 65% 42%))`;
}
