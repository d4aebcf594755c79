/** Where the baked prop textures live (written by ./bake-prop-textures.ts, read by the demo). */

import type { RegionName } from '../regions';
import type { PropSurface } from './prop-textures';

/** World seed the committed prop textures were generated with (they do not follow `?seed=`). */
export const PROP_TEXTURE_SEED = 1;

/** Path of `region`'s `surface` texture relative to assets/ (the demo server's public folder). */
export function propTextureFile(region: RegionName, surface: PropSurface): string {
  return `props/${region}-${surface}.ktx2`;
}
