// The UI is built into one folder of static files that the mlprof binary embeds and serves.
// `npm run dev` serves it with live reload, sending /api to an `mlprof serve` on port 6006.
import { defineConfig } from 'vitest/config';

export default defineConfig({
  base: '/',
  build: {
    target: 'es2022',
    sourcemap: false,
    // Everything ships in the binary; small files inline, no external URLs.
    assetsInlineLimit: 8192,
    modulePreload: { polyfill: false },
    chunkSizeWarningLimit: 400,
  },
  server: {
    proxy: { '/api': 'http://127.0.0.1:6006' },
  },
  test: {
    include: ['src/**/*.test.ts'],
    environment: 'node',
  },
});
