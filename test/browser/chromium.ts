import { existsSync } from 'node:fs';

/**
 * Where Debian's Chromium lives (override with CHROMIUM_PATH). Browsers are never downloaded:
 * `npx playwright install` is blocked on these machines.
 */
export function chromiumPath(): string {
  return process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
}

/** True when the Chromium binary exists. */
export function hasChromium(): boolean {
  return existsSync(chromiumPath());
}

/**
 * Launch flags measured to give WebGPU (SwiftShader Vulkan) and WebGL2 (ANGLE on SwiftShader) to
 * three's WebGPURenderer on GPU-less machines; see ../shared/notes/headless-browser.md.
 */
export const CHROMIUM_ARGS = [
  '--headless=new',
  '--no-sandbox',
  '--no-first-run',
  '--disable-quic',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--enable-unsafe-webgpu',
  '--use-angle=swiftshader',
  '--enable-features=Vulkan',
  '--use-vulkan=swiftshader',
];

/** Port of the Vite server that serves test and benchmark pages (localhost is a secure context). */
export const TEST_SERVER_PORT = Number(process.env.TESSERA_TEST_PORT ?? 5180);
