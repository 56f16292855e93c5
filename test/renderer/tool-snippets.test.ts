// The snippets Settings > Tool requests offers: each library's own usage filled with this app's /rpc URL, chain and
// token file (never a token), quoted so an odd path still reads as one string, parsed by node and bash as written,
// and viem's chain taken from viem/chains when viem ships one with that id.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as viemChains from 'viem/chains';
import { describe, expect, it } from 'vitest';
import {
  ACCOUNT_PLACEHOLDER,
  snippetTools,
  toolSnippet,
  viemChainNames,
  type SnippetTarget,
} from '../../src/renderer/src/lib/tool-snippets.js';

const target: SnippetTarget = {
  rpcUrl: 'http://127.0.0.1:3000/rpc',
  apiTokenFile: '/home/ada/.config/txdesk/api-token',
  chainId: 31337,
  account: '0x8ba1f109551bd432803012645ac136ddd64dba72',
};

describe('tool snippets', () => {
  it('ethers v6: FetchRequest with the Authorization header, JsonRpcProvider, getSigner, sendTransaction, wait', () => {
    expect(toolSnippet('ethers', target)).toBe(
      [
        "import { readFileSync } from 'node:fs';",
        "import { FetchRequest, JsonRpcProvider } from 'ethers';",
        '',
        "const token = readFileSync('/home/ada/.config/txdesk/api-token', 'utf8').trim();",
        "const req = new FetchRequest('http://127.0.0.1:3000/rpc');",
        "req.setHeader('Authorization', 'Bearer ' + token);",
        'const provider = new JsonRpcProvider(req);',
        'const signer = await provider.getSigner();',
        'const tx = await signer.sendTransaction({ to: signer.address, value: 1n });',
        'await tx.wait();',
      ].join('\n'),
    );
  });

  it('viem: a wallet client on the http transport with the header in fetchOptions, extended with publicActions', () => {
    expect(toolSnippet('viem', target)).toBe(
      [
        "import { readFileSync } from 'node:fs';",
        "import { createWalletClient, http, publicActions } from 'viem';",
        "import { foundry as chain } from 'viem/chains';",
        '',
        "const token = readFileSync('/home/ada/.config/txdesk/api-token', 'utf8').trim();",
        'const client = createWalletClient({',
        '  chain,',
        "  transport: http('http://127.0.0.1:3000/rpc', { fetchOptions: { headers: { Authorization: 'Bearer ' + token } } }),",
        '}).extend(publicActions);',
        'const [account] = await client.getAddresses();',
        'const hash = await client.sendTransaction({ account, to: account, value: 1n });',
        'await client.waitForTransactionReceipt({ hash });',
      ].join('\n'),
    );
  });

  it('cast: ETH_RPC_URL and ETH_RPC_HEADERS with the token read by the shell, send --unlocked from the account', () => {
    expect(toolSnippet('cast', target)).toBe(
      [
        'ETH_RPC_URL=http://127.0.0.1:3000/rpc \\',
        'ETH_RPC_HEADERS="Authorization: Bearer $(cat /home/ada/.config/txdesk/api-token)" \\',
        'cast send --unlocked --from 0x8ba1f109551bd432803012645ac136ddd64dba72 0x8ba1f109551bd432803012645ac136ddd64dba72 --value 1wei',
      ].join('\n'),
    );
  });

  it.each([
    [1, "import { mainnet as chain } from 'viem/chains';"],
    [11155111, "import { sepolia as chain } from 'viem/chains';"],
    [560048, "import { hoodi as chain } from 'viem/chains';"],
    [8453, "import { base as chain } from 'viem/chains';"],
    [31337, "import { foundry as chain } from 'viem/chains';"],
    [31338, '  id: 31338,'],
    [424242, '  id: 424242,'],
  ])('viem on chain %i names it: %s', (chainId, line) => {
    const snippet = toolSnippet('viem', { ...target, chainId });
    expect(snippet.split('\n')).toContain(line);
    // A chain viem does not ship is defined with the app's /rpc as its URL.
    if (line.startsWith('  id:')) expect(snippet).toContain("rpcUrls: { default: { http: ['http://127.0.0.1:3000/rpc'] } }");
  });

  it.each(snippetTools)('%s names the /rpc URL and the token file and holds no token', (tool) => {
    const snippet = toolSnippet(tool, target);
    expect(snippet).toContain(target.rpcUrl);
    expect(snippet).toContain(target.apiTokenFile);
    expect(snippet).toMatch(/Authorization(', '|: '?)Bearer /);
    // A token is 43 base64url characters; nothing that long and token-like is in a snippet.
    expect(snippet).not.toMatch(/[A-Za-z0-9_-]{43}/);
  });

  it('quotes a token file path with spaces, quotes or backslashes as one string in JavaScript and in the shell', () => {
    const odd = { ...target, apiTokenFile: "C:\\Users\\O'Brien\\App Data\\txdesk\\api-token" };
    expect(toolSnippet('ethers', odd)).toContain("readFileSync('C:\\\\Users\\\\O\\'Brien\\\\App Data\\\\txdesk\\\\api-token', 'utf8')");
    expect(toolSnippet('cast', odd)).toContain(`$(cat 'C:\\Users\\O'\\''Brien\\App Data\\txdesk\\api-token')`);
  });

  it('names only chains viem ships, each with its id', () => {
    for (const [id, name] of Object.entries(viemChainNames))
      expect((viemChains as Record<string, { id: number } | undefined>)[name]?.id, name).toBe(Number(id));
  });

  it.each([
    ['ethers', 31337, 'snippet.mjs', ['--check']],
    ['viem', 31337, 'snippet.mjs', ['--check']],
    ['viem', 31338, 'snippet.mjs', ['--check']],
    ['cast', 31337, 'snippet.sh', ['-n']],
  ] as const)('%s (chain %i) parses as written', (tool, chainId, file, flags) => {
    const dir = mkdtempSync(join(tmpdir(), 'txdesk-snippet-'));
    try {
      writeFileSync(join(dir, file), toolSnippet(tool, { ...target, chainId }));
      const r = spawnSync(tool === 'cast' ? 'bash' : process.execPath, [...flags, join(dir, file)], { encoding: 'utf8' });
      expect(r.status, r.stderr).toBe(0);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('before a key exists, cast says where the account goes', () => {
    const snippet = toolSnippet('cast', { ...target, account: null });
    expect(snippet).toContain(`--from '${ACCOUNT_PLACEHOLDER}' '${ACCOUNT_PLACEHOLDER}' --value 1wei`);
  });
});
