import type { UastcTarget } from '../../core/vt/residency/pool-format';
import type { TileData, TileSource } from '../../core/vt/tile-source';
import type { PoolLayerChoice } from '../residency/pool-format-choice';
import { BasisTranscoderPool } from './basis-transcoder-pool';
import { TranscodingTileSource, transcodingStageFor } from './transcoding-tile-source';

/**
 * A system's transcoding: the transcoding stage of each texture with UASTC layers (by texture id)
 * and the worker pool they share, started on the first such texture.
 */
export class TranscodingStages {
  private readonly targets: readonly UastcTarget[];
  private readonly alpha: readonly boolean[];
  private readonly transcoderPath: string | undefined;
  private readonly workers: number | undefined;
  private readonly stages: (TranscodingTileSource | null)[] = [];
  private pool: BasisTranscoderPool | null = null;

  /**
   * @param formats the format choice of each pool layer.
   * @param transcoderPath the folder of three's Basis transcoder (default: the library's copy).
   */
  constructor(formats: readonly PoolLayerChoice[], transcoderPath?: string, workers?: number) {
    this.targets = formats.map((choice) => choice.target);
    this.alpha = formats.map((choice) => choice.alpha);
    this.transcoderPath = transcoderPath;
    this.workers = workers;
  }

  /** What the streamer should load from for `source`: its transcoding stage, or `source` itself. */
  wrap(source: TileSource, poolLayerSource: Int8Array): TileSource {
    const pool = () => this.workerPool();
    return transcodingStageFor(source, poolLayerSource, this.targets, this.alpha, pool) ?? source;
  }

  /** Remembers what texture `vt` loads from (the result of {@link wrap}). */
  bind(vt: number, loaded: TileSource): void {
    this.stages[vt] = loaded instanceof TranscodingTileSource ? loaded : null;
  }

  /** Returns the transcoded buffers of a tile of texture `vt` once they are uploaded. */
  recycle(vt: number, tile: TileData): void {
    this.stages[vt]?.recycle(tile);
  }

  /** Stops the workers (pending transcodes reject with 'source-disposed'). */
  dispose(): void {
    this.pool?.dispose();
    this.pool = null;
    this.stages.length = 0;
  }

  private workerPool(): BasisTranscoderPool {
    this.pool ??= new BasisTranscoderPool({
      transcoderPath: this.transcoderPath,
      size: this.workers,
    });
    return this.pool;
  }
}
