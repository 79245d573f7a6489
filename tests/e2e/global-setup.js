// Builds the playground (vite build → dist/) and serves dist/ with `vite preview` on a free
// loopback port; the tests read the address with inject('baseUrl').
import { build, preview } from 'vite';

export default async function setup(project) {
  const configFile = new URL('../../vite.config.js', import.meta.url).pathname;
  if (!process.env.POSLAB_E2E_NO_BUILD) await build({ configFile, logLevel: 'warn' });
  const server = await preview({
    configFile,
    logLevel: 'warn',
    preview: { host: '127.0.0.1', port: 0, strictPort: false, open: false },
  });
  const address = server.httpServer.address();
  project.provide('baseUrl', `http://127.0.0.1:${address.port}/`);
  return () => new Promise((resolve) => server.httpServer.close(resolve));
}
