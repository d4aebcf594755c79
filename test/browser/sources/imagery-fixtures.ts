import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { writeSharpCog } from '../../support/imagery/cog-fixtures';
import { writeDeepZoomFixture, writeIiifFixture } from '../../support/imagery/deep-zoom-fixtures';
import { loadEarthImage, type RgbaImage } from '../../support/imagery/earth-image';
import {
  loadMercatorWorld,
  makeWebMapTiles,
  type WebMapTile,
  writePmtiles,
  writeXyzDirectory,
} from '../../support/imagery/web-map-fixtures';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');

/** Where the imagery fixtures live (served by the test server), repository-relative. */
export const IMAGERY_DIR = 'test-results/imagery';

/** The imagery formats the seam tests read, one entry each in {@link WRITERS}. */
export type ImagerySourceName = 'xyz' | 'pmtiles' | 'cog' | 'dzi' | 'iiif';

/** One written fixture, as the test page opens it. */
export interface ImageryFixture {
  /** What the page opens (a descriptor, an archive, a tile URL template), served from the repository root. */
  readonly url: string;
  /** Full-resolution size of the image the fixture holds, texels. */
  readonly width: number;
  readonly height: number;
  /** A web map's finest zoom (level 0), when its URL does not say. */
  readonly maxZoom?: number;
}

/**
 * The images the fixtures are made from, each made once per run: the Earth map with grain (so a
 * seam or a misplaced texel shows), and the same at a size that is not a power of two.
 */
class FixtureImages {
  private readonly made = new Map<string, Promise<RgbaImage>>();
  private webMap: Promise<WebMapTile[]> | null = null;
  /** The Web Mercator world as PNG tiles of 256, zooms 0 to {@link WEB_MAP_ZOOM}. */
  webMapTiles(): Promise<WebMapTile[]> {
    this.webMap ??= loadMercatorWorld(256 * 2 ** WEB_MAP_ZOOM).then((world) =>
      makeWebMapTiles(world, { maxZoom: WEB_MAP_ZOOM, format: 'png' }),
    );
    return this.webMap;
  }
  earth(width: number, height: number): Promise<RgbaImage> {
    const key = `${width}x${height}`;
    let image = this.made.get(key);
    if (image === undefined) {
      image = loadEarthImage(width, height, GRAIN);
      this.made.set(key, image);
    }
    return image;
  }
}

/** Finest zoom of the web-map fixtures: the world 2048 texels square. */
const WEB_MAP_ZOOM = 3;

/** Grain of the fixtures' images, levels: enough that a texel out of place shows in the error. */
const GRAIN = 8;

/** Writes one fixture into `dir` (a scratch folder) and says how the page opens it (relative to `dir`). */
type FixtureWriter = (
  images: FixtureImages,
  dir: string,
) => Promise<{ path: string; width: number; height: number; maxZoom?: number }>;

/**
 * One writer per format, each with the fixture writer of the engineer who wrote its pyramid, so
 * the files are what that format's own tests read.
 */
const WRITERS: Record<ImagerySourceName, FixtureWriter> = {
  // A whole-world web map (longitude wraps): the same tiles as a directory and as one archive.
  xyz: async (images, dir) => {
    writeXyzDirectory(await images.webMapTiles(), dir, 'png');
    const side = 256 * 2 ** WEB_MAP_ZOOM;
    return { path: '{z}/{x}/{y}.png', width: side, height: side, maxZoom: WEB_MAP_ZOOM };
  },
  pmtiles: async (images, dir) => {
    writeFileSync(join(dir, 'earth.pmtiles'), writePmtiles(await images.webMapTiles(), { tileType: 'png' }));
    const side = 256 * 2 ** WEB_MAP_ZOOM;
    return { path: 'earth.pmtiles', width: side, height: side };
  },
  // The equirectangular map as GDAL or libvips would tile it: JPEG tiles of 256, overviews down
  // to one tile, read by Range.
  cog: async (images, dir) => {
    const image = await images.earth(2048, 1024);
    writeFileSync(join(dir, 'earth.tif'), await writeSharpCog(image, { compression: 'jpeg', tileSize: 256 }));
    return { path: 'earth.tif', width: image.width, height: image.height };
  },
  // Not a power of two nor a multiple of the tile or page size: partial edge tiles and levels
  // whose size rounds up, with the overlap Deep Zoom viewers expect.
  dzi: async (images, dir) => {
    const image = await images.earth(2500, 1400);
    const path = await writeDeepZoomFixture(image, dir, 'earth', {
      tileSize: 256,
      overlap: 1,
      format: 'png',
    });
    return { path, width: image.width, height: image.height };
  },
  // A IIIF Image API 2 level 0 pyramid as sharp writes it (the page names its service and format).
  iiif: async (images, dir) => {
    const image = await images.earth(2500, 1400);
    const path = await writeIiifFixture(image, dir, 'earth', {
      tileSize: 256,
      format: 'png',
      version: 2,
      baseUrl: 'http://localhost/earth',
    });
    return { path, width: image.width, height: image.height };
  },
};

let written: Promise<Record<ImagerySourceName, ImageryFixture>> | null = null;

/**
 * Every imagery fixture, written into {@link IMAGERY_DIR} once per run (a later call, or another
 * worker of the same run, reuses them). Each is written into a scratch folder and renamed into
 * place, so two workers writing at once never serve a half-written pyramid.
 */
export function imageryFixtures(): Promise<Record<ImagerySourceName, ImageryFixture>> {
  written ??= writeAll();
  return written;
}

async function writeAll(): Promise<Record<ImagerySourceName, ImageryFixture>> {
  const images = new FixtureImages();
  const out = {} as Record<ImagerySourceName, ImageryFixture>;
  for (const name of Object.keys(WRITERS) as ImagerySourceName[]) {
    const final = join(root, IMAGERY_DIR, name);
    const manifest = join(final, 'fixture.json');
    if (!existsSync(manifest)) {
      // A folder without its manifest is left from an interrupted run (a rename brings both at once).
      rmSync(final, { recursive: true, force: true });
      const scratch = `${final}.tmp-${process.pid}`;
      rmSync(scratch, { recursive: true, force: true });
      mkdirSync(scratch, { recursive: true });
      const fixture = await WRITERS[name](images, scratch);
      writeFileSync(join(scratch, 'fixture.json'), JSON.stringify(fixture));
      try {
        renameSync(scratch, final);
      } catch {
        // Another worker renamed its copy first: theirs is the same bytes.
        rmSync(scratch, { recursive: true, force: true });
      }
    }
    const { path, ...rest } = JSON.parse(readFileSync(manifest, 'utf8')) as { path: string } & Omit<
      ImageryFixture,
      'url'
    >;
    out[name] = { url: `/${IMAGERY_DIR}/${name}/${path}`, ...rest };
  }
  return out;
}
