// Message and ack ids: UUID version 7 strings (RFC 9562), time-ordered so that each stored batch appends at the
// right edge of the id indexes instead of touching a random page per row (random v4 ids made every commit of 100
// messages write hundreds of scattered pages to the WAL). 62 random bits per id keep them unguessable enough for
// what they are: opaque names, scoped by clientId.
import { randomFillSync } from 'node:crypto';

const POOL_IDS = 512;
const pool = Buffer.alloc(POOL_IDS * 8);
let poolAt = POOL_IDS;
let lastMs = 0;
let counter = 0;

/** A new UUIDv7; ids from one process sort in creation order (a 12-bit counter orders ids within a millisecond). */
export function orderedId(nowMs: number = Date.now()): string {
  const ms = Math.max(0, Math.floor(nowMs));
  if (ms > lastMs) {
    lastMs = ms;
    counter = 0;
  } else if (++counter > 0xfff) {
    // A clock that stepped back keeps counting on the last millisecond; past 4096 ids in one, borrow the next.
    lastMs += 1;
    counter = 0;
  }
  if (poolAt === POOL_IDS) {
    randomFillSync(pool);
    poolAt = 0;
  }
  const r = pool.subarray(poolAt * 8, poolAt * 8 + 8);
  poolAt++;
  const ts = lastMs.toString(16).padStart(12, '0');
  const variant = ((r[0]! & 0x3f) | 0x80).toString(16);
  const rand = r.toString('hex', 1, 8);
  return `${ts.slice(0, 8)}-${ts.slice(8, 12)}-7${counter.toString(16).padStart(3, '0')}-${variant}${rand.slice(0, 2)}-${rand.slice(2, 14)}`;
}
