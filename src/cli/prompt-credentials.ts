// Collects the fields and the password an account command needs: from flags and stdin in scripts, by prompting at a TTY.
import type { ReadStream } from 'node:tty';
import { CliError, usageError } from './cli-errors.js';
import { createTtyPrompter, readStdin, type Prompter } from './prompt-tty.js';

export interface VisibleField {
  key: string;
  label: string;
  flag: string;
  /** The value given on the command line, if any. */
  given: string | undefined;
}

export interface CredentialRequest {
  command: string;
  fields: VisibleField[];
  passwordStdin: boolean;
  /** Ask for the password twice at a TTY (sign-up). */
  confirmPassword?: boolean;
  stdin?: NodeJS.ReadStream;
  prompts?: NodeJS.WritableStream;
  /** Runs before the first prompt, so nobody types a password for a service that is not there. */
  beforePrompting?: () => Promise<void>;
}

export interface Credentials {
  values: Record<string, string>;
  password: string;
}

export async function collectCredentials(req: CredentialRequest): Promise<Credentials> {
  const stdin = req.stdin ?? process.stdin;
  const prompts = req.prompts ?? process.stderr;
  const missing = req.fields.filter((f) => !f.given?.trim());
  if (req.passwordStdin || !stdin.isTTY) {
    const needed = [...missing.map((f) => f.flag), ...(req.passwordStdin ? [] : ['--password-stdin'])];
    if (needed.length > 0) {
      const why = req.passwordStdin ? 'With --password-stdin' : 'Without a terminal to prompt on';
      throw usageError(`${why}, \`txdesk ${req.command}\` needs ${joinFlags(needed)} (the password goes on stdin).`);
    }
    const password = await readStdin(stdin);
    if (password === '') throw usageError('The password on stdin is empty: pipe the password into --password-stdin.');
    return { values: given(req.fields), password };
  }

  await req.beforePrompting?.();
  const prompter = createTtyPrompter(stdin as ReadStream, prompts);
  try {
    const values = given(req.fields);
    for (const field of missing) values[field.key] = await askNonEmpty(prompter, `${field.label}: `);
    const password = await askNonEmpty(prompter, 'Password: ', true);
    if (req.confirmPassword) {
      const again = await prompter.ask('Repeat password: ', { hidden: true });
      if (again !== password) throw new CliError(`The passwords do not match: run \`txdesk ${req.command}\` again.`);
    }
    return { values, password };
  } finally {
    prompter.close();
  }
}

function given(fields: VisibleField[]): Record<string, string> {
  const values: Record<string, string> = {};
  for (const f of fields) if (f.given?.trim()) values[f.key] = f.given.trim();
  return values;
}

async function askNonEmpty(prompter: Prompter, question: string, hidden = false): Promise<string> {
  for (;;) {
    const answer = await prompter.ask(question, { hidden });
    const value = hidden ? answer : answer.trim();
    if (value !== '') return value;
  }
}

function joinFlags(flags: string[]): string {
  if (flags.length <= 1) return flags.join('');
  return `${flags.slice(0, -1).join(', ')} and ${flags.at(-1)}`;
}
