/// <reference types="vitest/config" />
import { defineConfig } from 'vite';
import react from '@vitejs/plugin-react';

// The bundle goes straight into the jar's class path folder loopflow-ui/, which loopflow server serves at /.
// `npm run dev` serves the app on :5173 and forwards /api to a server on :8080 (LOOPFLOW_API overrides it).
export default defineConfig({
  plugins: [react()],
  base: '/',
  build: {
    outDir: 'target/classes/loopflow-ui',
    emptyOutDir: true,
    chunkSizeWarningLimit: 1024,
    // the server's Content-Security-Policy allows only files of its own origin: no asset may become a data: URL
    assetsInlineLimit: 0,
  },
  server: {
    proxy: {
      '/api': { target: process.env.LOOPFLOW_API ?? 'http://127.0.0.1:8080', changeOrigin: false },
    },
  },
  test: {
    include: ['src/**/*.test.ts'],
    environment: 'node',
  },
});
