// The one error type CLI commands throw: a one-line message for the user and the exit code the process ends with.

/** Exit codes of every txdesk command (docs/cli.md lists them). */
export const exitCodes = {
  ok: 0,
  /** Not logged in, session expired, wrong password, sign-up closed, the service refused or failed. */
  failure: 1,
  /** Bad command line, option value, setting or environment variable. */
  usage: 2,
  /** The txdesk service could not be reached. */
  unreachable: 3,
  /** Interrupted at a prompt (Ctrl-C). */
  interrupted: 130,
} as const;

export class CliError extends Error {
  constructor(
    message: string,
    readonly exitCode: number = exitCodes.failure,
  ) {
    super(message);
    this.name = 'CliError';
  }
}

export function usageError(message: string): CliError {
  return new CliError(message, exitCodes.usage);
}

export const notLoggedInMessage = 'Not logged in: run `txdesk login` first.';
