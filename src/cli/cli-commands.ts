// The command line `txdesk` accepts: every command's arguments, options and help, with nothing behind them. Each
// action imports its command module (zod, the accounts client, the service, ethers ...) only when it runs, so help,
// --version and usage errors load commander alone: a start cost 0.6 CPU-s when this file imported every command.
import type { Command } from 'commander';
import type { CliContext } from './cli-context.js';
import {
  DEFAULT_APP_PORT,
  DEFAULT_DEVCHAIN_PORT,
  DEFAULT_SERVICE_PORT,
  DEFAULT_SERVICE_URL,
  MAX_SECRET_OVERLAP_SECONDS,
} from '../shared/defaults.js';

type Options = Record<string, unknown>;
const repeatable = (value: string, all: string[] = []) => [...all, value];

/** Registers every command on `program`. `context` replaces the account commands' real one (config, sessions, output). */
export function registerCommands(program: Command, context?: () => CliContext): void {
  // The real context is loaded with the command that uses it: it reads the config folder and the keychain's module.
  const withContext = async <M>(command: Promise<M>): Promise<[M, () => CliContext]> =>
    Promise.all([command, context ?? import('./cli-context.js').then((m) => m.createCliContext)]);

  program
    .command('devchain')
    .description('run only the dev chain: anvil with sample ERC-721 collections and optional congestion')
    .option('--json', 'when ready, print one JSON line (node URL, chain ID, collections, dev accounts) on stdout')
    .option('--port <n>', `JSON-RPC port; 0 picks a free one (default ${DEFAULT_DEVCHAIN_PORT})`)
    .option('--block-time <s>', 'seconds per block (default 1)')
    .option(
      '--congestion <level>',
      'background load that fills blocks: off, low, high or market (a moving base fee, docs/devchain.md) (default off)',
    )
    .option('--seed <n>', 'seed of the market load, so a run can be repeated (default $TXDESK_DEVCHAIN_SEED, else 1)')
    .action(async (raw: Options) => (await import('./command-devchain.js')).runDevchain(raw));

  program
    .command('service')
    .description('run the data service: token listing API, transaction tracker, accounts')
    .option('--dev', 'also run a dev chain, with open sign-up and a dev account')
    .option(
      '--node <url>',
      'Ethereum JSON-RPC URL to index and watch, http(s):// or ws(s)://, e.g. http://127.0.0.1:8545 ' +
        '(default: $NODE_ENDPOINT; not with --dev)',
    )
    .option(
      '--network <spec>',
      'a network to serve, <platform>/<network>=<node url>[,<node url>...] (more URLs: failover), e.g. ' +
        'ethereum/sepolia=https://rpc.example; repeat for more networks, the first is the default',
      repeatable,
    )
    .option(
      '--config <file>',
      'a JSON file listing the networks to serve (platform, network, nodeUrls, chainId, indexerLag, startBlock; see docs/deploy.md)',
    )
    .option('--port <n>', `HTTP port; 0 picks a free one (default ${DEFAULT_SERVICE_PORT})`)
    .option(
      '--data-dir <dir>',
      'where the SQLite database goes (default: $TXDESK_DATA_DIR, else the user data folder); not used with --database',
    )
    .option(
      '--indexer-lag <blocks>',
      'blocks the token indexer stays behind the chain head, so short reorgs never reach the listing (default: 0 on dev ' +
        "chains 31337/1337, else 12); not the app's tracker confirmations",
    )
    .option('--confirmations <blocks>', 'old name of --indexer-lag')
    .option('--json', 'when ready, print one JSON line (serviceUrl, nodeUrl, chainId, ...) on stdout')
    .option('--open-signup', 'let anyone create an account with `txdesk signup` (always on with --dev)')
    .option(
      '--allow-private-webhooks',
      'let webhooks reach loopback, private and link-local addresses (always on with --dev; off for a service strangers use)',
    )
    .option('--congestion <level>', 'with --dev: background load on the dev chain, off, low, high or market')
    .option('--block-time <s>', 'with --dev: seconds per block of the dev chain')
    .option(
      '--database <url>',
      'postgres://user:password@host:5432/db shared by any number of service instances: accounts, token index and tracker ' +
        'live there (default: $TXDESK_DATABASE_URL, else SQLite in --data-dir)',
    )
    .option(
      '--public-url <url>',
      'the URL clients use (e.g. https://txdesk.example.com behind a proxy): its host is answered besides loopback, and page links use it',
    )
    .action(async (raw: Options) => (await import('./command-service.js')).runService(raw));

  program
    .command('serve')
    .description('run the app headless: /api/tx, the listing proxy and the web UI on 127.0.0.1')
    .option('--port <n>', `HTTP port; 0 picks a free one (default ${DEFAULT_APP_PORT})`)
    .option('--json', 'when ready, print one JSON line (appUrl, rpcUrl, apiTokenFile, serviceUrl, nodeUrl, ...) on stdout')
    .option('--congestion <level>', 'background load on the embedded dev chain: off, low, high or market (seed: $TXDESK_DEVCHAIN_SEED)')
    .option('--data-dir <dir>', 'where the app keeps its data (default: $TXDESK_DATA_DIR or the app default)')
    .option('--block-time <s>', 'seconds per block of the embedded dev chain (default 1)')
    .option('--allow-key-routes', 'also allow key generate/import/export and node/service URL changes over HTTP (with the API token)')
    .action(async (raw: Options) => (await import('./command-serve.js')).runServe(raw));

  program
    .command('signup')
    .description('create an account on the txdesk service and log in; prompts for what is not given at a terminal')
    .option('--name <name>', 'your name')
    .option('--organization <organization>', 'your organization')
    .option('--email <email>', 'the account e-mail')
    .option('--password-stdin', 'read the password from stdin, for scripts')
    .action(async (raw: Options) => {
      const [{ runSignup }, ctx] = await withContext(import('./command-signup.js'));
      await runSignup(raw, ctx);
    });

  program
    .command('login')
    .description('log in to the txdesk service; prompts for e-mail and a hidden password at a terminal')
    .option('--email <email>', 'the account e-mail (prompted for when missing)')
    .option('--password-stdin', 'read the password from stdin, for scripts')
    .action(async (raw: Options) => {
      const [{ runLogin }, ctx] = await withContext(import('./command-login.js'));
      await runLogin(raw, ctx);
    });

  program
    .command('logout')
    .description('revoke the session on the service and remove it from this machine')
    .action(async () => {
      const [{ runLogout }, ctx] = await withContext(import('./command-logout.js'));
      await runLogout(ctx);
    });

  program
    .command('account:describe')
    .description('print the e-mail, name, organization and client ID of the logged-in account')
    .option('--json', 'print one JSON object instead of four lines')
    .action(async (raw: Options) => {
      const [{ runAccountDescribe }, ctx] = await withContext(import('./command-account-describe.js'));
      await runAccountDescribe(raw, ctx);
    });

  program
    .command('account:api-secret')
    .description("make the logged-in account's API secret, shown only this once: what a program sends to manage webhooks")
    .option('--rotate', 'replace the API secret the account has (the old one stops working at once)')
    .option('--revoke', 'end the API secret: programs using it can no longer manage webhooks')
    .option('--json', 'print {"apiSecret", "createdAt"} (or {"revoked"}) as one JSON object')
    .action(async (raw: Options) => {
      const [{ runAccountApiSecret }, ctx] = await withContext(import('./command-account-api-secret.js'));
      await runAccountApiSecret(raw, ctx);
    });

  program
    .command('config:set')
    .description('save a setting; `config:set endpoint <url>` points the account commands at a txdesk service')
    .argument('<key>', 'the setting: endpoint')
    .argument('<value>', `its value, e.g. ${DEFAULT_SERVICE_URL}`)
    .action(async (key: string, value: string) => {
      const [{ runConfigSet }, ctx] = await withContext(import('./command-config.js'));
      runConfigSet(key, value, ctx);
    });

  program
    .command('config:get')
    .description('print a setting and where its value comes from')
    .argument('[key]', 'the setting: endpoint', 'endpoint')
    .action(async (key: string) => {
      const [{ runConfigGet }, ctx] = await withContext(import('./command-config.js'));
      runConfigGet(key, ctx);
    });

  registerWebhook(program, withContext);

  const key = program.command('key').description("the app's signing key");
  key
    .command('export')
    .description('export the stored signing key as a passphrase-encrypted keystore file (Web3 Secret Storage v3)')
    .option('--out <file>', 'write the keystore to this new file (mode 0600); default: stdout')
    .option('--data-dir <dir>', 'the app data folder (default: $TXDESK_DATA_DIR or ~/.txdesk)')
    .option('--scope <scope>', 'configured (a real network) or embedded (the dev chain); default: configured if stored, else embedded')
    .option('--passphrase-stdin', 'read the export passphrase from stdin, for scripts')
    .action(async (raw: Options) => (await import('./command-key.js')).runKeyExport(raw));
}

