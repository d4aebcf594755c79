import { type Browser, chromium } from 'playwright-core';
import { createServer } from 'vite';
import { CHROMIUM_ARGS, chromiumPath, hasChromium } from '../test/browser/chromium';

/**
 * Runs `use` with headless Chromium and a Vite server of the test configuration (the repository's
 * root: bench pages, the demo and assets) on `port`, closing both afterwards, whatever happens.
 * @throws Error when there is no Chromium to launch.
 */
export async function withBenchBrowser<T>(port: number, use: (browser: Browser) => Promise<T>): Promise<T> {
  if (!hasChromium()) throw new Error(`no Chromium at ${chromiumPath()} (set CHROMIUM_PATH)`);
  const server = await createServer({
    configFile: new URL('../test/browser/vite.config.ts', import.meta.url).pathname,
    server: { port, strictPort: true },
    logLevel: 'error',
  });
  await server.listen();
  try {
    const browser = await chromium.launch({ executablePath: chromiumPath(), args: CHROMIUM_ARGS });
    try {
      return await use(browser);
    } finally {
      await browser.close();
    }
  } finally {
    await server.close();
  }
}
