/**
 * Where the terrain's tiles come from: the procedural world generated in Web Workers (default, no
 * download; ~5 ms a tile would stall frames on the main thread), or the baked archive
 * `assets/world-seed7-64p.tsva` streamed over HTTP Range requests and decoded (WebP) in workers.
 */

import type { TileSource } from 'tessera';
import { ArchiveTileSource, ProceduralWorld, WorkerProceduralTileSource } from 'tessera';
import type { TerrainSourceKind } from '../params';

/** File name of the baked world under assets/. */
const ARCHIVE_FILE = 'world-seed7-64p.tsva';
/** Seed and size the archive was baked with (assets/README.md), so heights match its albedo. */
const ARCHIVE_SEED = 7;
const ARCHIVE_WIDTH_PAGES = 64;

/** The terrain's tile source and the world its heights come from. */
export interface TerrainTileSource {
  kind: TerrainSourceKind;
  source: TileSource;
  /** The procedural world matching the tiles (heights for geometry and camera). */
  world: ProceduralWorld;
  /** Terminates workers. */
  dispose(): void;
}

/** Opens the terrain source `kind` (procedural for `seed`, or the seed-7 archive). */
export async function openTerrainTileSource(
  kind: TerrainSourceKind,
  seed: number,
): Promise<TerrainTileSource> {
  if (kind === 'archive') return openArchive();
  const source = new WorkerProceduralTileSource({ seed });
  return { kind, source, world: source.world, dispose: () => source.dispose() };
}

/**
 * URL of the archive. The demo server (root demo/) serves assets/ as its public folder, at the
 * page's own level; the test server (root = the repository) serves the page at /demo/index.html
 * and the file at /assets/. Decided from the page's path, so no request ever misses (a 404 would
 * be a console error).
 */
function archiveUrl(): string {
  const underRepositoryRoot = /\/demo\/(index\.html)?$/.test(location.pathname);
  return new URL(underRepositoryRoot ? `../assets/${ARCHIVE_FILE}` : ARCHIVE_FILE, location.href).href;
}

async function openArchive(): Promise<TerrainTileSource> {
  // The default decoder is a pool of workers on the browser's codecs, disposed with the source.
  const source = await ArchiveTileSource.openUrl(archiveUrl(), { cacheBytes: 4 << 20 });
  const world = new ProceduralWorld({ seed: ARCHIVE_SEED, widthPages: ARCHIVE_WIDTH_PAGES });
  return { kind: 'archive', source, world, dispose: () => source.dispose() };
}
