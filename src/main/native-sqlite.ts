// Makes better-sqlite3 load a binary built for Electron's ABI when `npm start` provides one (TXDESK_SQLITE_BINDING),
// so node_modules keeps the Node build that `npm test` needs. One hook here instead of threading a path through
// every store in the core and the embedded data service. Packaged apps need none: electron-builder rebuilds for Electron.
import { existsSync } from 'node:fs';
import { sep } from 'node:path';

const bindingSuffix = `${sep}better-sqlite3${sep}build${sep}Release${sep}better_sqlite3.node`;

/** True when `filename` is better-sqlite3's default native binding (the one `bindings` finds in node_modules). */
export function isDefaultSqliteBinding(filename: string): boolean {
  return filename.endsWith(bindingSuffix) || filename.endsWith(bindingSuffix.replaceAll(sep, '/'));
}

/** Redirects the default better-sqlite3 binding to `override`; returns a function that undoes it. */
export function redirectSqliteBinding(override: string | undefined): () => void {
  if (!override) return () => {};
  if (!existsSync(override))
    throw new Error(`TXDESK_SQLITE_BINDING points at ${override}, which does not exist; unset it or run npm start again.`);
  const original = process.dlopen;
  // Flags are passed on only when given: dlopen refuses an explicit `undefined`.
  const patched = (module: { exports: unknown }, filename: string, ...flags: number[]) =>
    original.call(process, module, isDefaultSqliteBinding(filename) ? override : filename, ...flags);
  process.dlopen = patched as typeof process.dlopen;
  return () => {
    process.dlopen = original;
  };
}
