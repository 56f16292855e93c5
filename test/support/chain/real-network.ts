// A stand-in real network for tests, set up as a person would: anvil with a chain id of its own, a separate
// `txdesk service --node …`, a client ID from `txdesk signup` and `txdesk account:describe`, and an environment that
// carries none of the machine's txdesk variables, so `txdesk serve` is configured only by what a test sets.
import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { anvilBinaryPath } from '../../../src/devchain/anvil-binary.js';
import { runCli, startCliDaemon, type CliDaemon } from '../cli/cli-binary.js';
import { freePort } from '../faults/reliability-procs.js';
import { waitFor } from '../poll.js';

export const SEPOLIA = 11155111;
/** A funded anvil account (the second dev account). */
export const FUNDED_KEY = '0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d';

/** Every variable that configures the app: none may come from the machine running the tests. */
const appVars = [
  'NODE_ENDPOINT',
  'TXDESK_SERVICE_URL',
  'CLIENT_ID',
  'PRIVATE_KEY',
  'PLATFORM',
  'NETWORK',
  'TXDESK_KEY_PASSPHRASE',
  'TXDESK_ENDPOINT',
];

/** The test process's environment without the app's variables, logging at info, without the OS keychain. */
export function cleanEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, TXDESK_LOG: 'info', TXDESK_KEYCHAIN: 'off' };
  for (const v of appVars) delete env[v];
  return env;
}

/** One JSON-RPC call; the result, or undefined when the answer has none. */
export async function rpc(url: string, method: string, params: unknown[] = []): Promise<unknown> {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
  });
  return ((await res.json()) as { result: unknown }).result;
}

/** anvil on a free port (`chainId` null: anvil's own 31337), answering JSON-RPC; killed if it never answers. */
export async function startAnvil(chainId: number | null, extra: string[] = []): Promise<{ url: string; child: ChildProcess }> {
  const port = await freePort();
  const child = spawn(
    anvilBinaryPath(),
    ['--port', String(port), '--silent', ...(chainId ? ['--chain-id', String(chainId)] : []), ...extra],
    { stdio: 'ignore' },
  );
  const url = `http://127.0.0.1:${port}`;
  try {
    await waitFor('anvil answers', async () => ((await rpc(url, 'eth_chainId')) ? true : undefined), {
      timeoutMs: 30_000,
      everyMs: 100,
      retryErrors: true,
    });
  } catch (e) {
    child.kill('SIGKILL');
    throw e;
  }
  return { url, child };
}

/** `txdesk service --node <node> --open-signup --json` on `port` with its data in `dataDir`. */
export const startDataService = (node: string, port: number, dataDir: string): Promise<CliDaemon> =>
  startCliDaemon(['service', '--node', node, '--port', String(port), '--data-dir', dataDir, '--open-signup', '--json'], {
    env: cleanEnv(),
  });

/** Signs up on the service with the CLI as a person does (config in `configRoot`) and returns the account's client ID. */
export async function signUpClientId(serviceUrl: string, configRoot: string): Promise<string> {
  const env = {
    ...cleanEnv(),
    TXDESK_ENDPOINT: serviceUrl,
    TXDESK_CONFIG_DIR: join(configRoot, 'config'),
    DBUS_SESSION_BUS_ADDRESS: 'unix:path=/nonexistent',
  };
  const signup = await runCli(['signup', '--name', 'Ada', '--organization', 'Engines', '--email', 'ada@example.com', '--password-stdin'], {
    env,
    input: 'correct horse battery\n',
  });
  if (signup.code !== 0) throw new Error(`txdesk signup failed (${signup.code}): ${signup.stderr}`);
  const described = await runCli(['account:describe', '--json'], { env });
  return (JSON.parse(described.stdout) as { clientId: string }).clientId;
}
