/**
 * Georeferenced COGs placed on a globe where they belong (issue #44 item 6): three GeoTIFFs written
 * here with GeoTIFF tags, in EPSG:4326 (longitude 10..20, latitude 40..50), in EPSG:3857
 * (longitude -60..-40, latitude 0..60 in Mercator metres) and in EPSG:4326 across the antimeridian
 * (longitude 170..190, latitude -10..10), each of four coloured quadrants and a
 * centre square, are opened by URL, streamed as virtual textures and drawn through
 * `geographicUv(cog.georeference)` over a grey basemap. Longitude / latitude points projected
 * through the camera must show: the centre colour at the bounds' centre, each quadrant's colour
 * at its centre and just inside each edge, and the basemap just outside each edge. The 3857 image
 * splits north from south at its middle Mercator row (latitude 35.26), so a point at latitude
 * 32.5 shows the south colour only if latitude goes through the Mercator y, not linearly.
 */

import { existsSync, mkdirSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { GEO_KEY, type TiffGeoTags, writeTiledTiff } from '../../support/imagery/cog-fixtures';
import { expect, test } from '../fixtures';
import { IMAGERY_DIR } from '../sources/imagery-fixtures';

type Rgb = [number, number, number];

interface Probe {
  lon: number;
  lat: number;
  x: number;
  y: number;
  visible: boolean;
  rgb: Rgb;
}

declare const globeGeoreferenced: {
  georeferences(): ({ crs: string; bounds: number[]; lonLatBounds: number[] } | null)[];
  setView(view: { lat: number; lon: number; distance: number }): void;
  settle(maxFrames?: number): Promise<number>;
  probe(points: readonly { lon: number; lat: number }[]): Promise<Probe[]>;
  frame(): Promise<{ width: number; height: number; rgba: number[] }>;
  errors(): string[];
};

const PAGE = '/test/browser/vt/pages/globe-georeferenced.html';
/** Side of each COG, texels; its centre square is a quarter of it wide. */
const SIZE = 256;
const CENTRE_SQUARE = SIZE / 8;
/** The basemap's sRGB grey (the page's `BASEMAP_GREY`). */
const GREY: Rgb = [100, 100, 100];
/** Largest channel difference accepted: an sRGB byte through the pool's linear bytes and back. */
const TOLERANCE = 12;
const R = 6378137;
const mercatorY = (latDegrees: number) => R * Math.log(Math.tan(Math.PI / 4 + (latDegrees * Math.PI) / 360));

interface Quadrants {
  nw: Rgb;
  ne: Rgb;
  sw: Rgb;
  se: Rgb;
  centre: Rgb;
}

interface CogCase {
  name: string;
  file: string;
  crs: 'EPSG:4326' | 'EPSG:3857';
  /** Degrees. */
  lonLat: [west: number, south: number, east: number, north: number];
  /** Latitude of the image's middle row, degrees (where north and south colours meet). */
  middleLatitude: number;
  colours: Quadrants;
  geo: TiffGeoTags;
  view: { lat: number; lon: number; distance: number };
  /** Distance of the edge probes from the edges, degrees (5 to 6 pixels). */
  margin: number;
}

const WEST_3857 = (-60 * Math.PI * R) / 180;
const EAST_3857 = (-40 * Math.PI * R) / 180;

const CASES: CogCase[] = [
  {
    name: 'EPSG:4326',
    file: 'georef-4326.tif',
    crs: 'EPSG:4326',
    lonLat: [10, 40, 20, 50],
    middleLatitude: 45,
    colours: {
      nw: [255, 0, 0],
      ne: [0, 255, 0],
      sw: [0, 0, 255],
      se: [255, 255, 0],
      centre: [255, 255, 255],
    },
    geo: {
      geoKeys: [
        [GEO_KEY.modelType, GEO_KEY.modelGeographic],
        [GEO_KEY.rasterType, GEO_KEY.pixelIsArea],
        [GEO_KEY.geographicType, 4326],
      ],
      tiepoint: [0, 0, 0, 10, 50, 0],
      pixelScale: [10 / SIZE, 10 / SIZE, 0],
    },
    view: { lat: 45, lon: 15, distance: 1.5 },
    margin: 0.5,
  },
  {
    name: 'EPSG:3857',
    file: 'georef-3857.tif',
    crs: 'EPSG:3857',
    lonLat: [-60, 0, -40, 60],
    middleLatitude: (Math.atan(Math.sinh(mercatorY(60) / 2 / R)) * 180) / Math.PI,
    colours: {
      nw: [255, 0, 255],
      ne: [0, 255, 255],
      sw: [255, 128, 0],
      se: [128, 0, 255],
      centre: [0, 0, 0],
    },
    geo: {
      geoKeys: [
        [GEO_KEY.modelType, GEO_KEY.modelProjected],
        [GEO_KEY.rasterType, GEO_KEY.pixelIsArea],
        [GEO_KEY.projectedCsType, 3857],
      ],
      transformation: [
        (EAST_3857 - WEST_3857) / SIZE,
        0,
        0,
        WEST_3857,
        0,
        -mercatorY(60) / SIZE,
        0,
        mercatorY(60),
        0,
        0,
        0,
        0,
        0,
        0,
        0,
        1,
      ],
    },
    view: { lat: 30, lon: -50, distance: 3 },
    margin: 1,
  },
  {
    // Across the antimeridian (longitude 170..190), where the sphere's own uv wraps from 1 to 0.
    name: 'EPSG:4326 across the antimeridian',
    file: 'georef-4326-antimeridian.tif',
    crs: 'EPSG:4326',
    lonLat: [170, -10, 190, 10],
    middleLatitude: 0,
    colours: { nw: [0, 255, 0], ne: [255, 0, 0], sw: [255, 255, 0], se: [0, 0, 255], centre: [0, 0, 0] },
    geo: {
      geoKeys: [
        [GEO_KEY.modelType, GEO_KEY.modelGeographic],
        [GEO_KEY.geographicType, 4326],
      ],
      tiepoint: [0, 0, 0, 170, 10, 0],
      pixelScale: [20 / SIZE, 20 / SIZE, 0],
    },
    view: { lat: 0, lon: 180, distance: 2 },
    margin: 0.75,
  },
];

/** Four quadrants and a centre square, RGB rows top down (north first). */
function quadrantImage(colours: Quadrants): Uint8Array {
  const samples = new Uint8Array(SIZE * SIZE * 3);
  const half = SIZE / 2;
  for (let y = 0; y < SIZE; y++) {
    for (let x = 0; x < SIZE; x++) {
      const inCentre =
        Math.abs(x + 0.5 - half) < CENTRE_SQUARE / 2 && Math.abs(y + 0.5 - half) < CENTRE_SQUARE / 2;
      const colour = inCentre
        ? colours.centre
        : y < half
          ? x < half
            ? colours.nw
            : colours.ne
          : x < half
            ? colours.sw
            : colours.se;
      samples.set(colour, (y * SIZE + x) * 3);
    }
  }
  return samples;
}

/** Writes the case's GeoTIFF under test-results once per run (renamed into place); returns its URL. */
function writeCog(c: CogCase): string {
  const path = join(IMAGERY_DIR, c.file);
  if (!existsSync(path)) {
    mkdirSync(IMAGERY_DIR, { recursive: true });
    const bytes = writeTiledTiff([
      {
        width: SIZE,
        height: SIZE,
        samples: quadrantImage(c.colours),
        samplesPerPixel: 3,
        photometric: 2,
        tileSize: 128,
        geo: c.geo,
      },
    ]);
    const scratch = `${path}.tmp-${process.pid}`;
    writeFileSync(scratch, bytes);
    renameSync(scratch, path);
  }
  return `/${path}`;
}

/** The points to probe for one case and the colour each must show. */
function expectations(c: CogCase): { name: string; lon: number; lat: number; rgb: Rgb }[] {
  const [west, south, east, north] = c.lonLat;
  const m = c.margin;
  const { nw, ne, sw, se, centre } = c.colours;
  const lonQ = (east - west) / 4;
  const midLat = c.middleLatitude;
  const northQuarter = (midLat + north) / 2;
  const southQuarter = (south + midLat) / 2;
  const points = [
    { name: "bounds' centre", lon: (west + east) / 2, lat: midLat, rgb: centre },
    { name: 'north-west quadrant', lon: west + lonQ, lat: northQuarter, rgb: nw },
    { name: 'north-east quadrant', lon: east - lonQ, lat: northQuarter, rgb: ne },
    { name: 'south-west quadrant', lon: west + lonQ, lat: southQuarter, rgb: sw },
    { name: 'south-east quadrant', lon: east - lonQ, lat: southQuarter, rgb: se },
    { name: 'inside the west edge', lon: west + m, lat: northQuarter, rgb: nw },
    { name: 'outside the west edge', lon: west - m, lat: northQuarter, rgb: GREY },
    { name: 'inside the east edge', lon: east - m, lat: southQuarter, rgb: se },
    { name: 'outside the east edge', lon: east + m, lat: southQuarter, rgb: GREY },
    { name: 'inside the north edge', lon: west + lonQ, lat: north - m, rgb: nw },
    { name: 'outside the north edge', lon: west + lonQ, lat: north + m, rgb: GREY },
    { name: 'inside the south edge', lon: east - lonQ, lat: south + m, rgb: se },
    { name: 'outside the south edge', lon: east - lonQ, lat: south - m, rgb: GREY },
  ];
  if (c.crs === 'EPSG:3857') {
    // Between the linear middle (30) and the Mercator one (35.26): south only through Mercator y.
    points.push({ name: 'south of the Mercator middle', lon: west + lonQ, lat: 32.5, rgb: sw });
    points.push({ name: 'north of the Mercator middle', lon: west + lonQ, lat: 38, rgb: nw });
  }
  return points;
}

test('georeferenced COGs (EPSG:4326, EPSG:3857, across the antimeridian) land on the globe where their bounds say, nowhere else', async ({
  page,
  openPage,
  backend,
}) => {
  test.setTimeout(180_000);
  const urls = CASES.map(writeCog);
  await openPage(PAGE, { cogs: urls.join(',') });
  await page.waitForFunction(() => document.title === 'ready', undefined, { timeout: 60_000 });

  const georeferences = await page.evaluate(() => globeGeoreferenced.georeferences());
  CASES.forEach((c, i) => {
    const georeference = georeferences[i];
    expect(georeference?.crs, c.name).toBe(c.crs);
    georeference?.lonLatBounds.forEach((value, k) => {
      expect(value, `${c.name} lonLatBounds[${k}]`).toBeCloseTo(c.lonLat[k], 6);
    });
  });

  for (const c of CASES) {
    const wanted = expectations(c);
    const probes = await page.evaluate(
      async ({ view, points }) => {
        globeGeoreferenced.setView(view);
        const frames = await globeGeoreferenced.settle();
        return { frames, probes: await globeGeoreferenced.probe(points) };
      },
      { view: c.view, points: wanted.map(({ lon, lat }) => ({ lon, lat })) },
    );
    expect(probes.frames, `${c.name}: settled`).toBeGreaterThan(0);
    await saveFrame(page, `${backend}-${c.file.replace('.tif', '')}`);
    wanted.forEach((w, i) => {
      const p = probes.probes[i];
      const where = `${c.name}, ${w.name} (lon ${w.lon.toFixed(2)}, lat ${w.lat.toFixed(2)}) at pixel ${p.x},${p.y}`;
      expect(p.visible, where).toBe(true);
      const off = Math.max(...p.rgb.map((v, k) => Math.abs(v - w.rgb[k])));
      expect(off, `${where}: drew ${p.rgb}, expected ${w.rgb}`).toBeLessThanOrEqual(TOLERANCE);
    });
  }
  expect(await page.evaluate(() => globeGeoreferenced.errors())).toEqual([]);
});

/** Saves the frame as a PNG under test-results/globe-georeferenced, to look at. */
async function saveFrame(page: import('@playwright/test').Page, name: string): Promise<void> {
  const { default: sharp } = await import('sharp');
  const shot = await page.evaluate(() => globeGeoreferenced.frame());
  mkdirSync('test-results/globe-georeferenced', { recursive: true });
  await sharp(Buffer.from(shot.rgba), { raw: { width: shot.width, height: shot.height, channels: 4 } })
    .png()
    .toFile(`test-results/globe-georeferenced/${name}.png`);
}
