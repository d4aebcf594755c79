import { TileSourceError } from '../../core/errors';
import {
  type BasisLzGlobalData,
  type EncodedPyramidSource,
  levelWidth,
  type MipPyramidSource,
  type StreamedTextureFormat,
} from '../../core/streaming/mip-pyramid-source';
import type { Etc1sTargetChoice } from '../../core/streaming/planning/etc1s-target';
import type { BasisTranscoderPool } from './basis-transcoder-pool';
import type { Etc1sCodebooks } from './etc1s-transcode';

/** Distinguishes the codebooks of each ETC1S source in the workers' caches. */
let nextCodebookId = 1;

/**
 * An ETC1S (BasisLZ) pyramid seen as the block-format pyramid it becomes on this device: each
 * level's stored slices are loaded from `source` (by Range), checked against the level's image
 * descriptor, then transcoded in the shared worker pool with the file's codebooks (read with the
 * metadata, decoded once per worker). `format` is the transcoded one, so the planner and the
 * budget count what the GPU holds (whole blocks).
 */
export class Etc1sPyramidSource implements MipPyramidSource {
  /** Width of level 0, texels (the source's). */
  readonly width: number;
  /** Height of level 0, texels (the source's). */
  readonly height: number;
  /** Levels, as the source's. */
  readonly mipLevelCount: number;
  /** The device format the levels are transcoded to (e.g. `etc2-rgb8unorm-srgb`). */
  readonly format: StreamedTextureFormat;
  private readonly codebooks: Etc1sCodebooks;
  private readonly codebookId = nextCodebookId++;
  private readonly basisLz: BasisLzGlobalData;

  /**
   * @internal made by `TextureStreamingSystem.add` for an ETC1S source.
   * @param source ETC1S levels (`format` `etc1s(-srgb)`) with their `basisLz` global data.
   * @param choice the target, from `chooseEtc1sTarget` over the device's support.
   * @param pool the worker pool, or a function starting it on the first level.
   * @throws TileSourceError('corrupt') when `source` has no BasisLZ global data.
   */
  constructor(
    /** The ETC1S levels as stored, loaded before transcoding. */
    readonly source: EncodedPyramidSource,
    /** The transcode target chosen for this device (and whether it fell back to rgba8). */
    readonly choice: Etc1sTargetChoice,
    private readonly pool: () => BasisTranscoderPool,
  ) {
    if (source.basisLz === undefined) {
      throw new TileSourceError('corrupt', 'an ETC1S source needs its BasisLZ global data', false);
    }
    this.basisLz = source.basisLz;
    this.width = source.width;
    this.height = source.height;
    this.mipLevelCount = source.mipLevelCount;
    this.format = choice.format;
    const { endpointCount, selectorCount, endpoints, selectors, tables } = source.basisLz;
    this.codebooks = { endpointCount, selectorCount, endpoints, selectors, tables };
  }

  /**
   * The level's texels in {@link format}.
   * @throws TileSourceError('wrong-size') when the loaded level is shorter than its slices,
   *   ('decode-failed') when the transcoder rejects the codebooks or slices; as the source otherwise.
   */
  async loadLevel(level: number, signal: AbortSignal): Promise<Uint8Array> {
    const data = await this.source.loadLevel(level, signal);
    const s = this.basisLz.slices;
    const at = level * 4;
    const end = Math.max(s[at] + s[at + 1], s[at + 2] + s[at + 3]);
    if (data.byteLength < end) {
      throw new TileSourceError(
        'wrong-size',
        `ETC1S level ${level} has ${data.byteLength} bytes, its slices end at ${end}`,
        false,
      );
    }
    return this.pool().transcodeEtc1sLevel(
      data,
      {
        target: this.choice.target,
        codebookId: this.codebookId,
        codebooks: this.codebooks,
        slices: {
          rgbOffset: s[at],
          rgbLength: s[at + 1],
          alphaOffset: s[at + 2],
          alphaLength: s[at + 3],
          hasAlphaSlices: this.basisLz.hasAlphaSlices,
        },
        level,
        width: levelWidth(this.width, level),
        height: levelWidth(this.height, level),
      },
      signal,
    );
  }
}
