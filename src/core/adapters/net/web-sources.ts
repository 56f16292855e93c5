// The app's HTTP sources as one port (ports.ts WebSources): the data service's listing, refresh and sign-in at
// `serviceUrl`, and token metadata and images through the guarded fetch (local addresses only from `allowOrigins`).
import type { WebSources } from '../../ports.js';
import { signInToService } from '../service/service-sign-in.js';
import { createTokenImageProxy } from './token-image.js';
import { createMetadataResolver } from './token-metadata.js';
import { fetchTokenPage, requestTokenRefresh } from './token-proxy.js';

export function webSources(serviceUrl: string, allowOrigins: readonly string[]): WebSources {
  return {
    tokenPage: (o) => fetchTokenPage({ serviceUrl, ...o }),
    refreshToken: (o) => requestTokenRefresh({ serviceUrl, ...o }),
    signIn: (credentials) => signInToService(serviceUrl, credentials),
    metadata: createMetadataResolver({ allowOrigins }),
    image: createTokenImageProxy({ allowOrigins }),
  };
}
