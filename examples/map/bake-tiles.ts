/**
 * Writes the map example's web-map tiles under `assets/examples/map/`: the Earth map of Debian's
 * xplanet-images (2048 x 1024, equirectangular) reprojected to Web Mercator and cut into the XYZ
 * tiles every web map serves (256² JPEG, `xyz/{z}/{x}/{y}.jpg`, zoom 0 to {@link MAX_ZOOM}) with
 * the TileJSON a tile server publishes (`xyz/tiles.json`: template, zooms, credit line), plus the
 * same tiles as one PMTiles v3 archive (`earth.pmtiles`, the credit line in its metadata).
 *
 * The map itself holds about zoom 3's detail at the equator; the finer zooms are magnified from it with seeded
 * value noise added (deterministic), so that zooming in keeps showing texture rather than a blur,
 * as real imagery would. Each zoom is the box-filtered (linear light) half of the next, so the
 * pyramid is consistent from zoom 0 to the finest. Deterministic for the pinned sharp (mozjpeg).
 * Run with `npx tsx examples/map/bake-tiles.ts` or `npm run bake:examples`.
 */
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import sharp from 'sharp';
import { loadEarthImage, type RgbaImage } from '../../test/support/imagery/earth-image';
import { writePmtiles } from '../../test/support/imagery/web-map-fixtures';

/**
 * Finest zoom written: 2^5 x 2^5 tiles of 256², an 8192² world, four times the map's own
 * resolution: zoom 6 would take four times the bytes, twice over with the archive.
 */
export const MAX_ZOOM = 5;
/** Source tile side, texels. */
const TILE = 256;
/**
 * JPEG quality of the tiles (mozjpeg). JPEG rather than WebP: WebP's deblocking filter smooths
 * the block edges inside a tile but not at its edges, so every tile edge shows as a line once
 * magnified; JPEG's tile edges are block edges like any other.
 */
const QUALITY = 75;
/** The credit line the example shows. */
export const ATTRIBUTION = 'Earth: xplanet-images (Debian), Mercator tiles baked by Tessera';

const root = resolve(import.meta.dirname, '../..');
const outDir = join(root, 'assets/examples/map');

/** Integer hash of a lattice point and an octave, in [0, 1). */
function hash(x: number, y: number, octave: number): number {
  let h = Math.imul(x, 0x27d4eb2d) ^ Math.imul(y, 0x165667b1) ^ Math.imul(octave + 1, 0x9e3779b9);
  h = Math.imul(h ^ (h >>> 15), 0x85ebca6b);
  h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35);
  return ((h ^ (h >>> 16)) >>> 0) / 4294967296;
}

/** Value noise of period `period` texels at global texel (x, y), smoothly interpolated, in [-1, 1]. */
function valueNoise(x: number, y: number, period: number, octave: number): number {
  const fx = x / period;
  const fy = y / period;
  const ix = Math.floor(fx);
  const iy = Math.floor(fy);
  const tx = fx - ix;
  const ty = fy - iy;
  const sx = tx * tx * (3 - 2 * tx);
  const sy = ty * ty * (3 - 2 * ty);
  const a = hash(ix, iy, octave) + (hash(ix + 1, iy, octave) - hash(ix, iy, octave)) * sx;
  const b = hash(ix, iy + 1, octave) + (hash(ix + 1, iy + 1, octave) - hash(ix, iy + 1, octave)) * sx;
  return (a + (b - a) * sy) * 2 - 1;
}

/** Octaves of the detail: periods in finest-zoom texels and relative amplitudes. */
const OCTAVES = [
  { period: 16, amplitude: 0.5 },
  { period: 8, amplitude: 0.3 },
  { period: 4, amplitude: 0.2 },
];
/** Largest change of brightness the detail makes, as a fraction. */
const DETAIL = 0.12;

/** Tile (`x`, `y`) of the finest zoom: the map reprojected and magnified, with detail. */
export function finestTile(earth: RgbaImage, x: number, y: number): Uint8Array {
  const world = TILE * 2 ** MAX_ZOOM;
  const out = new Uint8Array(TILE * TILE * 4);
  for (let j = 0; j < TILE; j++) {
    const gy = y * TILE + j;
    const lat = Math.atan(Math.sinh(Math.PI * (1 - (2 * (gy + 0.5)) / world)));
    const sy = Math.min(earth.height - 1, Math.max(0, (0.5 - lat / Math.PI) * earth.height - 0.5));
    const y0 = Math.floor(sy);
    const y1 = Math.min(earth.height - 1, y0 + 1);
    const fy = sy - y0;
    for (let i = 0; i < TILE; i++) {
      const gx = x * TILE + i;
      const sx = ((gx + 0.5) / world) * earth.width - 0.5;
      const x0 = Math.floor(sx);
      const fx = sx - x0;
      const xa = (x0 + earth.width) % earth.width;
      const xb = (x0 + 1) % earth.width;
      let n = 0;
      for (let o = 0; o < OCTAVES.length; o++) {
        // The noise wraps with the world, so the antimeridian has no seam.
        const period = OCTAVES[o].period;
        n += OCTAVES[o].amplitude * valueNoise(gx % world, gy, period, o);
      }
      const gain = 1 + DETAIL * n;
      for (let c = 0; c < 3; c++) {
        const a =
          earth.data[(y0 * earth.width + xa) * 4 + c] * (1 - fx) +
          earth.data[(y0 * earth.width + xb) * 4 + c] * fx;
        const b =
          earth.data[(y1 * earth.width + xa) * 4 + c] * (1 - fx) +
          earth.data[(y1 * earth.width + xb) * 4 + c] * fx;
        out[(j * TILE + i) * 4 + c] = Math.max(0, Math.min(255, Math.round((a * (1 - fy) + b * fy) * gain)));
      }
      out[(j * TILE + i) * 4 + 3] = 255;
    }
  }
  return out;
}

