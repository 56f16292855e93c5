// electron-vite build of the desktop app: main (Electron glue + core), preload (contextBridge) and the React renderer.
import { resolve } from 'node:path';
import { defineConfig } from 'electron-vite';
import type { Plugin } from 'vite';
import react from '@vitejs/plugin-react';

/**
 * The dev server needs an inline React-refresh preamble, injects CSS as <style> elements and hot-reloads over a
 * WebSocket, all of which the production CSP in index.html forbids; loosen it only while `electron-vite dev` serves.
 */
function devCsp(): Plugin {
  return {
    name: 'txdesk-dev-csp',
    apply: 'serve',
    transformIndexHtml: (html) =>
      html
        .replace("script-src 'self'", "script-src 'self' 'unsafe-inline'")
        .replace("style-src 'self'", "style-src 'self' 'unsafe-inline'")
        .replace("connect-src 'self'", "connect-src 'self' ws://localhost:* ws://127.0.0.1:* http://127.0.0.1:*"),
  };
}

export default defineConfig({
  main: {
    build: {
      // The tracker SDK is bundled (from packages/tracker/dist) so the packaged app does not need the workspace link.
      externalizeDeps: { exclude: ['@txdesk/tracker'] },
      rollupOptions: { input: { index: resolve('src/main/index.ts') } },
    },
  },
  preload: {
    build: {
      // A sandboxed preload cannot `require` from node_modules and cannot be ESM: bundle everything, emit CommonJS.
      externalizeDeps: false,
      rollupOptions: {
        input: { index: resolve('src/preload/index.ts') },
        external: ['electron'],
        output: { format: 'cjs', entryFileNames: '[name].cjs' },
      },
    },
  },
  renderer: {
    root: resolve('src/renderer'),
    plugins: [react(), devCsp()],
    build: {
      minify: true,
      rollupOptions: { input: { index: resolve('src/renderer/index.html') } },
    },
  },
});
