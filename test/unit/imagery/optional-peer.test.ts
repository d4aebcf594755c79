import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';
import { TesseraConfigError } from '../../../src/core/errors';
import { isMissingModule, optionalPeerError } from '../../../src/sources/imagery/optional-peer';

/** Node's own error for a package that is not installed (CommonJS resolution, `MODULE_NOT_FOUND`). */
function nodeMissingPackageError(name: string): unknown {
  try {
    createRequire(import.meta.url)(name);
  } catch (error) {
    return error;
  }
  throw new Error(`${name} is installed`);
}

describe('optional imagery peers', () => {
  it("recognises each runtime's and bundler's module-not-found, for the package named only", () => {
    const absent = 'tessera-no-such-package';
    const node = nodeMissingPackageError(absent);
    expect((node as { code?: string }).code).toBe('MODULE_NOT_FOUND');
    expect(isMissingModule(node, absent)).toBe(true);
    // The messages as each one words them (Chromium's and Vite's read from builds of the
    // packed library, test/package/optional-imagery-peers.spec.ts).
    const esm = Object.assign(new Error(`Cannot find package '${absent}' imported from /app/x.js`), {
      code: 'ERR_MODULE_NOT_FOUND',
    });
    const webpack = Object.assign(new Error(`Cannot find module '${absent}'`), { code: 'MODULE_NOT_FOUND' });
    const chromium = new TypeError(`Failed to resolve module specifier '${absent}'`);
    const firefox = new TypeError(
      `The specifier “${absent}” was a bare specifier, but was not remapped to anything.`,
    );
    const safari = new TypeError(`Module name, '${absent}' does not resolve to a valid URL.`);
    const vite = new Error(
      `Could not resolve "${absent}" imported by "@tessera-vt/tessera". Is it installed?`,
    );
    for (const error of [esm, webpack, chromium, firefox, safari, vite]) {
      expect(isMissingModule(error, absent), String(error)).toBe(true);
      expect(isMissingModule(error, 'geotiff'), `${error} is not about geotiff`).toBe(false);
    }
    // The package was found and failed while it ran: not a missing dependency.
    expect(isMissingModule(new TypeError(`${absent}: Worker is not a constructor`), absent)).toBe(false);
    expect(isMissingModule('Cannot find module', absent)).toBe(false);
  });

  it('turns a missing package into missing-dependency naming the install, and passes anything else on', () => {
    const missing = new TypeError("Failed to resolve module specifier 'pmtiles'");
    const error = optionalPeerError('pmtiles', missing);
    expect(error).toBeInstanceOf(TesseraConfigError);
    expect(error).toMatchObject({ code: 'missing-dependency', cause: missing });
    expect((error as Error).message).toContain('npm install pmtiles');
    expect((error as Error).message).toContain('openPmtilesPyramid');
    expect((optionalPeerError('geotiff', nodeMissingPackageError('geotiff-x')) as Error).name).not.toBe(
      'TesseraConfigError',
    );
    const crash = new RangeError('geotiff: invalid array length');
    expect(optionalPeerError('geotiff', crash)).toBe(crash);
  });
});
