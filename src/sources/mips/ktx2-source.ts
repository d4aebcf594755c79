import {
  KHR_SUPERCOMPRESSION_NONE,
  type KTX2Container,
  read,
  VK_FORMAT_R8G8B8A8_SRGB,
  VK_FORMAT_R8G8B8A8_UNORM,
} from 'ktx-parse';
import { TesseraConfigError, TileSourceError } from '../../core/errors';
import {
  checkPyramidShape,
  levelWidth,
  type MipPyramidSource,
  type StreamedTextureFormat,
} from '../../core/streaming/mip-pyramid-source';

/**
 * A mip pyramid read from a KTX2 file (parsed with `ktx-parse`). Only uncompressed 8-bit RGBA
 * (`VK_FORMAT_R8G8B8A8_UNORM` / `_SRGB`) without supercompression is accepted; Basis Universal
 * (ETC1S/UASTC) transcoding and zstd/zlib supercompression are out of scope. KTX2 stores rows
 * top-down in image order; they are uploaded as stored (rows from v = 0), as three's KTX2Loader does.
 */
export class Ktx2Source implements MipPyramidSource {
  readonly width: number;
  readonly height: number;
  readonly mipLevelCount: number;
  readonly format: StreamedTextureFormat;
  private readonly container: KTX2Container;

  /**
   * @param bytes the whole KTX2 file.
   * @throws TesseraConfigError('invalid-option') for an unsupported format, supercompression, layer
   *   or face count, ('invalid-size') for a bad level size.
   */
  constructor(bytes: Uint8Array) {
    let container: KTX2Container;
    try {
      container = read(bytes);
    } catch (error) {
      throw new TesseraConfigError('invalid-option', `Not a KTX2 file: ${(error as Error).message}`);
    }
    if (container.vkFormat !== VK_FORMAT_R8G8B8A8_UNORM && container.vkFormat !== VK_FORMAT_R8G8B8A8_SRGB) {
      throw new TesseraConfigError(
        'invalid-option',
        `KTX2 vkFormat ${container.vkFormat} is not supported: only uncompressed R8G8B8A8 (UNORM/SRGB); Basis transcoding is out of scope.`,
      );
    }
    if (container.supercompressionScheme !== KHR_SUPERCOMPRESSION_NONE) {
      throw new TesseraConfigError('invalid-option', 'Supercompressed KTX2 files are not supported.');
    }
    if (container.layerCount > 1 || container.faceCount !== 1 || container.pixelDepth > 1) {
      throw new TesseraConfigError('invalid-option', 'Only single 2D KTX2 textures are supported.');
    }
    const width = container.pixelWidth;
    const height = container.pixelHeight;
    const count = Math.max(1, container.levels.length);
    checkPyramidShape(width, height, count);
    for (let level = 0; level < count; level++) {
      const expected = levelWidth(width, level) * levelWidth(height, level) * 4;
      if (container.levels[level].levelData.byteLength !== expected) {
        throw new TesseraConfigError(
          'invalid-size',
          `KTX2 level ${level} holds ${container.levels[level].levelData.byteLength} bytes, expected ${expected}.`,
        );
      }
    }
    this.container = container;
    this.width = width;
    this.height = height;
    this.mipLevelCount = count;
    this.format = container.vkFormat === VK_FORMAT_R8G8B8A8_SRGB ? 'rgba8unorm-srgb' : 'rgba8unorm';
  }

  /** Fetches and parses a KTX2 file. @throws TileSourceError('network' | 'http-status') or as the constructor. */
  static async fromUrl(url: string, signal?: AbortSignal): Promise<Ktx2Source> {
    let response: Response;
    try {
      response = await fetch(url, { signal });
    } catch (error) {
      throw new TileSourceError('network', `Fetching ${url} failed.`, true, { cause: error });
    }
    if (!response.ok)
      throw new TileSourceError(
        'http-status',
        `Fetching ${url}: HTTP ${response.status}.`,
        response.status >= 500,
      );
    return new Ktx2Source(new Uint8Array(await response.arrayBuffer()));
  }

  loadLevel(level: number, signal: AbortSignal): Promise<Uint8Array> {
    if (signal.aborted) return Promise.reject(new DOMException('Level load aborted.', 'AbortError'));
    const entry = this.container.levels[level];
    if (entry === undefined)
      return Promise.reject(new TileSourceError('bad-index', `No KTX2 level ${level}.`, false));
    return Promise.resolve(entry.levelData);
  }
}
