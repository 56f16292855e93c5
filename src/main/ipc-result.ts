// The envelope every IPC call returns: Electron passes only `message` of a thrown Error across IPC, so failures travel as values.
import type { ErrorBody } from '../shared/errors.js';

export type IpcResult<T> = { ok: true; value: T } | { ok: false; error: ErrorBody['error'] };
