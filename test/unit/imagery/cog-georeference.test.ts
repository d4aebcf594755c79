/**
 * A COG's georeferencing (`CogPyramid.georeference`), read from GeoTIFFs written here with the
 * tags GDAL writes: EPSG:4326 by tie point and pixel scale, EPSG:3857 by a transformation matrix,
 * PixelIsPoint, and the files placed nowhere (no GeoKeys, another system, rotation, ground control
 * points, a sharp-written COG), which open and draw as before.
 */

import { beforeAll, describe, expect, it } from 'vitest';
import { openCogPyramid } from '../../../src/sources/imagery/cog-pyramid';
import { GEO_KEY, type TiffGeoTags, writeSharpCog, writeTiledTiff } from '../../support/imagery/cog-fixtures';

const WIDTH = 256;
const HEIGHT = 128;
/** Web Mercator's sphere radius, metres. */
const R = 6378137;

beforeAll(async () => {
  await importGeotiffInTestThread();
});

/** The same import shim as cog-pyramid.test.ts: geotiff's worker shim throws in a bare worker thread. */
async function importGeotiffInTestThread(): Promise<void> {
  const global = globalThis as { Worker?: unknown };
  if (global.Worker !== undefined) return;
  global.Worker = class {
    constructor() {
      throw new Error('no Web Workers in this test thread');
    }
  };
  try {
    await import('geotiff');
  } finally {
    delete global.Worker;
  }
}

/** A WIDTH x HEIGHT RGB tiled TIFF (a 128-texel overview after it, without tags) carrying `geo`. */
function geoTiff(geo: TiffGeoTags | undefined): ArrayBuffer {
  const samples = new Uint8Array(WIDTH * HEIGHT * 3).fill(200);
  const overview = new Uint8Array((WIDTH / 2) * (HEIGHT / 2) * 3).fill(100);
  const bytes = writeTiledTiff([
    { width: WIDTH, height: HEIGHT, samples, samplesPerPixel: 3, photometric: 2, tileSize: 64, geo },
    {
      width: WIDTH / 2,
      height: HEIGHT / 2,
      samples: overview,
      samplesPerPixel: 3,
      photometric: 2,
      tileSize: 64,
    },
  ]);
  return bytes.slice().buffer;
}

const GEOGRAPHIC_4326: Array<[number, number]> = [
  [GEO_KEY.modelType, GEO_KEY.modelGeographic],
  [GEO_KEY.rasterType, GEO_KEY.pixelIsArea],
  [GEO_KEY.geographicType, 4326],
  [GEO_KEY.geogAngularUnits, 9102],
];
const MERCATOR_3857: Array<[number, number]> = [
  [GEO_KEY.modelType, GEO_KEY.modelProjected],
  [GEO_KEY.rasterType, GEO_KEY.pixelIsArea],
  [GEO_KEY.projectedCsType, 3857],
  [GEO_KEY.projLinearUnits, 9001],
];

async function georeferenceOf(geo: TiffGeoTags | undefined) {
  const pyramid = await openCogPyramid(geoTiff(geo), { pool: null });
  try {
    // Every file opens and its tiles draw, placed or not.
    const tile = await pyramid.loadTile(0, 0, 0, new AbortController().signal);
    expect(tile?.data[0]).toBe(200);
    return pyramid.georeference;
  } finally {
    pyramid.dispose();
  }
}

function expectBounds(actual: readonly number[] | undefined, expected: readonly number[], digits = 9): void {
  expect(actual).toBeDefined();
  (actual as number[]).forEach((value, i) => {
    expect(value, `bound ${i} of ${actual}`).toBeCloseTo(expected[i], digits);
  });
}

