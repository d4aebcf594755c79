import { TesseraConfigError, TileSourceError } from '../../core/errors';
import {
  checkPyramidShape,
  levelWidth,
  type MipPyramidSource,
  type StreamedTextureFormat,
} from '../../core/streaming/mip-pyramid-source';

/** One level given to a {@link LevelListSource}: RGBA8 texels, or an image decoded once to RGBA8. */
export type MipLevelInput =
  | Uint8Array
  | Uint8ClampedArray
  | ImageData
  | ImageBitmap
  | HTMLCanvasElement
  | OffscreenCanvas
  | HTMLImageElement;

/**
 * A mip pyramid held in memory: one entry per level, finest first. Typed arrays are used as given
 * (rows from v = 0); images are decoded once to RGBA8 and flipped so that, like three's image
 * textures, the image's top row is at v = 1.
 */
export class LevelListSource implements MipPyramidSource {
  /** Width of level 0, in texels. */
  readonly width: number;
  /** Height of level 0, in texels. */
  readonly height: number;
  /** Number of levels given. */
  readonly mipLevelCount: number;
  /** The levels' format. */
  readonly format: StreamedTextureFormat;
  private readonly levels: Uint8Array[];

  /** @throws TesseraConfigError('invalid-size' | 'invalid-option') for a wrong level size or count. */
  constructor(
    levels: readonly MipLevelInput[],
    options: { format?: StreamedTextureFormat; width?: number; height?: number } = {},
  ) {
    if (levels.length === 0) {
      throw new TesseraConfigError('invalid-option', 'A pyramid needs at least one level.');
    }
    const first = levels[0];
    const width = options.width ?? inputWidth(first);
    const height = options.height ?? inputHeight(first);
    if (width === undefined || height === undefined) {
      throw new TesseraConfigError('invalid-size', 'Give width and height for a pyramid of typed arrays.');
    }
    checkPyramidShape(width, height, levels.length);
    this.width = width;
    this.height = height;
    this.mipLevelCount = levels.length;
    this.format = options.format ?? 'rgba8unorm-srgb';
    this.levels = levels.map((input, level) => {
      const data = toRgba8(input);
      const expected = levelWidth(width, level) * levelWidth(height, level) * 4;
      if (data.byteLength !== expected) {
        throw new TesseraConfigError(
          'invalid-size',
          `Level ${level} holds ${data.byteLength} bytes, expected ${expected}.`,
        );
      }
      return data;
    });
  }

  /** Resolves level `level` (0 finest) from memory; `bad-index` for a level not given. */
  loadLevel(level: number, signal: AbortSignal): Promise<Uint8Array> {
    if (signal.aborted) return Promise.reject(new DOMException('Level load aborted.', 'AbortError'));
    const data = this.levels[level];
    if (data === undefined) {
      return Promise.reject(new TileSourceError('bad-index', `No level ${level}.`, false));
    }
    return Promise.resolve(data);
  }
}

function inputWidth(input: MipLevelInput): number | undefined {
  return input instanceof Uint8Array || input instanceof Uint8ClampedArray ? undefined : input.width;
}

function inputHeight(input: MipLevelInput): number | undefined {
  return input instanceof Uint8Array || input instanceof Uint8ClampedArray ? undefined : input.height;
}

/** RGBA8 bytes of one level input; images go through a 2D canvas once, flipped to rows from v = 0. */
function toRgba8(input: MipLevelInput): Uint8Array {
  if (input instanceof Uint8Array) return input;
  if (input instanceof Uint8ClampedArray) {
    return new Uint8Array(input.buffer, input.byteOffset, input.byteLength);
  }
  let image: ImageData;
  if (typeof ImageData !== 'undefined' && input instanceof ImageData) image = input;
  else {
    const canvas = new OffscreenCanvas(input.width, input.height);
    const context = canvas.getContext('2d');
    if (context === null) {
      throw new TesseraConfigError('invalid-option', 'No 2D canvas to decode an image level.');
    }
    context.drawImage(input as CanvasImageSource, 0, 0);
    image = context.getImageData(0, 0, input.width, input.height);
  }
  const rowBytes = image.width * 4;
  const out = new Uint8Array(rowBytes * image.height);
  for (let y = 0; y < image.height; y++) {
    out.set(image.data.subarray(y * rowBytes, (y + 1) * rowBytes), (image.height - 1 - y) * rowBytes);
  }
  return out;
}