/** sRGB byte to linear light. */
const LINEAR = Float64Array.from({ length: 256 }, (_, i) => {
  const c = i / 255;
  return c <= 0.04045 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
});

/** Linear light to an sRGB byte. */
function srgbByte(linear: number): number {
  const c = linear <= 0.0031308 ? linear * 12.92 : 1.055 * linear ** (1 / 2.4) - 0.055;
  return Math.round(Math.min(1, Math.max(0, c)) * 255);
}

/**
 * A 2·TILE-square rgba8 image halved to one tile, each texel the mean of its four in linear light:
 * a box filter reads no texel outside the four children, so coarser zooms have no seam either.
 */
function halved(joined: Uint8Array): Uint8Array {
  const out = new Uint8Array(TILE * TILE * 4);
  const side = TILE * 2;
  for (let y = 0; y < TILE; y++) {
    for (let x = 0; x < TILE; x++) {
      const a = (y * 2 * side + x * 2) * 4;
      for (let c = 0; c < 3; c++) {
        const sum =
          LINEAR[joined[a + c]] +
          LINEAR[joined[a + 4 + c]] +
          LINEAR[joined[a + side * 4 + c]] +
          LINEAR[joined[a + side * 4 + 4 + c]];
        out[(y * TILE + x) * 4 + c] = srgbByte(sum / 4);
      }
      out[(y * TILE + x) * 4 + 3] = 255;
    }
  }
  return out;
}

/** One encoded tile, in the order written. */
interface EncodedTile {
  z: number;
  x: number;
  y: number;
  bytes: Uint8Array;
}

/**
 * Tile (`z`, `x`, `y`): the finest zoom's made directly, coarser ones as the box-filtered half of
 * their four children. Depth first, so only a few tiles per zoom are held at once; every tile is
 * encoded and handed to `emit`.
 */
async function bakeTile(
  earth: RgbaImage,
  z: number,
  x: number,
  y: number,
  emit: (tile: EncodedTile) => void,
): Promise<Uint8Array> {
  let texels: Uint8Array;
  if (z === MAX_ZOOM) texels = finestTile(earth, x, y);
  else {
    const joined = new Uint8Array(TILE * 2 * TILE * 2 * 4);
    for (let q = 0; q < 4; q++) {
      const child = await bakeTile(earth, z + 1, x * 2 + (q & 1), y * 2 + (q >> 1), emit);
      const ox = (q & 1) * TILE;
      const oy = (q >> 1) * TILE;
      for (let j = 0; j < TILE; j++) {
        joined.set(child.subarray(j * TILE * 4, (j + 1) * TILE * 4), ((oy + j) * TILE * 2 + ox) * 4);
      }
    }
    texels = halved(joined);
  }
  const bytes = await sharp(texels, { raw: { width: TILE, height: TILE, channels: 4 } })
    .removeAlpha()
    .jpeg({ quality: QUALITY, mozjpeg: true })
    .toBuffer();
  emit({ z, x, y, bytes: new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength) });
  return texels;
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) await bake();

/** Bakes every zoom, writes the XYZ directory, its TileJSON and the PMTiles archive. */
async function bake(): Promise<void> {
  const started = performance.now();
  const earth = await loadEarthImage();
  rmSync(outDir, { recursive: true, force: true });
  const tiles: EncodedTile[] = [];
  await bakeTile(earth, 0, 0, 0, (tile) => {
    const dir = join(outDir, 'xyz', String(tile.z), String(tile.x));
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, `${tile.y}.jpg`), tile.bytes);
    tiles.push(tile);
  });
  // What a tile server publishes beside its tiles: the template, the zooms and the credit line.
  const tileJson = {
    tilejson: '3.0.0',
    tiles: ['{z}/{x}/{y}.jpg'],
    minzoom: 0,
    maxzoom: MAX_ZOOM,
    attribution: ATTRIBUTION,
  };
  writeFileSync(join(outDir, 'xyz/tiles.json'), `${JSON.stringify(tileJson, null, 2)}\n`);
  // Uncompressed directories: gzip stamps the time into its header, and the bake must repeat byte for byte.
  const archive = writePmtiles(tiles, {
    tileType: 'jpeg',
    internalCompression: 'none',
    metadata: { attribution: ATTRIBUTION },
  });
  writeFileSync(join(outDir, 'earth.pmtiles'), archive);
  const bytes = tiles.reduce((sum, tile) => sum + tile.bytes.length, 0);
  const seconds = (performance.now() - started) / 1000;
  console.log(
    `${tiles.length} tiles, zoom 0-${MAX_ZOOM}: ${(bytes / 2 ** 20).toFixed(2)} MiB of tiles, ` +
      `PMTiles ${(archive.length / 2 ** 20).toFixed(2)} MiB, in ${seconds.toFixed(1)} s`,
  );
}
