import { TileSourceError } from '../../core/errors';
import {
  type EncodedPyramidSource,
  levelWidth,
  type MipPyramidSource,
  type StreamedTextureFormat,
  uastcLevelByteLength,
} from '../../core/streaming/mip-pyramid-source';
import type { PoolFormatChoice } from '../../core/vt/residency/pool-format';
import type { BasisTranscoderPool } from './basis-transcoder-pool';

/**
 * A UASTC pyramid seen as the block-format pyramid it becomes on this device: each level is
 * loaded from `source` (by Range, inflated), size-checked, then transcoded in the shared worker
 * pool to `choice.format`. `format` is the transcoded one, so the planner and the budget count
 * the transcoded bytes (whole blocks, as the GPU stores them).
 */
export class TranscodedPyramidSource implements MipPyramidSource {
  /** Width of level 0, texels (the source's). */
  readonly width: number;
  /** Height of level 0, texels (the source's). */
  readonly height: number;
  /** Levels, as the source's. */
  readonly mipLevelCount: number;
  /** The device format the levels are transcoded to (e.g. `bc7-rgba-unorm-srgb`). */
  readonly format: StreamedTextureFormat;

  /**
   * @internal made by `TextureStreamingSystem.add` for a UASTC source.
   * @param source levels of UASTC blocks (`format` `uastc-4x4` / `uastc-4x4-srgb`).
   * @param choice the target, from `choosePoolFormat` over the device's support.
   * @param pool the worker pool, or a function starting it on the first level.
   */
  constructor(
    /** The UASTC levels as stored, loaded before transcoding. */
    readonly source: EncodedPyramidSource,
    /** The transcode target chosen for this device (and whether it fell back to rgba8). */
    readonly choice: PoolFormatChoice,
    private readonly pool: () => BasisTranscoderPool,
  ) {
    this.width = source.width;
    this.height = source.height;
    this.mipLevelCount = source.mipLevelCount;
    this.format = choice.format;
  }

  /**
   * The level's texels in {@link format}.
   * @throws TileSourceError('wrong-size') when the source's level is not exactly its UASTC blocks,
   *   ('decode-failed') when the transcoder rejects them; as the source otherwise.
   */
  async loadLevel(level: number, signal: AbortSignal): Promise<Uint8Array> {
    const blocks = await this.source.loadLevel(level, signal);
    const expected = uastcLevelByteLength(this.width, this.height, level);
    if (blocks.byteLength !== expected) {
      throw new TileSourceError(
        'wrong-size',
        `UASTC level ${level} has ${blocks.byteLength} bytes, expected ${expected}`,
        false,
      );
    }
    const w = levelWidth(this.width, level);
    const h = levelWidth(this.height, level);
    const alpha = this.source.hasAlpha ?? true;
    return this.pool().transcodeLevel(blocks, this.choice.target, w, h, alpha, signal);
  }
}
