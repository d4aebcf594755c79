/**
 * A region's prop textures as Tessera streamed textures: one KTX2 file per prop surface (baked by
 * `npm run bake:props` into assets/props/), opened by one small Range request each and streamed
 * level by level, tagged `scene:<region>`, the most visible surfaces in the core set, and attached
 * to the region's need proxies so their mips follow the screen.
 *
 * This is the demo's one prop loader: {@link RegionTextureLoader} is what a glTF scene loader
 * (textures found in the scene's materials) would implement instead.
 */

import type { StreamedTexture, TextureStreamingSystem } from 'tessera';
import { Ktx2Source } from 'tessera';
import { assetUrl } from '../props/asset-url';
import { propTextureFile } from '../props/prop-texture-files';
import { CORE_PROP_SURFACES, PROP_SURFACES } from '../props/prop-textures';
import type { RegionProps } from '../props/region-props';
import { regionTag } from '../regions';

/** Creates a region's streamed textures in `streaming` and binds them to its props. */
export type RegionTextureLoader = (
  streaming: TextureStreamingSystem,
  props: RegionProps,
) => Promise<StreamedTexture[]>;

/**
 * Opens `props`' region textures, creates them in `streaming` and binds them to its materials
 * (each shows the system's placeholder until its pinned mips load). Returns them in
 * {@link PROP_SURFACES} order. Rejects (creating nothing) when a file cannot be opened.
 */
export const loadRegionKtx2Textures: RegionTextureLoader = async (streaming, props) => {
  const region = props.region;
  const sources = await Promise.all(
    PROP_SURFACES.map((surface) => Ktx2Source.fromUrl(assetUrl(propTextureFile(region.name, surface)))),
  );
  return PROP_SURFACES.map((surface, i) => {
    const texture = streaming.createTexture(sources[i], {
      name: `demo:${region.name}:${surface}`,
      tag: regionTag(region.name),
      core: CORE_PROP_SURFACES.includes(surface),
      anisotropy: 4,
    });
    streaming.attach(props.needProxy(surface), texture, 'map');
    return texture;
  });
};
