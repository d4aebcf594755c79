import { parseDemoParams } from '../params';

/**
 * URL of a file under assets/. With `?assets=<base URL>` (see ../params.ts), the file under that
 * base. Otherwise: the demo server (root demo/) serves assets/ as its public folder, at the page's
 * own level; the test server (root = the repository) serves the page at /demo/index.html and the
 * file at /assets/. Decided from the page's path, so no request misses (a 404 would be a console
 * error).
 */
export function assetUrl(file: string): string {
  const base = parseDemoParams(location.search).assets;
  if (base !== null) {
    const folder = new URL(base, location.href).href;
    return new URL(file, folder.endsWith('/') ? folder : `${folder}/`).href;
  }
  const underRepositoryRoot = /\/demo\/(index\.html)?$/.test(location.pathname);
  return new URL(underRepositoryRoot ? `../assets/${file}` : file, location.href).href;
}