describe('CogPyramid.georeference', () => {
  it('reads EPSG:4326 from a tie point and a pixel scale (PixelIsArea): the texels’ outer edges in degrees', async () => {
    const georeference = await georeferenceOf({
      geoKeys: GEOGRAPHIC_4326,
      tiepoint: [0, 0, 0, 10, 50, 0],
      pixelScale: [10 / WIDTH, 10 / HEIGHT, 0],
    });
    expect(georeference?.crs).toBe('EPSG:4326');
    expectBounds(georeference?.bounds, [10, 40, 20, 50]);
    expectBounds(georeference?.lonLatBounds, [10, 40, 20, 50]);
  });

  it('takes a tie point that is not the first texel', async () => {
    // Raster (64, 32) is at lon 12.5, lat 47.5: the same image as above.
    const georeference = await georeferenceOf({
      geoKeys: GEOGRAPHIC_4326,
      tiepoint: [64, 32, 0, 12.5, 47.5, 0],
      pixelScale: [10 / WIDTH, 10 / HEIGHT, 0],
    });
    expectBounds(georeference?.bounds, [10, 40, 20, 50]);
  });

  it('moves PixelIsPoint bounds half a texel up and left (tie points at texel centres, as GDAL reads them)', async () => {
    const keys = GEOGRAPHIC_4326.map(([k, v]): [number, number] =>
      k === GEO_KEY.rasterType ? [k, GEO_KEY.pixelIsPoint] : [k, v],
    );
    const dx = 10 / WIDTH;
    const dy = 10 / HEIGHT;
    const georeference = await georeferenceOf({
      geoKeys: keys,
      tiepoint: [0, 0, 0, 10, 50, 0],
      pixelScale: [dx, dy, 0],
    });
    expectBounds(georeference?.bounds, [10 - dx / 2, 40 + dy / 2, 20 - dx / 2, 50 + dy / 2]);
  });

  it('reads EPSG:3857 from a transformation matrix, with its bounds in metres and in degrees', async () => {
    // Longitude -60..-40, latitude 0..60 in Web Mercator metres.
    const west = (-60 * Math.PI * R) / 180;
    const east = (-40 * Math.PI * R) / 180;
    const north = R * Math.log(Math.tan(Math.PI / 4 + (60 * Math.PI) / 360));
    const georeference = await georeferenceOf({
      geoKeys: MERCATOR_3857,
      transformation: [
        (east - west) / WIDTH,
        0,
        0,
        west,
        0,
        -north / HEIGHT,
        0,
        north,
        0,
        0,
        0,
        0,
        0,
        0,
        0,
        1,
      ],
    });
    expect(georeference?.crs).toBe('EPSG:3857');
    expectBounds(georeference?.bounds, [west, 0, east, north], 6);
    expectBounds(georeference?.lonLatBounds, [-60, 0, -40, 60]);
  });

  it('reads Web Mercator under its deprecated code 3785 with the model type left out', async () => {
    const georeference = await georeferenceOf({
      geoKeys: [[GEO_KEY.projectedCsType, 3785]],
      tiepoint: [0, 0, 0, -20037508.342789244, 20037508.342789244, 0],
      pixelScale: [(2 * 20037508.342789244) / WIDTH, (2 * 20037508.342789244) / HEIGHT, 0],
    });
    expect(georeference?.crs).toBe('EPSG:3857');
    expectBounds(georeference?.lonLatBounds, [-180, -85.0511287798, 180, 85.0511287798], 8);
  });

  it('is null, and the file opens, without georeferencing or in a system it does not place', async () => {
    const tiepoint = [0, 0, 0, 500000, 5000000, 0];
    const pixelScale: [number, number, number] = [10, 10, 0];
    const cases: Record<string, TiffGeoTags | undefined> = {
      'no tags': undefined,
      'a transform but no GeoKeys': { tiepoint, pixelScale },
      'GeoKeys but no transform': { geoKeys: GEOGRAPHIC_4326 },
      'UTM zone 32N (EPSG:32632)': {
        geoKeys: [
          [GEO_KEY.modelType, GEO_KEY.modelProjected],
          [GEO_KEY.projectedCsType, 32632],
        ],
        tiepoint,
        pixelScale,
      },
      'a user-defined projection (32767)': {
        geoKeys: [
          [GEO_KEY.modelType, GEO_KEY.modelProjected],
          [GEO_KEY.projectedCsType, 32767],
        ],
        tiepoint,
        pixelScale,
      },
      'NAD83 (EPSG:4269)': {
        geoKeys: [
          [GEO_KEY.modelType, GEO_KEY.modelGeographic],
          [GEO_KEY.geographicType, 4269],
        ],
        tiepoint: [0, 0, 0, 10, 50, 0],
        pixelScale: [0.1, 0.1, 0],
      },
      'EPSG:4326 in radians (9101)': {
        geoKeys: [
          [GEO_KEY.modelType, GEO_KEY.modelGeographic],
          [GEO_KEY.geographicType, 4326],
          [GEO_KEY.geogAngularUnits, 9101],
        ],
        tiepoint: [0, 0, 0, 0.1, 0.8, 0],
        pixelScale: [0.001, 0.001, 0],
      },
      'a rotated transformation': {
        geoKeys: GEOGRAPHIC_4326,
        transformation: [0.03, 0.01, 0, 10, 0.01, -0.03, 0, 50, 0, 0, 0, 0, 0, 0, 0, 1],
      },
      'a south-up transformation': {
        geoKeys: GEOGRAPHIC_4326,
        transformation: [0.04, 0, 0, 10, 0, 0.08, 0, 40, 0, 0, 0, 0, 0, 0, 0, 1],
      },
      'ground control points, no pixel scale': {
        geoKeys: GEOGRAPHIC_4326,
        tiepoint: [0, 0, 0, 10, 50, 0, 256, 128, 0, 20, 40, 0],
      },
    };
    for (const [name, geo] of Object.entries(cases)) {
      expect(await georeferenceOf(geo), name).toBeNull();
    }
  });

  it('is null for a COG written by sharp (libvips writes no GeoTIFF tags)', async () => {
    const data = new Uint8Array(64 * 64 * 4).fill(255);
    const cog = await writeSharpCog(
      { width: 64, height: 64, data },
      { compression: 'deflate', tileSize: 32 },
    );
    const pyramid = await openCogPyramid(cog.slice().buffer, { pool: null });
    expect(pyramid.georeference).toBeNull();
    pyramid.dispose();
  });
});
