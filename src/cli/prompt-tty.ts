// Asks questions at a terminal in raw mode: visible answers are echoed by us, hidden ones (passwords) never are.
import type { ReadStream } from 'node:tty';
import { CliError, exitCodes } from './cli-errors.js';
import { editLine } from './prompt-line-edit.js';

export interface Prompter {
  ask(question: string, options?: { hidden?: boolean }): Promise<string>;
  close(): void;
}

/** One prompter per command run: typed-ahead input left over from one answer is kept for the next question. */
export function createTtyPrompter(input: ReadStream, output: NodeJS.WritableStream): Prompter {
  let pending = '';
  let raw = false;
  const restore = () => {
    if (raw) {
      input.setRawMode(false);
      raw = false;
    }
  };
  const ensureRaw = () => {
    if (raw) return;
    // Raw mode before the first question is printed, so no key typed after it is ever echoed by the terminal itself.
    input.setRawMode(true);
    input.setEncoding('utf8');
    raw = true;
    process.once('exit', restore);
  };

  const ask = (question: string, { hidden = false }: { hidden?: boolean } = {}): Promise<string> =>
    new Promise((resolve, reject) => {
      ensureRaw();
      output.write(question);
      let value = '';
      const apply = (chunk: string) => {
        const edit = editLine(value, chunk, hidden);
        value = edit.value;
        if (edit.echo) output.write(edit.echo);
        if (edit.outcome === 'more') return;
        pending = edit.rest;
        cleanup();
        output.write('\n');
        if (edit.outcome === 'enter') resolve(value);
        else reject(new CliError(edit.outcome === 'cancel' ? 'Cancelled.' : 'Cancelled: input ended.', exitCodes.interrupted));
      };
      const onData = (chunk: string | Buffer) => apply(chunk.toString());
      const onEnd = () => {
        cleanup();
        output.write('\n');
        reject(new CliError('Cancelled: input ended.', exitCodes.interrupted));
      };
      const cleanup = () => {
        input.off('data', onData);
        input.off('end', onEnd);
        input.pause();
      };
      input.on('data', onData);
      input.on('end', onEnd);
      input.resume();
      if (pending) {
        const leftover = pending;
        pending = '';
        apply(leftover);
      }
    });

  return {
    ask,
    close() {
      restore();
      input.pause();
    },
  };
}

/** Everything on stdin, for `--password-stdin`; one trailing newline is not part of the password. */
export async function readStdin(stream: NodeJS.ReadableStream = process.stdin): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(Buffer.isBuffer(chunk) ? chunk : Buffer.from(String(chunk)));
  return Buffer.concat(chunks)
    .toString('utf8')
    .replace(/\r?\n$/, '');
}
