/**
 * Block formats of streamed textures on the device: whether this renderer has the WebGPU feature
 * or WebGL2 extension each needs (the shared table in `../block-formats.ts`), and the checks a
 * source passes at `add`.
 */

import { TesseraConfigError } from '../../../core/errors';
import {
  levelWidth,
  type MipPyramidSource,
  type StreamedTextureFormat,
} from '../../../core/streaming/mip-pyramid-source';
import { PINNED_MAX_EDGE } from '../../../core/streaming/planning/mip-streaming-planner';
import type { BackendBridge } from '../../backend-bridge';
import { blockFormatEntry } from '../../residency/block-formats';

export { threeBlockFormatOf } from '../../residency/block-formats';

/** Every format a streamed texture accepts (rgba8 and the shared table's block formats). */
export function isStreamedFormat(format: string): format is StreamedTextureFormat {
  return format === 'rgba8unorm' || format === 'rgba8unorm-srgb' || blockFormatEntry(format) !== undefined;
}

/** True for block-compressed streamed formats (uploaded whole as a three `CompressedTexture`). */
export function isBlockFormat(format: StreamedTextureFormat): boolean {
  return blockFormatEntry(format) !== undefined;
}

/**
 * The device feature (WebGPU) or extension (WebGL2) `format` needs when this renderer lacks it,
 * else null (rgba8 needs nothing).
 */
export function missingFormatSupport(bridge: BackendBridge, format: StreamedTextureFormat): string | null {
  const entry = blockFormatEntry(format);
  if (entry === undefined) return null;
  if (bridge.device !== null) return bridge.device.features.has(entry.feature) ? null : entry.feature;
  const gl = bridge.gl;
  // getExtension also enables the extension, which compressedTexImage2D needs.
  if (gl !== null && entry.glExtensions.some((name) => gl.getExtension(name) !== null)) return null;
  return entry.glExtensions.join(' or ');
}

/**
 * Checks that `source` can stream on this renderer: a known format, the device feature of a block
 * format, and (block formats) every level a chain may start at a whole number of 4x4 blocks, as
 * WebGPU requires of a compressed texture's level 0.
 * @throws TesseraConfigError('invalid-option') for an unknown or unsupported format,
 *   ('invalid-size') for a block-format level that is not block-aligned.
 */
export function checkStreamableSource(bridge: BackendBridge, source: MipPyramidSource): void {
  const format = source.format as string;
  if (!isStreamedFormat(format)) {
    throw new TesseraConfigError('invalid-option', `Unsupported streamed format '${format}'.`);
  }
  const missing = missingFormatSupport(bridge, format);
  if (missing !== null) {
    throw new TesseraConfigError(
      'invalid-option',
      `Streamed format '${format}' needs ${missing}, which this ${bridge.device !== null ? 'WebGPU device' : 'WebGL2 context'} lacks.`,
    );
  }
  if (!isBlockFormat(format)) return;
  for (let level = 0; level < source.mipLevelCount; level++) {
    const w = levelWidth(source.width, level);
    const h = levelWidth(source.height, level);
    if (w % 4 !== 0 || h % 4 !== 0) {
      throw new TesseraConfigError(
        'invalid-size',
        `Level ${level} of a '${format}' texture is ${w}x${h} texels, not whole 4x4 blocks, and a chain may start there.`,
      );
    }
    // Chains start at the pinned level (edge <= PINNED_MAX_EDGE) at the coarsest.
    if (Math.max(w, h) <= PINNED_MAX_EDGE) break;
  }
}
