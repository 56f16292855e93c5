// Worker thread entry of the indexer's reader (see ../indexer-read-thread.ts): answers each range request with its parts,
// read through prepareRange against its own read-only connection, so it sees only what the writer has committed.
import Database from 'better-sqlite3';
import { parentPort, workerData } from 'node:worker_threads';
import { tokenKeys, type ContractRow } from '../../listing/listing-writer.js';
import { createIndexLookups } from '../../listing/sqlite/listing-lookups-sqlite.js';
import { sealedBuffers, sealRange, toWire } from '../indexer-part-wire.js';
import { prepareRange } from '../indexer-prepare.js';
import { sendError, type ReadReply, type ReadRequest, type ReadWorkerData } from '../indexer-read-thread.js';
import { createChainReader } from '../indexer-rpc.js';
import { adoptThrottleMemory } from '../../network/node-throttle.js';

const { nodeUrl, dbFile, throttleMemory } = workerData as ReadWorkerData;
// Before the reader exists: its requests count against the budget the main thread keeps for this node.
adoptThrottleMemory(nodeUrl, throttleMemory);
const db = new Database(dbFile, { readonly: true, fileMustExist: true });
db.pragma('busy_timeout = 5000');
const index = createIndexLookups(db);
const chain = createChainReader(nodeUrl);
const port = parentPort!;
// A part's columns (and its sealed buffers) are handed over, not copied.
const reply = (m: ReadReply) =>
  port.postMessage(m, m.type === 'part' ? [m.range.logs.cols.buffer as ArrayBuffer, ...sealedBuffers(m.range.sealed)] : []);

port.on('message', (r: ReadRequest) => {
  const lookups = {
    contractOf: (address: string) => index.contract(address),
    idKnown: (c: ContractRow, id: bigint) => index.idKnown(c.id, tokenKeys(c.addr, id).kId),
  };
  prepareRange(chain, lookups, r.from, r.to, new Set(r.refreshSupply), r.cap, r.partMoves).then(
    (parts) => {
      reply({ type: 'parts', req: r.req, parts: parts.map((p) => ({ from: p.from, to: p.to, size: p.size })) });
      parts.forEach((p, k) =>
        p.result.then(
          (range) => reply({ type: 'part', req: r.req, k, range: toWire(r.seal ? sealRange(range) : range), rpc: [...chain.stats] }),
          (e) => reply({ type: 'failed', req: r.req, k, error: sendError(e) }),
        ),
      );
    },
    (e) => reply({ type: 'failed', req: r.req, k: null, error: sendError(e) }),
  );
});

// Modules loaded and the handler in place: reads sent now start at once.
reply({ type: 'ready' });
