import type { UastcTarget } from '../../core/vt/residency/pool-format';
import type { TileData, TileSource } from '../../core/vt/tile-source';
import type { PoolLayerChoice } from '../residency/pool-format-choice';
import type { BasisTranscoderPool } from './basis-transcoder-pool';
import { TranscodingTileSource, transcodingStageFor } from './transcoding-tile-source';

/**
 * A system's transcoding: the transcoding stage of each texture with UASTC layers (by texture id)
 * and the worker pool they share, started on the first such texture.
 */
export class TranscodingStages {
  private readonly targets: readonly UastcTarget[];
  private readonly alpha: readonly boolean[];
  private readonly stages: (TranscodingTileSource | null)[] = [];

  /**
   * @param formats the format choice of each pool layer.
   * @param workerPool the runtime's transcoder workers, started at the first call.
   */
  constructor(
    formats: readonly PoolLayerChoice[],
    private readonly workerPool: () => BasisTranscoderPool,
  ) {
    this.targets = formats.map((choice) => choice.target);
    this.alpha = formats.map((choice) => choice.alpha);
  }

  /** What the streamer should load from for `source`: its transcoding stage, or `source` itself. */
  wrap(source: TileSource, poolLayerSource: Int8Array): TileSource {
    return transcodingStageFor(source, poolLayerSource, this.targets, this.alpha, this.workerPool) ?? source;
  }

  /** Remembers what texture `vt` loads from (the result of {@link wrap}). */
  bind(vt: number, loaded: TileSource): void {
    this.stages[vt] = loaded instanceof TranscodingTileSource ? loaded : null;
  }

  /** Returns the transcoded buffers of a tile of texture `vt` once they are uploaded. */
  recycle(vt: number, tile: TileData): void {
    this.stages[vt]?.recycle(tile);
  }

  /** Forgets the stages (the workers are the runtime's: it stops them). */
  dispose(): void {
    this.stages.length = 0;
  }
}
