// The localhost API's bearer token for tests that POST to the app server: read from the token file the core named.
import { readFileSync } from 'node:fs';

/** `{ authorization: 'Bearer <token>' }` for the token in `tokenFile` (the ready line's `apiTokenFile`). */
export function authHeader(tokenFile: string): { authorization: string } {
  return { authorization: `Bearer ${readFileSync(tokenFile, 'utf8').trim()}` };
}
