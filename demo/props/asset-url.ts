/**
 * URL of a file under assets/. The demo server (root demo/) serves assets/ as its public folder, at
 * the page's own level; the test server (root = the repository) serves the page at
 * /demo/index.html and the file at /assets/. Decided from the page's path, so no request misses
 * (a 404 would be a console error).
 */
export function assetUrl(file: string): string {
  const underRepositoryRoot = /\/demo\/(index\.html)?$/.test(location.pathname);
  return new URL(underRepositoryRoot ? `../assets/${file}` : file, location.href).href;
}
