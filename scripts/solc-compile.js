// Compiles Solidity with solc-js through its standard JSON interface, for the contract artifacts, the indexer's
// call-batch check, the test contracts and the indexer benchmark. Plain ESM (node runs it as is); types in solc-compile.d.ts.
import solc from 'solc';

/**
 * Compiles `sources` ({ fileName: source text }) with `settings` (solc's standard JSON settings; the output selection
 * is set here) and returns every contract's ABI and init code by file and name. Throws one Error holding solc's
 * messages when any of them is an error; warnings are returned.
 */
export function compileSolidity(sources, settings) {
  const input = {
    language: 'Solidity',
    sources: Object.fromEntries(Object.entries(sources).map(([file, content]) => [file, { content }])),
    settings: { ...settings, outputSelection: { '*': { '*': ['abi', 'evm.bytecode.object'] } } },
  };
  const output = JSON.parse(solc.compile(JSON.stringify(input)));
  const messages = output.errors ?? [];
  if (messages.some((m) => m.severity === 'error')) throw new Error(messages.map((m) => m.formattedMessage).join('\n'));
  const contracts = {};
  for (const [file, byName] of Object.entries(output.contracts ?? {})) {
    contracts[file] = {};
    for (const [name, c] of Object.entries(byName)) contracts[file][name] = { abi: c.abi, bytecode: `0x${c.evm.bytecode.object}` };
  }
  return { contracts, warnings: messages.map((m) => m.formattedMessage), compiler: `solc ${solc.version()}` };
}
