/**
 * `geotiff` and `pmtiles` are optional peer dependencies: an application that never opens a
 * GeoTIFF or a PMTiles archive installs neither. The openers load them with a dynamic `import()`
 * on first use, and a module that is not installed becomes a typed error naming the command
 * that installs it, instead of a resolver's message about a bare specifier (or a failed build).
 */

import { TesseraConfigError } from '../../core/errors';

/** The optional peer dependencies of the imagery entry, and what each one opens. */
const OPENS: Readonly<Record<OptionalPeer, string>> = {
  geotiff: 'a GeoTIFF (openCogPyramid)',
  pmtiles: 'a PMTiles archive (openPmtilesPyramid)',
};

/** A package the imagery entry loads only when a source needs it. */
export type OptionalPeer = 'geotiff' | 'pmtiles';

/**
 * Whether `error`, thrown by importing `name`, says that `name` cannot be found, in the words of
 * each runtime and bundler: Node's `ERR_MODULE_NOT_FOUND` ("Cannot find package 'geotiff'"),
 * webpack's `MODULE_NOT_FOUND` ("Cannot find module 'geotiff'"), Vite's stub for a missing
 * optional peer ('Could not resolve "geotiff" imported by ...'), and browsers' `TypeError` for a
 * bare specifier nothing resolves (Chromium: 'Failed to resolve module specifier "geotiff"';
 * Firefox: 'The specifier "geotiff" was a bare specifier'; Safari: "Module name, 'geotiff' does
 * not resolve"). An error the module throws while it runs is none of these.
 */
export function isMissingModule(error: unknown, name: string): boolean {
  if (typeof error !== 'object' || error === null) return false;
  const { code, message } = error as { code?: unknown; message?: unknown };
  // The name itself, not a longer one that starts with it ('geotiff-x').
  const named = new RegExp(`(?:^|[^\\w.-])${name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}(?:[^\\w.-]|$)`);
  if (typeof message !== 'string' || !named.test(message)) return false;
  if (code === 'ERR_MODULE_NOT_FOUND' || code === 'MODULE_NOT_FOUND') return true;
  return /cannot find (?:module|package)|could not resolve|resolve module specifier|bare specifier|does not resolve/i.test(
    message,
  );
}

/**
 * What to throw when the dynamic `import()` of `name` failed with `error`. The caller writes the
 * `import()` inside a `try` block itself: webpack and esbuild then treat the package as optional
 * and build without it (an unresolved `import()` outside a `try` fails their build), and the
 * failure reaches this function at run time.
 * @returns `TesseraConfigError` `missing-dependency` naming `npm install <name>` when `name` is
 *   not installed; `error` itself for any other failure.
 */
export function optionalPeerError(name: OptionalPeer, error: unknown): unknown {
  if (!isMissingModule(error, name)) return error;
  return new TesseraConfigError(
    'missing-dependency',
    `Opening ${OPENS[name]} needs the package '${name}', an optional peer dependency of ` +
      `@tessera-vt/tessera that is not installed: run \`npm install ${name}\``,
    { cause: error },
  );
}
