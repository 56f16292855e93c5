// `txdesk service --database` (and TXDESK_DATABASE_URL) as a user meets it: a URL that is not PostgreSQL, the flag
// with --dev, and a database that does not answer each get one sentence that says what to do.
import { describe, expect, it } from 'vitest';
import { startAnvil } from '../../src/devchain/devchain.js';
import { freePort } from '../support/faults/reliability-procs.js';
import { ensureCliBuilt, runCli } from '../support/cli/cli-binary.js';

const env = (extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv => {
  const e: NodeJS.ProcessEnv = { ...process.env, TXDESK_LOG: 'info', ...extra };
  if (!('TXDESK_DATABASE_URL' in extra)) delete e.TXDESK_DATABASE_URL;
  return e;
};
const node = 'http://127.0.0.1:1';

describe('txdesk service --database', () => {
  it('refuses a URL that is not PostgreSQL, from the flag or the environment, and the flag with --dev', async () => {
    ensureCliBuilt();
    const flag = await runCli(['service', '--node', node, '--database', 'mysql://db.example.com/txdesk'], { env: env() });
    expect(flag.code).toBe(2);
    expect(flag.stderr).toContain(
      'The database URL must start with postgres:// (got mysql://); SQLite needs no URL: leave --database out to use --data-dir.',
    );
    const fromEnv = await runCli(['service', '--node', node], { env: env({ TXDESK_DATABASE_URL: 'not a url' }) });
    expect(fromEnv.code).toBe(2);
    expect(fromEnv.stderr).toContain('TXDESK_DATABASE_URL: "not a url" is not a URL; pass a PostgreSQL URL such as postgres://');
    const dev = await runCli(['service', '--dev', '--database', 'postgres://127.0.0.1:1/txdesk'], { env: env() });
    expect(dev.code).toBe(2);
    expect(dev.stderr).toContain(
      '--database applies to a service on --node, --network or --config; the --dev service keeps its state in SQLite',
    );
  });

  it('stops with one sentence, the password hidden, when the database does not answer', async () => {
    ensureCliBuilt();
    const anvil = await startAnvil();
    try {
      const port = await freePort();
      const r = await runCli(
        ['service', '--node', anvil.url, '--port', '0', '--database', `postgres://txdesk:hunter2@127.0.0.1:${port}/txdesk`],
        { env: env() },
      );
      expect(r.code).not.toBe(0);
      expect(r.stderr).toContain(`Cannot reach the database at postgres://txdesk:***@127.0.0.1:${port}/txdesk`);
      expect(r.stderr).toContain('Check the URL, that PostgreSQL is running, and that it accepts this user.');
      expect(r.stderr).not.toContain('hunter2');
    } finally {
      await anvil.stop();
    }
  });
});
