// The localhost API's bearer token: random per data dir, kept in `<data dir>/api-token` (mode 0600) and created on
// first start. Whoever can read that file may change things through the API; nobody else can.
import { randomBytes } from 'node:crypto';
import { chmodSync, existsSync, openSync, readFileSync, renameSync, statSync, writeFileSync, closeSync, rmSync } from 'node:fs';
import { join } from 'node:path';

export const API_TOKEN_FILE = 'api-token';
const tokenPattern = /^[A-Za-z0-9_-]{43}$/;

export interface ApiToken {
  token: string;
  /** Absolute path of the token file, for messages and the ready line. */
  file: string;
}

/** A fresh token: 32 random bytes, base64url (43 characters). */
export function newApiToken(): string {
  return randomBytes(32).toString('base64url');
}

/**
 * Reads the data dir's token, or creates it. A file that others could read (group/other bits), that another user
 * owns, or that does not hold a token is replaced: a token that may have leaked is no token.
 */
export function ensureApiToken(dataDir: string): ApiToken {
  const file = join(dataDir, API_TOKEN_FILE);
  if (existsSync(file)) {
    const st = statSync(file);
    const ownedByMe = typeof process.getuid !== 'function' || st.uid === process.getuid();
    const privateMode = process.platform === 'win32' || (st.mode & 0o077) === 0;
    const token = st.isFile() ? readFileSync(file, 'utf8').trim() : '';
    if (st.isFile() && ownedByMe && privateMode && tokenPattern.test(token)) return { token, file };
    rmSync(file, { force: true, recursive: false });
  }
  const token = newApiToken();
  // Written under another name with 0600 from the first byte, then renamed: nobody ever sees a readable half-file.
  const tmp = `${file}.${process.pid}.tmp`;
  // A leftover of a killed process that had the same pid; 'wx' then makes sure nobody else holds the name.
  rmSync(tmp, { force: true });
  const fd = openSync(tmp, 'wx', 0o600);
  try {
    writeFileSync(fd, `${token}\n`);
  } finally {
    closeSync(fd);
  }
  chmodSync(tmp, 0o600);
  renameSync(tmp, file);
  return { token, file };
}
