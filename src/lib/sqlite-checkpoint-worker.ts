// Worker thread entry of the WAL checkpointer (see sqlite-checkpointer.ts): its own connection to the file, one PASSIVE
// checkpoint per message (PASSIVE never waits for the writer or for readers; what they still hold is copied later).
import Database from 'better-sqlite3';
import { parentPort, workerData } from 'node:worker_threads';
import type { CheckpointReply, CheckpointWorkerData } from './sqlite-checkpointer.js';

const { file } = workerData as CheckpointWorkerData;
const db = new Database(file, { fileMustExist: true });
const port = parentPort!;

port.on('message', () => {
  let reply: CheckpointReply;
  try {
    db.pragma('wal_checkpoint(PASSIVE)');
    reply = { ok: true };
  } catch (e) {
    reply = { ok: false, error: e instanceof Error ? e.message : String(e) };
  }
  port.postMessage(reply);
});
