// The embedded network of the zero-configuration default: dev chains and the data service on them, with a dev account,
// started above the core by the entry points that offer it (`txdesk serve`, Electron main) and handed to the core
// as plain URLs, so the core reaches the service only through the SDK and HTTP, as it does a remote one.
import type { DevchainControl, EmbeddedChain, StartEmbedded } from '../core/ports.js';
import type { Devchain } from '../devchain/devchain.js';
import { startDevService } from '../service/dev-service.js';

/** A dev chain's controls as the core uses them. */
function control(chain: Devchain): DevchainControl {
  return {
    status: () => chain.status(),
    setCongestion: (l) => chain.setCongestion(l),
    fund: (a, w) => chain.fund(a, w),
    // The app's account gets some of every sample standard: Tiles, batch-minted Drops, ERC-1155 Gems.
    giveTokens: async (a, n) => {
      await chain.giveTokens(a, n);
      await chain.giveOtherStandards(a);
    },
  };
}

export const startEmbeddedNetwork: StartEmbedded = async (o) => {
  const dev = await startDevService({
    port: o.port,
    ...(o.congestion ? { congestion: o.congestion } : {}),
    ...(o.blockTimeSeconds !== undefined ? { blockTimeSeconds: o.blockTimeSeconds } : {}),
    log: o.log,
  });
  const networks: EmbeddedChain[] = dev.networks.map((n) => ({
    platform: n.platform,
    network: n.network,
    chainId: n.chainId,
    nodeUrl: n.nodeUrl,
    isDefault: n.isDefault,
    devchain: control(n.devchain),
    metadataOrigin: new URL(n.devchain.metadataUrl).origin,
  }));
  const first = networks.find((n) => n.isDefault) ?? networks[0]!;
  return {
    nodeUrl: dev.devchain.nodeUrl,
    serviceUrl: dev.service.url,
    clientId: dev.clientId,
    platform: dev.service.platform,
    network: dev.service.network,
    devchain: first.devchain,
    metadataOrigin: new URL(dev.devchain.metadataUrl).origin,
    readyInfo: dev.readyInfo(),
    networks,
    stop: () => dev.stop(),
  };
};
