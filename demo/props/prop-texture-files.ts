/** Where the baked prop textures and region scenes live (written by ./bake-prop-textures.ts and ./bake-region-scenes.ts, read by the demo). */

import type { RegionName } from '../regions';
import type { PropSurface } from './prop-textures';

/** World seed the committed prop textures were generated with (they do not follow `?seed=`). */
export const PROP_TEXTURE_SEED = 1;

/** Path of `region`'s `surface` texture relative to assets/ (the demo server's public folder). */
export function propTextureFile(region: RegionName, surface: PropSurface): string {
  return `props/${region}-${surface}.ktx2`;
}

/** Name of `region`'s `surface` texture (its streamed texture's and glTF texture's name). */
export function propTextureName(region: RegionName, surface: PropSurface): string {
  return `demo:${region}:${surface}`;
}

/** Path of `region`'s prop scene (a .glb next to its textures) relative to assets/. */
export function propSceneFile(region: RegionName): string {
  return `props/${region}.glb`;
}
