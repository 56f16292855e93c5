// The compiled sample contracts (ABI + bytecode), generated from contracts/*.sol by `npm run contracts` and committed.
import tiles from './artifacts/TxdeskTiles.json' with { type: 'json' };
import pebbles from './artifacts/TxdeskPebbles.json' with { type: 'json' };
import dollar from './artifacts/TxdeskDollar.json' with { type: 'json' };
import gasSink from './artifacts/TxdeskGasSink.json' with { type: 'json' };
import drops from './artifacts/TxdeskDrops.json' with { type: 'json' };
import gems from './artifacts/TxdeskGems.json' with { type: 'json' };
import type { InterfaceAbi } from 'ethers';

export interface Artifact {
  contractName: string;
  abi: InterfaceAbi;
  bytecode: string;
}

const asArtifact = (a: { contractName: string; abi: unknown; bytecode: string }): Artifact => a as Artifact;

/** Full ERC-721: name, symbol, totalSupply, tokenURI = baseURI + id + ".json", mint(to, count) by the owner. */
export const tilesArtifact = asArtifact(tiles);
/** Minimal ERC-721: name and symbol only (no totalSupply, no tokenURI), mint(to, id) by the owner, burn(id). */
export const pebblesArtifact = asArtifact(pebbles);
/** ERC-20, deployed so the indexer can show it ignores ERC-20 Transfer events. */
export const dollarArtifact = asArtifact(dollar);
/** Fallback that executes INVALID: a call burns its whole gas limit at almost no CPU cost. */
export const gasSinkArtifact = asArtifact(gasSink);
/** ERC-721 minted with EIP-2309 ConsecutiveTransfer (mintConsecutive(to, count)), ERC-4906 on setBaseURI. */
export const dropsArtifact = asArtifact(drops);
/** ERC-1155: mint(to, id, value), mintBatch(to, ids, values), uri(id) template with {id}. */
export const gemsArtifact = asArtifact(gems);
