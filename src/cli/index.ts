// Entry of the `txdesk` command (bin/txdesk.js imports the compiled copy in dist/cli).
import { run } from './cli-program.js';

const flushed = (stream: NodeJS.WriteStream) => new Promise<void>((resolve) => stream.write('', () => resolve()));

const { code, keepAlive } = await run(process.argv);
// Short commands exit at once (idle keep-alive sockets would hold the process a few seconds), after their output has
// left: writes to pipes are asynchronous on some platforms. Long-running ones exit from their signal handlers.
if (!keepAlive) {
  await Promise.all([flushed(process.stdout), flushed(process.stderr)]);
  process.exit(code);
}
