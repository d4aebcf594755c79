/**
 * Where the terrain's tiles come from: rendered on the GPU from the terrain's material (default, a
 * runtime virtual texture: see ./rendered-terrain.ts), the procedural world generated on the CPU in
 * Web Workers (no download; ~5 ms a tile would stall frames on the main thread), or the baked archive
 * `assets/world-seed7-64p.tsva` streamed over HTTP Range requests and decoded (WebP) in workers,
 * or the UASTC archive `assets/world-seed7-16p-uastc.tsva` (same seed, 16 x 16 pages), its zstd
 * inflated in the decode workers and its blocks transcoded per tile to the device's best block
 * format (BC7 + BC5 on desktop) for a block-compressed pool.
 */

import type { TileSource } from '@tessera-vt/tessera';
import { ArchiveTileSource, WorkerProceduralTileSource } from '@tessera-vt/tessera';
import { ProceduralWorld } from '@tessera-vt/tessera/sources';
import type { VirtualTexturePoolLayer } from '@tessera-vt/tessera/three';
import type { TerrainSourceKind } from '../params';
import { assetUrl } from '../props/asset-url';
import { RenderedTerrain } from './rendered-terrain';

/** File name and width in pages of each baked world under assets/ (assets/README.md). */
const ARCHIVES = {
  archive: { file: 'world-seed7-64p.tsva', widthPages: 64 },
  uastc: { file: 'world-seed7-16p-uastc.tsva', widthPages: 16 },
} as const;
/** Seed the archives were baked with, so heights match their albedo. */
const ARCHIVE_SEED = 7;

/** The terrain's tile source and the world its heights come from. */
export interface TerrainTileSource {
  kind: TerrainSourceKind;
  source: TileSource;
  /** The procedural world matching the tiles (heights for geometry and camera). */
  world: ProceduralWorld;
  /** The runtime virtual texture's decals and trail painter (`rendered` only). */
  rendered?: RenderedTerrain;
  /** Terminates workers. */
  dispose(): void;
}

/** Opens the terrain source `kind` (procedural for `seed`, or the seed-7 archive). */
export async function openTerrainTileSource(
  kind: TerrainSourceKind,
  seed: number,
): Promise<TerrainTileSource> {
  if (kind === 'rendered') {
    // The world's heights drive the splat map; its tiles are never generated (pages render on the GPU).
    const world = new ProceduralWorld({ seed });
    const rendered = new RenderedTerrain(world, seed);
    return { kind, source: rendered.source, world, rendered, dispose: () => rendered.dispose() };
  }
  if (kind !== 'procedural') return openArchive(kind);
  const source = new WorkerProceduralTileSource({ seed });
  return { kind, source, world: source.world, dispose: () => source.dispose() };
}

async function openArchive(kind: keyof typeof ARCHIVES): Promise<TerrainTileSource> {
  const { file, widthPages } = ARCHIVES[kind];
  // The default decoder is a pool of workers on the browser's codecs, disposed with the source.
  const source = await ArchiveTileSource.open(assetUrl(file), { cacheBytes: 4 << 20 });
  const world = new ProceduralWorld({ seed: ARCHIVE_SEED, widthPages });
  return { kind, source, world, dispose: () => source.dispose() };
}

/**
 * The pool layers for `source`: its layers' names, encodings and usages (so a UASTC normal layer
 * gets a two-channel format, BC5 / EAC RG11), opaque colour (the terrain has no alpha, so BC7 and
 * ETC2 transcode without it). A rendered source's layers are compressed on the GPU as they render
 * (BC7 on WebGPU with BC, mode 6 alone to keep SwiftShader usable; rgba8 on WebGL2); its normal
 * layer too (BC7, not BC5: the material's `normalMap` reads x, y and z as rendered). With `compressed`
 * false UASTC layers are decoded to rgba8 instead (`?compressed=0`, the baseline).
 */
export function terrainPoolLayers(source: TileSource, compressed = true): VirtualTexturePoolLayer[] {
  return source.info.layers.map((layer) => ({
    name: layer.name,
    format: layer.format,
    usage: layer.usage,
    alpha: false,
    // The uncompressed baseline: UASTC decoded to rgba8 in the transcode workers.
    ...(!compressed && layer.format.startsWith('uastc') ? { target: 'rgba8' as const } : {}),
    ...(source.info.rendered === true ? { rendered: 'compressed' as const } : {}),
  }));
}
