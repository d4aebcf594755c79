/**
 * A region's prop textures as Tessera streamed textures: one per prop surface, generated in code
 * (RGBA8 level lists), tagged `scene:<region>`, the most visible surfaces in the core set, and
 * attached to the region's need proxies so their mips follow the screen.
 */

import type { StreamedTexture, TextureStreamingSystem } from 'tessera';
import { LevelListSource } from 'tessera';
import {
  CORE_PROP_SURFACES,
  generatePropLevels,
  PROP_SURFACES,
  PROP_TEXTURE_SIZE,
} from '../props/prop-textures';
import type { RegionProps } from '../props/region-props';

/** Lifetime tag of `region`'s textures in the budget. */
export function regionTag(region: string): string {
  return `scene:${region}`;
}

/**
 * Creates `props`' region textures in `streaming` and binds them to its materials (each shows the
 * system's placeholder until its pinned mips load). Returns them in {@link PROP_SURFACES} order.
 */
export function createRegionTextures(
  streaming: TextureStreamingSystem,
  props: RegionProps,
  seed: number,
): StreamedTexture[] {
  const region = props.region;
  const textures: StreamedTexture[] = [];
  for (const surface of PROP_SURFACES) {
    const source = new LevelListSource(generatePropLevels(region, surface, seed), {
      width: PROP_TEXTURE_SIZE,
      height: PROP_TEXTURE_SIZE,
      format: 'rgba8unorm-srgb',
    });
    const texture = streaming.createTexture(source, {
      name: `demo:${region.name}:${surface}`,
      tag: regionTag(region.name),
      core: CORE_PROP_SURFACES.includes(surface),
      anisotropy: 4,
    });
    streaming.attach(props.needProxy(surface), texture, 'map');
    textures.push(texture);
  }
  return textures;
}
