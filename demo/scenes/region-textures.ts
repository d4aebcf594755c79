/**
 * A region's props as a glTF scene: `assets/props/<region>.glb` (baked by `npm run
 * bake:region-scenes`), loaded with three's GLTFLoader and Tessera's glTF plugin
 * (`registerGltfTextureStreaming`). Its materials reference the region's KTX2 atlases (rgba8)
 * through `TESSERA_texture_ktx2`; the plugin opens each by one small Range request and creates its streamed
 * texture, tagged `scene:<region>` (the registration's tag, set per load), the most visible
 * surfaces in the core set, attached to the scene's own meshes, which become the region's need
 * proxies ({@link RegionProps.adopt}).
 *
 * The `.glb` is downloaded through the streaming system's HTTP client (`registration.load`), as
 * are the KTX2 files: transient failures are retried with backoff there and counted in
 * `streaming.stats().retries`.
 *
 * The plugin's policy for a texture that cannot be opened is to load the scene without that map;
 * a region transition must instead fail whole, so a failure here releases the textures this load
 * created and rejects with the first error (a `TileSourceError` for a bad KTX2 file): the old
 * region stays as it was.
 */

import type { StreamedTexture, TextureStreamingSystem } from '@tessera-vt/tessera';
import { registerGltfTextureStreaming } from '@tessera-vt/tessera';
import type { Mesh } from 'three';
import { GLTFLoader } from 'three/examples/jsm/loaders/GLTFLoader.js';
import { assetUrl } from '../props/asset-url';
import { propSceneFile, propTextureName } from '../props/prop-texture-files';
import { CORE_PROP_SURFACES, PROP_SURFACES, type PropSurface } from '../props/prop-textures';
import type { RegionProps } from '../props/region-props';
import { REGION_NAMES, regionTag } from '../regions';

/** Creates a region's streamed textures in `streaming` and binds them to its props. */
export type RegionTextureLoader = (
  streaming: TextureStreamingSystem,
  props: RegionProps,
) => Promise<StreamedTexture[]>;

/** Names of the core textures of every region (`demo:<region>:<surface>`). */
const CORE_TEXTURE_NAMES = new Set(
  REGION_NAMES.flatMap((region) => CORE_PROP_SURFACES.map((surface) => propTextureName(region, surface))),
);

/**
 * The demo's prop loader on `streaming`: each call loads `props`' region scene, hands its meshes
 * to `props` and returns its streamed textures in {@link PROP_SURFACES} order. Rejects (keeping
 * nothing of the new scene) when the scene or one of its textures cannot be loaded. Calls must not
 * overlap (the registration's tag is per load; the region scenes serialise their transitions).
 */
export function createRegionGltfLoader(streaming: TextureStreamingSystem): RegionTextureLoader {
  const loader = new GLTFLoader();
  const failures: unknown[] = [];
  const registration = registerGltfTextureStreaming(loader, streaming, {
    tag: regionTag(REGION_NAMES[0]),
    isCore: (name) => CORE_TEXTURE_NAMES.has(name),
    anisotropy: 4,
  });
  // A texture that could not be streamed at all: the system's error event with no texture.
  streaming.events.on('error', ({ error, texture }) => {
    if (texture === null) failures.push(error);
  });
  return async (_streaming, props) => {
    const region = props.region.name;
    failures.length = 0;
    registration.tag = regionTag(region);
    const gltf = await registration.load(assetUrl(propSceneFile(region)));
    const textures = registration.texturesOf(gltf.scene);
    const meshes = new Map<PropSurface, Mesh>();
    for (const surface of PROP_SURFACES) {
      const mesh = gltf.scene.getObjectByName(surface) as Mesh | undefined;
      if (mesh?.isMesh) meshes.set(surface, mesh);
    }
    const byName = (surface: PropSurface) =>
      textures.find((texture) => texture.name === propTextureName(region, surface));
    const missing = PROP_SURFACES.filter((surface) => !meshes.has(surface) || !byName(surface));
    if (failures.length > 0 || missing.length > 0) {
      for (const texture of textures) streaming.remove(texture);
      throw (
        failures[0] ?? new Error(`${propSceneFile(region)}: no mesh or texture for ${missing.join(', ')}`)
      );
    }
    props.adopt(meshes);
    return PROP_SURFACES.map((surface) => byName(surface)!);
  };
}
