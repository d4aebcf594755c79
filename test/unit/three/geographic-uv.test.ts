import { describe, expect, it } from 'vitest';
import { TesseraConfigError } from '../../../src/core/errors';
import { geographicUv } from '../../../src/three/sampling/geographic-uv';

// Where the nodes land on screen is the browser test's (test/browser/vt/globe-georeferenced.spec.ts).
describe('geographicUv', () => {
  it('returns uv and inside nodes for EPSG:4326 and EPSG:3857 extents, antimeridian bounds included', () => {
    for (const extent of [
      { crs: 'EPSG:4326', bounds: [10, 40, 20, 50] },
      { crs: 'EPSG:4326', bounds: [170, -10, 190, 10] },
      { crs: 'EPSG:3857', bounds: [-6679169.45, 0, -4452779.63, 8399737.89] },
    ] as const) {
      const placed = geographicUv(extent);
      expect(placed.uv.isNode, extent.crs).toBe(true);
      expect(placed.inside.isNode, extent.crs).toBe(true);
    }
  });

  it('refuses another CRS and bounds that are empty, inverted or not finite', () => {
    const bad: unknown[] = [
      { crs: 'EPSG:32632', bounds: [0, 0, 1, 1] },
      { crs: 'EPSG:4326', bounds: [20, 40, 10, 50] },
      { crs: 'EPSG:4326', bounds: [10, 50, 20, 50] },
      { crs: 'EPSG:4326', bounds: [10, 40, Number.NaN, 50] },
      { crs: 'EPSG:3857', bounds: [0, 0, Number.POSITIVE_INFINITY, 1] },
      { crs: 'EPSG:4326', bounds: [10, 40, 20] },
    ];
    for (const extent of bad) {
      expect(
        () => geographicUv(extent as Parameters<typeof geographicUv>[0]),
        JSON.stringify(extent),
      ).toThrow(TesseraConfigError);
    }
  });
});
