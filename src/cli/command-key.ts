// `txdesk key export`: the app's stored signing key as a Web3 Secret Storage v3 keystore encrypted with a passphrase
// (hidden prompt, or --passphrase-stdin), to --out FILE (mode 0600, never over an existing file) or stdout.
import { writeFileSync } from 'node:fs';
import type { ReadStream } from 'node:tty';
import { z } from 'zod';
import { silentLogger } from '../lib/log.js';
import { CliError, usageError } from './cli-errors.js';
import { dirOption, parseOptions } from './cli-options.js';
import { createTtyPrompter, readStdin } from './prompt-tty.js';

const exportOptions = z.object({
  out: z.string().trim().min(1, 'give a file path').optional(),
  dataDir: dirOption.optional(),
  scope: z.enum(['configured', 'embedded'], { error: 'give configured or embedded' }).optional(),
  passphraseStdin: z.boolean().optional(),
});

const MIN_PASSPHRASE = 8;

async function askPassphrase(passphraseStdin: boolean): Promise<string> {
  const stdin = process.stdin;
  let passphrase: string;
  if (passphraseStdin || !stdin.isTTY) {
    if (!passphraseStdin)
      throw usageError('Without a terminal to prompt on, `txdesk key export` needs --passphrase-stdin (the passphrase goes on stdin).');
    passphrase = await readStdin(stdin);
  } else {
    const prompter = createTtyPrompter(stdin as ReadStream, process.stderr);
    try {
      passphrase = await prompter.ask('Passphrase for the exported file: ', { hidden: true });
      const again = await prompter.ask('Repeat passphrase: ', { hidden: true });
      if (again !== passphrase) throw new CliError('The passphrases do not match: run `txdesk key export` again.');
    } finally {
      prompter.close();
    }
  }
  if (passphrase.length < MIN_PASSPHRASE)
    throw usageError(`The export passphrase must have at least ${MIN_PASSPHRASE} characters; choose a longer one.`);
  return passphrase;
}

export async function runKeyExport(raw: Record<string, unknown>): Promise<void> {
  const opts = parseOptions(exportOptions, raw);
  const [{ readStoredKey }, { exportKeystore }] = await Promise.all([
    import('../core/adapters/vault/vault-stored-key.js'),
    import('../core/services/key-export.js'),
  ]);
  let stored;
  try {
    stored = await readStoredKey({ dataDir: opts.dataDir, scope: opts.scope, env: process.env, log: silentLogger });
  } catch (e) {
    throw new CliError((e as Error).message);
  }
  const passphrase = await askPassphrase(opts.passphraseStdin === true);
  const out = await exportKeystore(stored.privateKey, passphrase);
  if (opts.out) {
    try {
      writeFileSync(opts.out, `${out.keystore}\n`, { mode: 0o600, flag: 'wx' });
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      throw new CliError(
        code === 'EEXIST'
          ? `${opts.out} already exists; choose another --out file (an export never overwrites one).`
          : `Cannot write ${opts.out} (${code ?? 'error'}); choose a folder you can write.`,
      );
    }
    process.stderr.write(
      `Exported ${out.address} (${stored.scope} key, ${stored.storage}) to ${opts.out}; keep the passphrase, the file is useless without it.\n`,
    );
  } else {
    process.stdout.write(`${out.keystore}\n`);
    process.stderr.write(`Exported ${out.address} (${stored.scope} key, ${stored.storage}); suggested file name ${out.fileName}.\n`);
  }
}
