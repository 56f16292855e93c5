// Reads JSON where it lies in a received buffer, for scanners of answers whose shape they know: strings come back as
// byte ranges (no string made unless the scanner asks), members it does not read are skipped, and anything outside
// what it handles (an escape, a nested value where a scalar is skipped, a cut body) throws NotScanned, so that the
// caller parses the answer with JSON.parse instead.

/** The scanner met something it does not handle; the caller falls back to JSON.parse. */
export class NotScanned extends Error {}
export const notScanned = (): never => {
  throw new NotScanned();
};

export const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COMMA = 0x2c;
const COLON = 0x3a;
export const OPEN_ARRAY = 0x5b;
export const CLOSE_ARRAY = 0x5d;
export const OPEN_OBJECT = 0x7b;
export const CLOSE_OBJECT = 0x7d;

/** The member names a scanner reads, as bytes, so a key is matched without making a string per member. */
export function keyTable<K extends string>(keys: readonly K[]): { keys: readonly K[]; bytes: Buffer[] } {
  return { keys, bytes: keys.map((k) => Buffer.from(k, 'latin1')) };
}

export class JsonBytes {
  protected at = 0;
  /** The contents of the last string read: [start, end). */
  protected start = 0;
  protected end = 0;
  /** Where the next backslash is (2^32 - 1 for none), once looked up. */
  private slash = -1;

  constructor(protected readonly b: Buffer) {}

  /** A member's key, and the colon after it: one of the table's keys, or null for any other. */
  protected key<K extends string>(table: { keys: readonly K[]; bytes: Buffer[] }): K | null {
    this.string();
    const b = this.b;
    const s = this.start;
    const e = this.end;
    let found: K | null = null;
    next: for (let k = 0; k < table.bytes.length; k++) {
      const key = table.bytes[k]!;
      if (key.length !== e - s || key[0] !== b[s]) continue;
      for (let i = 1; i < key.length; i++) if (key[i] !== b[s + i]) continue next;
      found = table.keys[k]!;
      break;
    }
    this.expect(COLON);
    return found;
  }

  /** Reads a string: its contents are [start, end). A string with an escape is not scanned (hex never has one). */
  protected string(): void {
    this.expect(QUOTE);
    const s = this.at;
    const e = this.b.indexOf(QUOTE, s);
    if (e < 0) notScanned();
    // The next backslash is looked up once, not per string (most answers have none, and each lookup runs to the end).
    if (this.slash < s) this.slash = this.b.indexOf(BACKSLASH, s) >>> 0;
    if (this.slash < e) notScanned();
    this.start = s;
    this.end = e;
    this.at = e + 1;
  }

  /** A member's value the scanner does not read: a string, number, true, false or null (not an array or object). */
  protected skipValue(): void {
    if (this.peek() === QUOTE) {
      this.string();
      return;
    }
    const b = this.b;
    const s = this.at;
    while (this.at < b.length) {
      const c = b[this.at]!;
      if (c === COMMA || c === CLOSE_OBJECT || c === CLOSE_ARRAY || c <= 0x20) break;
      if (c === QUOTE || c === OPEN_ARRAY || c === OPEN_OBJECT) notScanned();
      this.at++;
    }
    if (this.at === s) notScanned();
  }

  /** An object, each member read by `member` (which reads the key). */
  protected object(member: () => void): void {
    if (this.enter(OPEN_OBJECT, CLOSE_OBJECT))
      do member();
      while (this.more(CLOSE_OBJECT));
  }

  /** An array, each element read by `item`. */
  protected list(item: () => void): void {
    if (this.enter(OPEN_ARRAY, CLOSE_ARRAY))
      do item();
      while (this.more(CLOSE_ARRAY));
  }

  /**
   * Opens an object or array: false when it is empty (its close read too). Hot loops use it with `more` instead of
   * object() and list(), whose closures cost a context per element.
   */
  protected enter(open: number, close: number): boolean {
    this.expect(open);
    if (this.peek() !== close) return true;
    this.at++;
    return false;
  }

  /** After an element: true past a comma, false past `close`. */
  protected more(close: number): boolean {
    const c = this.peek();
    this.at++;
    if (c === COMMA) return true;
    if (c !== close) notScanned();
    return false;
  }

  protected expect(c: number): void {
    if (this.peek() !== c) notScanned();
    this.at++;
  }

  /** The next byte that is not whitespace (-1 at the end). */
  protected peek(): number {
    const b = this.b;
    while (this.at < b.length && b[this.at]! <= 0x20) this.at++;
    return this.at < b.length ? b[this.at]! : -1;
  }

  /** The end of the body, whitespace aside: anything after the answer is not scanned. */
  protected finish(): void {
    if (this.peek() !== -1) notScanned();
  }
}

/**
 * The hex digits [start, end) of a buffer as one "0x..." string: the two bytes before them are lent "0x" for the slice
 * and given back (a joined "0x" + slice costs a second string, ~10% of decoding a Transfer).
 */
export function hexWith0x(b: Buffer, start: number, end: number): string {
  const x = b[start - 2]!;
  const y = b[start - 1]!;
  b[start - 2] = 0x30;
  b[start - 1] = 0x78;
  const s = b.toString('latin1', start - 2, end);
  b[start - 2] = x;
  b[start - 1] = y;
  return s;
}

/** Runs a scan; null when it met something it does not handle. */
export function scanned<T>(scan: () => T): T | null {
  try {
    return scan();
  } catch (e) {
    if (e instanceof NotScanned) return null;
    throw e;
  }
}
