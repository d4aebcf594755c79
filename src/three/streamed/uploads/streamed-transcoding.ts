import {
  type EncodedPyramidSource,
  isEtc1sPyramidFormat,
  isUastcPyramidFormat,
  type MipPyramidSource,
} from '../../../core/streaming/mip-pyramid-source';
import { chooseEtc1sTarget } from '../../../core/streaming/planning/etc1s-target';
import {
  type CompressionSupport,
  choosePoolFormat,
  type UastcTarget,
} from '../../../core/vt/residency/pool-format';
import type { BackendBridge } from '../../backend-bridge';
import { compressionSupportOf } from '../../residency/compression-support';
import type { BasisTranscoderPool } from '../../transcode/basis-transcoder-pool';
import { Etc1sPyramidSource } from '../../transcode/etc1s-pyramid-source';
import { TranscodedPyramidSource } from '../../transcode/transcoded-pyramid-source';

/** Transcoding options of a `TextureStreamingSystem`. */
export interface StreamedTranscodingOptions {
  /**
   * Folder (URL, relative to the page) of three's `basis_transcoder.js` and `.wasm`, as
   * `VirtualTextureSystemOptions.transcoderPath`. Default: the copy shipped with the library.
   * @throws (rejects each Basis level load) TileSourceError('transcoder-unavailable') when the
   *   files cannot be fetched or started; the texture stays on its coarser level.
   */
  transcoderPath?: string;
  /** Transcode workers, 1..16. Default: hardware threads - 1, at most 4. */
  transcodeWorkers?: number;
  /** Targets UASTC levels may become (default all the device samples), e.g. to keep a driver off one. */
  uastcTargets?: readonly UastcTarget[];
}

/**
 * The Basis side of a streaming system: the device's target for UASTC, chosen as the VT pool
 * chooses a colour layer's (`choosePoolFormat`: BC7 > ASTC 4x4 > ETC2 > rgba8), and for ETC1S
 * (`chooseEtc1sTarget`: ETC2 > BC7 > BC1 > rgba8), and one transcoder worker pool for all its
 * textures, started on the first Basis level.
 */
export class StreamedTranscoding {
  private support: CompressionSupport | null = null;

  /** @param workerPool the runtime's transcoder workers, started at the first Basis level. */
  constructor(
    private readonly bridge: BackendBridge,
    private readonly options: StreamedTranscodingOptions,
    private readonly workerPool: () => BasisTranscoderPool,
  ) {}

  /** `source` itself, or for UASTC / ETC1S levels the source transcoding them to the device's format. */
  prepare(source: EncodedPyramidSource): MipPyramidSource {
    const format = source.format;
    if (isEtc1sPyramidFormat(format)) {
      this.support ??= compressionSupportOf(this.bridge, this.options.uastcTargets);
      const choice = chooseEtc1sTarget(this.support, source.hasAlpha ?? true, format === 'etc1s-srgb');
      return new Etc1sPyramidSource(source, choice, this.workerPool);
    }
    if (!isUastcPyramidFormat(format)) return source as MipPyramidSource;
    this.support ??= compressionSupportOf(this.bridge, this.options.uastcTargets);
    const choice = choosePoolFormat(format, 'color', this.support);
    return new TranscodedPyramidSource(source, choice, this.workerPool);
  }
}
