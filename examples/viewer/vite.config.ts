import { defineConfig } from 'vite';

// The chunkform packages export TypeScript sources in the workspace; Vite compiles them. Browser builds
// resolve the `default` branch of their `#node-file` / `#zlib` imports, so no Node-only module is bundled.
export default defineConfig({
  base: './',
  build: { target: 'es2022', outDir: 'dist', emptyOutDir: true, chunkSizeWarningLimit: 1024 },
});
