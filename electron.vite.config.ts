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

/**
 * Preload and renderer use only the plain parts of src/shared/desktop-api.ts (channel names, routes, types); its zod
 * schemas are for main. Marking each top-level `z.…` initializer pure lets Rollup drop the unused schemas, and zod
 * with them, from those bundles (the preload shrinks from ~175 kB to a few kB).
 */
function pureSchemas(): Plugin {
  return {
    name: 'txdesk-pure-schemas',
    transform(code, id) {
      if (!id.replaceAll('\\', '/').endsWith('/src/shared/desktop-api.ts')) return null;
      return { code: code.replace(/(=\s*)(z\s*\.)/g, '$1/* @__PURE__ */ $2'), map: null };
    },
  };
}

export default defineConfig({
  main: {
    build: {
      externalizeDeps: true,
      rollupOptions: { input: { index: resolve('src/main/index.ts') } },
    },
  },
  preload: {
    plugins: [pureSchemas()],
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
    plugins: [react(), devCsp(), pureSchemas()],
    build: {
      minify: true,
      rollupOptions: { input: { index: resolve('src/renderer/index.html') }},
    },
  },
});
