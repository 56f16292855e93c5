#!/usr/bin/env node
// Entry point of the `txdesk` command; the CLI itself is compiled from src/cli into dist/ by `npm run build`.
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const entry = new URL('../dist/cli/index.js', import.meta.url);
if (!existsSync(fileURLToPath(entry))) {
  process.stderr.write('txdesk is not built yet: run `npm run build` in the txdesk folder first.\n');
  process.exit(1);
}
await import(entry.href);
