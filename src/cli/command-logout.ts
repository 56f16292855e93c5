// `txdesk logout`: forgets the session token of the current endpoint, in the keychain and in the fallback file.
import type { Command } from 'commander';
import type { CliContext } from './cli-context.js';

export function registerLogout(program: Command, context: () => CliContext): void {
  program
    .command('logout')
    .description('remove the saved session of the current endpoint')
    .action(() => {
      const ctx = context();
      const endpoint = ctx.endpoint();
      const removed = ctx.sessions.remove(new URL(endpoint.url).origin);
      ctx.out(removed ? `Logged out of ${endpoint.url}.` : `Not logged in to ${endpoint.url}; nothing to remove.`);
    });
}
