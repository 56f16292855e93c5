// The `txdesk` commander program: global settings, the commands (cli-commands.ts), and how errors become exit codes.
import { readFileSync } from 'node:fs';
import { Command, CommanderError } from 'commander';
import { CliError, exitCodes } from './cli-errors.js';
import { registerCommands } from './cli-commands.js';
import type { CliContext } from './cli-context.js';
import { DEFAULT_SERVICE_URL } from '../shared/defaults.js';

/** The package version; package.json sits two levels above both src/cli and dist/cli. */
export function packageVersion(): string {
  const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version?: string };
  return pkg.version ?? '0.0.0';
}

/** The program with every command; `context` replaces the account commands' real one (loaded when one runs). */
export function buildProgram(context?: () => CliContext): Command {
  const program = new Command('txdesk')
    .description('txdesk: dev chain, data service, headless app, and your txdesk account')
    .version(packageVersion(), '-V, --version', 'print the txdesk version')
    .helpOption('-h, --help', 'show help for a command')
    .helpCommand('help [command]', 'show help for a command')
    .showSuggestionAfterError(true)
    .exitOverride(); // inherited by the commands below, so usage errors reach run() and exit with 2
  registerCommands(program, context);
  program.addHelpText(
    'after',
    '\nAccount commands talk to $TXDESK_ENDPOINT, else the endpoint saved with `txdesk config:set endpoint <url>`, else ' +
      `${DEFAULT_SERVICE_URL}.\nDocs: docs/cli.md`,
  );
  return program;
}

const longRunning = new Set(['devchain', 'service', 'serve']);

export interface RunResult {
  code: number;
  /** True when a long-running command is now running: the process must stay alive until its signal handler exits. */
  keepAlive: boolean;
}

/** Runs the CLI; errors are printed as one line on stderr and become the exit code. */
export async function run(argv: string[]): Promise<RunResult> {
  const program = buildProgram();
  let ran = '';
  program.hook('preAction', (_program, action) => {
    ran = action.name();
  });
  try {
    if (argv.length <= 2) {
      program.outputHelp();
      return { code: exitCodes.usage, keepAlive: false };
    }
    await program.parseAsync(argv);
    return { code: exitCodes.ok, keepAlive: longRunning.has(ran) };
  } catch (e) {
    return { code: reportError(e), keepAlive: false };
  }
}

function reportError(e: unknown): number {
  if (e instanceof CommanderError) {
    // Commander has already printed its message (or the help / version text).
    return e.exitCode === 0 ? exitCodes.ok : exitCodes.usage;
  }
  if (e instanceof CliError) {
    process.stderr.write(`${e.message}\n`);
    return e.exitCode;
  }
  process.stderr.write(`txdesk failed unexpectedly: ${(e as Error)?.stack ?? String(e)}\n`);
  return exitCodes.failure;
}
