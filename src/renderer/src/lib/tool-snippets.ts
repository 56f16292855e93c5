// The few lines a script needs to use this app as its signer over /rpc, for ethers v6, viem and Foundry's cast: each
// library's own usage with only the URL and the Authorization header set, filled with this app's values. A snippet
// reads the token from its file when it runs; the token itself never appears in one (it is not the page's to show).

export const snippetTools = ['ethers', 'viem', 'cast'] as const;
export type SnippetTool = (typeof snippetTools)[number];

export const snippetToolNames: Record<SnippetTool, string> = { ethers: 'ethers v6', viem: 'viem', cast: 'cast' };

export interface SnippetTarget {
  /** The app's JSON-RPC, e.g. http://127.0.0.1:3000/rpc. */
  rpcUrl: string;
  /** The file that holds the bearer token. */
  apiTokenFile: string;
  chainId: number;
  /** The signing account (cast's --from, and the recipient of the 1 wei sent to yourself); null before a key exists. */
  account: string | null;
}

/** viem's own chain definitions (`viem/chains`) for the chain ids txdesk names (shared/networks.ts); others get defineChain. */
export const viemChainNames: Record<number, string> = {
  1: 'mainnet',
  11155111: 'sepolia',
  17000: 'holesky',
  560048: 'hoodi',
  10: 'optimism',
  137: 'polygon',
  8453: 'base',
  42161: 'arbitrum',
  31337: 'foundry',
  1337: 'localhost',
};

/** What cast's --from and the recipient read before a key exists: the reader puts their account there. */
export const ACCOUNT_PLACEHOLDER = '<your account>';

/** A JavaScript string literal: single quotes, as both libraries' docs write them. */
const js = (s: string) => `'${s.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;

/** A shell word: as it is when it is plainly safe, else single-quoted. */
const sh = (s: string) => (/^[A-Za-z0-9_./:@%+=-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`);

export function toolSnippet(tool: SnippetTool, t: SnippetTarget): string {
  const readToken = `const token = readFileSync(${js(t.apiTokenFile)}, 'utf8').trim();`;
  switch (tool) {
    case 'ethers':
      return [
        "import { readFileSync } from 'node:fs';",
        "import { FetchRequest, JsonRpcProvider } from 'ethers';",
        '',
        readToken,
        `const req = new FetchRequest(${js(t.rpcUrl)});`,
        "req.setHeader('Authorization', 'Bearer ' + token);",
        'const provider = new JsonRpcProvider(req);',
        'const signer = await provider.getSigner();',
        'const tx = await signer.sendTransaction({ to: signer.address, value: 1n });',
        'await tx.wait();',
      ].join('\n');
    case 'viem': {
      const known = viemChainNames[t.chainId];
      const imports = known
        ? ["import { createWalletClient, http, publicActions } from 'viem';", `import { ${known} as chain } from 'viem/chains';`]
        : ["import { createWalletClient, defineChain, http, publicActions } from 'viem';"];
      const defineLines = known
        ? []
        : [
            'const chain = defineChain({',
            `  id: ${t.chainId},`,
            "  name: 'txdesk',",
            "  nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 },",
            `  rpcUrls: { default: { http: [${js(t.rpcUrl)}] } },`,
            '});',
          ];
      return [
        "import { readFileSync } from 'node:fs';",
        ...imports,
        '',
        ...defineLines,
        readToken,
        'const client = createWalletClient({',
        '  chain,',
        `  transport: http(${js(t.rpcUrl)}, { fetchOptions: { headers: { Authorization: 'Bearer ' + token } } }),`,
        '}).extend(publicActions);',
        'const [account] = await client.getAddresses();',
        'const hash = await client.sendTransaction({ account, to: account, value: 1n });',
        'await client.waitForTransactionReceipt({ hash });',
      ].join('\n');
    }
    case 'cast': {
      const account = t.account ?? ACCOUNT_PLACEHOLDER;
      // cast reads ETH_RPC_HEADERS as comma-separated `Name: value` headers; the token has no comma (base64url).
      return [
        `ETH_RPC_URL=${sh(t.rpcUrl)} \\`,
        `ETH_RPC_HEADERS="Authorization: Bearer $(cat ${sh(t.apiTokenFile)})" \\`,
        `cast send --unlocked --from ${sh(account)} ${sh(account)} --value 1wei`,
      ].join('\n');
    }
  }
}