function registerWebhook(program: Command, withContext: <M>(command: Promise<M>) => Promise<[M, () => CliContext]>): void {
  const load = () => withContext(import('./command-webhook.js'));
  const webhook = program
    .command('webhook')
    .description("the logged-in account's webhooks: tracker messages and address activity POSTed, signed, to a URL (docs/webhooks.md)");

  webhook
    .command('add <url>')
    .description('create a webhook; prints its id and its secret, shown only this once')
    .option('--network <platform/network>', "the network whose messages it gets (default: the service's default network)")
    .option('--no-tracker-messages', "do not deliver the tracker's messages of the transactions the account tracks")
    .option('--address <0x...>', 'also deliver the ERC-721 and ERC-1155 moves into or out of this address (repeat for more)', repeatable)
    .option('--json', 'print the webhook, secret included, as one JSON object')
    .action(async (url: string, raw: Options) => {
      const [{ runWebhookAdd }, ctx] = await load();
      await runWebhookAdd(url, raw, ctx);
    });

  webhook
    .command('list')
    .description("the account's webhooks on every network, with their state and waiting deliveries")
    .option('--json', 'print them as one JSON array')
    .action(async (raw: Options) => {
      const [{ runWebhookList }, ctx] = await load();
      await runWebhookList(raw, ctx);
    });

  webhook
    .command('remove <id>')
    .description('delete a webhook and the deliveries waiting for it')
    .action(async (id: string) => {
      const [{ runWebhookRemove }, ctx] = await load();
      await runWebhookRemove(id, ctx);
    });

  webhook
    .command('test <id>')
    .description('send a signed `test` message to the webhook now and print the answer (exit 1 unless a 2xx)')
    .option('--json', 'print the answer as one JSON object {ok, status, error, durationMs}')
    .action(async (id: string, raw: Options) => {
      const [{ runWebhookTest }, ctx] = await load();
      await runWebhookTest(id, raw, ctx);
    });

  webhook
    .command('replay <id>')
    .description('send sent deliveries again (kept 7 days): a time range, or from a message on')
    .option('--from <time>', 'start of the range: ISO 8601 (2026-01-31T12:00:00Z) or ms since 1970')
    .option('--to <time>', 'end of the range (default: now)')
    .option('--from-message <messageId>', 'instead of a range: this message and every later one')
    .option('--json', 'print {"replayed": n}')
    .action(async (id: string, raw: Options) => {
      const [{ runWebhookReplay }, ctx] = await load();
      await runWebhookReplay(id, raw, ctx);
    });

  webhook
    .command('update <id>')
    .description('change the URL, what is delivered or the state; rotate the secret')
    .option('--url <url>', 'deliver to this URL from now on')
    .option('--state <state>', 'active (resumes a paused or failing webhook) or paused (holds its deliveries)')
    .option('--rotate-secret', 'make a new secret, shown only this once; the old one keeps signing too for --overlap')
    .option(
      '--overlap <seconds>',
      `with --rotate-secret: how long the old secret keeps signing (default 86400, at most ${MAX_SECRET_OVERLAP_SECONDS})`,
    )
    .option('--address <0x...>', 'watch exactly these addresses from now on (repeat for more)', repeatable)
    .option('--clear-addresses', 'watch no address any more')
    .option('--tracker-messages', "deliver the tracker's messages of the account's transactions")
    .option('--no-tracker-messages', "stop delivering the tracker's messages")
    .option('--json', 'print the webhook (with `secret` when rotated) as one JSON object')
    .action(async (id: string, raw: Options) => {
      const [{ runWebhookUpdate }, ctx] = await load();
      await runWebhookUpdate(id, raw, ctx);
    });
}
