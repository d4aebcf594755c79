import { TesseraConfigError, TileSourceError } from '../../core/errors';

/** Texel formats a streamed texture can hold (8-bit RGBA, linear or sRGB-encoded). */
export type StreamedTextureFormat = 'rgba8unorm' | 'rgba8unorm-srgb';

/** Largest edge of the coarsest level a source may have, in texels (the pinned level renders at once). */
export const MAX_COARSEST_EDGE = 64;

/**
 * A mip pyramid the streamer reads level by level. Level 0 is the finest; level `l` is
 * `max(1, width >> l) x max(1, height >> l)` texels, rows from v = 0 (three's DataTexture order),
 * 4 bytes per texel.
 */
export interface MipPyramidSource {
  /** Width of level 0, in texels. */
  readonly width: number;
  /** Height of level 0, in texels. */
  readonly height: number;
  /** Levels available (0 .. n-1); the coarsest one is at most 64 texels on its longer edge. */
  readonly mipLevelCount: number;
  /** Texel format of every level. */
  readonly format: StreamedTextureFormat;
  /**
   * The texels of level `level`: exactly `levelWidth * levelHeight * 4` bytes. Rejects with an
   * abort error when `signal` aborts; any other rejection makes the texture keep its fallback.
   */
  loadLevel(level: number, signal: AbortSignal): Promise<Uint8Array>;
}

/** Width of level `level` of a `width`-texel-wide level 0, in texels. */
export function levelWidth(width: number, level: number): number {
  return Math.max(1, width >>> level);
}

/**
 * Checks the shape of a pyramid: integer edges, 1..full levels, coarsest level <= 64 texels.
 * @throws TesseraConfigError('invalid-size' | 'invalid-option')
 */
export function checkPyramidShape(width: number, height: number, mipLevelCount: number): void {
  if (!Number.isInteger(width) || !Number.isInteger(height) || width < 1 || height < 1) {
    throw new TesseraConfigError(
      'invalid-size',
      `Level 0 must be at least 1x1 texels, got ${width}x${height}.`,
    );
  }
  const full = 32 - Math.clz32(Math.max(width, height));
  if (!Number.isInteger(mipLevelCount) || mipLevelCount < 1 || mipLevelCount > full) {
    throw new TesseraConfigError('invalid-option', `mipLevelCount must be 1..${full}, got ${mipLevelCount}.`);
  }
  const last = mipLevelCount - 1;
  if (Math.max(levelWidth(width, last), levelWidth(height, last)) > MAX_COARSEST_EDGE) {
    throw new TesseraConfigError(
      'invalid-option',
      `The coarsest level (${last}) must be at most ${MAX_COARSEST_EDGE} texels on its longer edge, so the texture renders at once.`,
    );
  }
}

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
  readonly width: number;
  readonly height: number;
  readonly mipLevelCount: number;
  readonly format: StreamedTextureFormat;
  private readonly levels: Uint8Array[];

  /** @throws TesseraConfigError('invalid-size' | 'invalid-option') for a wrong level size or count. */
  constructor(
    levels: readonly MipLevelInput[],
    options: { format?: StreamedTextureFormat; width?: number; height?: number } = {},
  ) {
    if (levels.length === 0)
      throw new TesseraConfigError('invalid-option', 'A pyramid needs at least one level.');
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

  loadLevel(level: number, signal: AbortSignal): Promise<Uint8Array> {
    if (signal.aborted) return Promise.reject(new DOMException('Level load aborted.', 'AbortError'));
    const data = this.levels[level];
    if (data === undefined)
      return Promise.reject(new TileSourceError('bad-index', `No level ${level}.`, false));
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
  if (input instanceof Uint8ClampedArray)
    return new Uint8Array(input.buffer, input.byteOffset, input.byteLength);
  let image: ImageData;
  if (typeof ImageData !== 'undefined' && input instanceof ImageData) image = input;
  else {
    const canvas = new OffscreenCanvas(input.width, input.height);
    const context = canvas.getContext('2d');
    if (context === null)
      throw new TesseraConfigError('invalid-option', 'No 2D canvas to decode an image level.');
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
