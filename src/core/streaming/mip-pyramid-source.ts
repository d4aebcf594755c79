import { TesseraConfigError } from '../errors';

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
