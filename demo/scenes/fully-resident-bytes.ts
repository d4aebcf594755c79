/** What a streamed texture would take on the GPU if it were loaded whole, as plain three.js keeps a texture. */

import type { StreamedTexture } from 'tessera';
import { levelByteLength } from 'tessera/core';

/**
 * Bytes of `texture` with every mip level resident at full resolution, in the format its levels
 * reach the GPU in (a UASTC source's transcoded target, else as stored): whole 4x4 blocks per level.
 */
export function fullyResidentBytes(texture: StreamedTexture): number {
  const { format, width, height, mipLevelCount } = texture.source;
  let bytes = 0;
  for (let level = 0; level < mipLevelCount; level++) bytes += levelByteLength(format, width, height, level);
  return bytes;
}
