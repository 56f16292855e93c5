// The embedded network of the zero-configuration default: a dev chain and the data service on it, with a dev account,
// started above the core by the entry points that offer it (`txdesk serve`, Electron main) and handed to the core
// as plain URLs, so the core reaches the service only through the SDK and HTTP, as it does a remote one.
import type { StartEmbedded } from '../core/ports.js';
import { startDevService } from '../service/dev-service.js';

export const startEmbeddedNetwork: StartEmbedded = async (o) => {
  const dev = await startDevService({
    port: o.port,
    ...(o.congestion ? { congestion: o.congestion } : {}),
    ...(o.blockTimeSeconds !== undefined ? { blockTimeSeconds: o.blockTimeSeconds } : {}),
    log: o.log,
  });
  return {
    nodeUrl: dev.devchain.nodeUrl,
    serviceUrl: dev.service.url,
    clientId: dev.clientId,
    platform: dev.service.platform,
    network: dev.service.network,
    devchain: {
      status: () => dev.devchain.status(),
      setCongestion: (l) => dev.devchain.setCongestion(l),
      fund: (a, w) => dev.devchain.fund(a, w),
      // The app's account gets some of every sample standard: Tiles, batch-minted Drops, ERC-1155 Gems.
      giveTokens: async (a, n) => {
        await dev.devchain.giveTokens(a, n);
        await dev.devchain.giveOtherStandards(a);
      },
    },
    metadataOrigin: new URL(dev.devchain.metadataUrl).origin,
    readyInfo: dev.readyInfo(),
    stop: () => dev.stop(),
  };
};
