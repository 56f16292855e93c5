// Types for solc-compile.js (Solidity compiled with solc-js's standard JSON interface).

export interface CompiledContract {
  abi: unknown[];
  /** Init code, 0x-prefixed; '0x' for interfaces and abstract contracts. */
  bytecode: string;
}

export interface Compilation {
  /** By source file name, then contract name. */
  contracts: Record<string, Record<string, CompiledContract>>;
  /** solc's formatted warnings (errors throw instead). */
  warnings: string[];
  /** e.g. 'solc 0.8.30+commit.73712a01.Emscripten.clang'. */
  compiler: string;
}

/** Compiles `sources` ({ fileName: source text }) with solc standard JSON `settings`; throws on any compile error. */
export function compileSolidity(sources: Record<string, string>, settings: Record<string, unknown>): Compilation;
