import { TileSourceError } from '../../core/errors';
import type { UastcTarget } from '../../core/vt/residency/pool-format';
import { tileLayerBytes } from '../../core/vt/tile-bytes';
import {
  isNormalWithYInAlpha,
  type TileData,
  type TileSource,
  type TileSourceInfo,
  type TileSourceRequestCounters,
} from '../../core/vt/tile-source';
import type { BasisTranscoderPool } from './basis-transcoder-pool';

/**
 * The transcoding stage a {@link VirtualTextureSystem} puts in front of a source with UASTC
 * layers, so the streamer stays format-agnostic: `load` fetches the tile from `source`, checks
 * each UASTC layer's size, and transcodes it in the worker pool to its pool layer's target. Its
 * `info` is the source's, with layers decoded to rgba8 declared rgba8 (so tile sizes count what
 * this stage returns). A UASTC layer that spans its whole ArrayBuffer is
 * transferred to a worker (detached, then reused): sources must hand out tile buffers they keep no
 * use for, as the `TileData` contract implies.
 */
export class TranscodingTileSource implements TileSource {
  readonly info: TileSourceInfo;
  /** The wrapped source. */
  readonly source: TileSource;
  /** The wrapped source's request counts (see {@link TileSource.requestCounters}). */
  get requestCounters(): TileSourceRequestCounters | undefined {
    return this.source.requestCounters;
  }
  private readonly targets: readonly (UastcTarget | null)[];
  private readonly hasAlpha: readonly boolean[];
  /** Per source layer: a normal map with y in alpha (two-channel targets transcode directly). */
  private readonly yInAlpha: readonly boolean[];
  private readonly pool: BasisTranscoderPool;
  private readonly expectedBytes: number;
  /** The one transcoded layer (the common case: no per-tile job list), or -1. */
  private readonly single: number;

  /**
   * @param targets per source layer: the target its UASTC blocks become, or null to pass the
   *   layer through untouched (rgba8 layers, layers no pool layer receives).
   * @param hasAlpha per source layer: transcode with alpha (default: colour layers and normal maps
   *   with y in alpha do, other normals not).
   */
  constructor(
    source: TileSource,
    targets: readonly (UastcTarget | null)[],
    pool: BasisTranscoderPool,
    hasAlpha: readonly boolean[] = source.info.layers.map(
      (layer) => (layer.usage ?? 'color') === 'color' || isNormalWithYInAlpha(layer),
    ),
  ) {
    this.source = source;
    // The info counts what this stage delivers (the streamer sizes staging and checks tiles by it):
    // a layer decoded to rgba8 is declared rgba8; block targets keep the UASTC declaration, whose
    // size (16 bytes per 4x4 block) they share.
    const layers = source.info.layers.map((layer, i) =>
      targets[i] === 'rgba8'
        ? {
            ...layer,
            format:
              layer.format === 'uastc-4x4-srgb' ? ('rgba8unorm-srgb' as const) : ('rgba8unorm' as const),
          }
        : layer,
    );
    this.info = { ...source.info, layers };
    this.targets = targets;
    this.hasAlpha = hasAlpha;
    this.yInAlpha = source.info.layers.map(isNormalWithYInAlpha);
    this.pool = pool;
    this.expectedBytes = tileLayerBytes('uastc-4x4', source.info.tileSize);
    const transcoded = targets.flatMap((target, i) => (target === null ? [] : [i]));
    this.single = transcoded.length === 1 ? transcoded[0] : -1;
  }

  /**
   * Loads and transcodes one tile.
   * @throws (rejects) TileSourceError 'truncated' (fewer bytes than `(tileSize / 4)²` blocks),
   *   'wrong-size' (more), 'decode-failed' (blocks the transcoder rejects), or the source's error.
   */
  async load(mip: number, x: number, y: number, signal: AbortSignal): Promise<TileData> {
    const tile = await this.source.load(mip, x, y, signal);
    const targets = this.targets;
    const tileSize = this.info.tileSize;
    for (let i = 0; i < targets.length; i++) {
      if (targets[i] === null) continue;
      const bytes = tile.layers[i];
      const length = bytes?.byteLength ?? 0;
      if (length !== this.expectedBytes) {
        throw new TileSourceError(
          length < this.expectedBytes ? 'truncated' : 'wrong-size',
          `UASTC layer '${this.info.layers[i].name}' of tile ${mip}/${x}/${y} has ${length} bytes, expected ${this.expectedBytes}`,
          false,
        );
      }
    }
    // The tile is this stage's now: its layers are replaced in place by their transcoded bytes.
    const layers = tile.layers;
    if (this.single >= 0) {
      const i = this.single;
      layers[i] = await this.pool.transcode(
        layers[i],
        targets[i]!,
        tileSize,
        this.hasAlpha[i],
        signal,
        this.yInAlpha[i],
      );
      return tile;
    }
    const jobs: Promise<void>[] = [];
    for (let i = 0; i < targets.length; i++) {
      const target = targets[i];
      if (target === null) continue;
      jobs.push(
        this.pool
          .transcode(layers[i], target, tileSize, this.hasAlpha[i], signal, this.yInAlpha[i])
          .then((out) => {
            layers[i] = out;
          }),
      );
    }
    await Promise.all(jobs);
    return tile;
  }

  /** Returns the transcoded buffers of `tile` (one this stage produced) for reuse, after upload. */
  recycle(tile: TileData): void {
    for (let i = 0; i < this.targets.length; i++) {
      if (this.targets[i] !== null) this.pool.recycle(tile.layers[i]);
    }
  }
}

/**
 * The transcoding stage for a texture whose source layer `poolLayerSource[p]` lands in pool layer
 * `p`, or null when none of its mapped layers is UASTC (the source is used as it is).
 * @param targetOf the target of each pool layer.
 * @param alphaOf whether each pool layer's tiles are transcoded with alpha.
 * @param pool gives the system's transcoder pool (started on first use).
 */
export function transcodingStageFor(
  source: TileSource,
  poolLayerSource: Int8Array,
  targetOf: readonly UastcTarget[],
  alphaOf: readonly boolean[],
  pool: () => BasisTranscoderPool,
): TranscodingTileSource | null {
  const targets: (UastcTarget | null)[] = source.info.layers.map(() => null);
  const alpha = source.info.layers.map(() => false);
  let any = false;
  for (let p = 0; p < poolLayerSource.length; p++) {
    const from = poolLayerSource[p];
    if (from < 0) continue;
    const format = source.info.layers[from].format;
    if (format === 'uastc-4x4' || format === 'uastc-4x4-srgb') {
      targets[from] = targetOf[p];
      // A normal map's y in alpha must survive whatever the pool layer's choice says.
      alpha[from] = alphaOf[p] || isNormalWithYInAlpha(source.info.layers[from]);
      any = true;
    }
  }
  return any ? new TranscodingTileSource(source, targets, pool(), alpha) : null;
}
