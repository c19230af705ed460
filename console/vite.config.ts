import path from 'node:path';
import { defineConfig } from 'vite';
import react from '@vitejs/plugin-react';
import tailwindcss from '@tailwindcss/vite';

/**
 * The console is served by the API process under /console (src/console/serve-console.ts): hashed assets under
 * /console/assets, index.html for every other path. `npm run console:dev` serves it with hot reload instead and
 * proxies the API (LEAD_SERVICE_URL, default the local default's http://127.0.0.1:8080), so the session cookie is
 * the page's own origin's either way.
 */
export default defineConfig({
  base: '/console/',
  plugins: [react(), tailwindcss()],
  resolve: {
    alias: {
      '@': path.resolve(import.meta.dirname, 'src'),
      '@contract': path.resolve(import.meta.dirname, '../packages/client/src/generated/openapi.ts'),
      '@mcp-tools': path.resolve(import.meta.dirname, '../packages/mcp/src/generated/tools.json'),
    },
  },
  build: { outDir: 'dist', emptyOutDir: true, sourcemap: false, chunkSizeWarningLimit: 600 },
  server: {
    port: 5173,
    proxy: {
      '/api': { target: process.env.LEAD_SERVICE_URL ?? 'http://127.0.0.1:8080', changeOrigin: false },
    },
  },
});
