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

/** "Not logged in", naming the endpoint asked and where that endpoint came from, so a wrong one is easy to spot. */
export function notLoggedInMessage(endpoint: { url: string; source: 'TXDESK_ENDPOINT' | 'config' | 'default' }): string {
  if (endpoint.source === 'default') {
    return (
      `Not logged in to ${endpoint.url} (the default endpoint): run \`txdesk login\`, ` +
      'or point txdesk at your service with `txdesk config:set endpoint <url>`.'
    );
  }
  const from = endpoint.source === 'TXDESK_ENDPOINT' ? 'TXDESK_ENDPOINT' : 'set with `txdesk config:set endpoint`';
  return `Not logged in to ${endpoint.url} (${from}): run \`txdesk login\` first.`;
}
