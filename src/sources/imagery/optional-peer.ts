/**
 * `geotiff` and `pmtiles` are optional peer dependencies: an application that never opens a
 * GeoTIFF or a PMTiles archive installs neither. The openers load them with a dynamic `import()`
 * on first use, and a module that is not installed becomes a typed error naming the command
 * that installs it, instead of a resolver's message about a bare specifier.
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
 * each runtime: Node's `ERR_MODULE_NOT_FOUND` ("Cannot find package 'geotiff'"), CommonJS and
 * webpack's `MODULE_NOT_FOUND` ("Cannot find module 'geotiff'"), and browsers' `TypeError` for a
 * bare specifier no import map resolves (Chromium: 'Failed to resolve module specifier
 * "geotiff"'; Firefox: 'The specifier "geotiff" was a bare specifier'; Safari: "Module name,
 * 'geotiff' does not resolve"). An error the module throws while it runs is not one of these.
 */
export function isMissingModule(error: unknown, name: string): boolean {
  if (typeof error !== 'object' || error === null) return false;
  const { code, message } = error as { code?: unknown; message?: unknown };
  if (typeof message !== 'string' || !message.includes(name)) return false;
  if (code === 'ERR_MODULE_NOT_FOUND' || code === 'MODULE_NOT_FOUND') return true;
  return (
    error instanceof TypeError && /resolve module specifier|bare specifier|does not resolve/i.test(message)
  );
}

/**
 * Runs `load` (a dynamic `import()` of `name`, written at the call site so bundlers see the
 * specifier and bundle the package where it is installed).
 * @throws TesseraConfigError `missing-dependency` when `name` is not installed; the message
 *   names `npm install <name>`. Any other failure of `load` is rethrown as it is.
 */
export async function loadOptionalPeer<Module>(
  name: OptionalPeer,
  load: () => Promise<Module>,
): Promise<Module> {
  try {
    return await load();
  } catch (error) {
    if (!isMissingModule(error, name)) throw error;
    throw new TesseraConfigError(
      'missing-dependency',
      `Opening ${OPENS[name]} needs the package '${name}', an optional peer dependency of ` +
        `@tessera-vt/tessera that is not installed: run \`npm install ${name}\``,
      { cause: error },
    );
  }
}
