/** What a texture would take on the GPU if it were loaded whole, as plain three.js keeps a texture. */

import type { MipPyramidSource } from '@tessera-vt/tessera/core';
import { levelByteLength } from '@tessera-vt/tessera/core';

/**
 * Bytes of `source` with every mip level resident at full resolution, in the format its levels
 * reach the GPU in (a streamed texture's `source`: a UASTC file's transcoded target, else as
 * stored): whole 4x4 blocks per level.
 */
export function fullyResidentBytes(source: MipPyramidSource): number {
  const { format, width, height, mipLevelCount } = source;
  let bytes = 0;
  for (let level = 0; level < mipLevelCount; level++) bytes += levelByteLength(format, width, height, level);
  return bytes;
}
