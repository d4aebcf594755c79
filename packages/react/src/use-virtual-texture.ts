import {
  type TesseraRuntime,
  type TileSource,
  type VirtualTexture,
  type VirtualTextureAddOptions,
  type VirtualTextureSampleNode,
  type VirtualTextureSampleOptions,
  virtualTexture,
} from '@tessera-vt/tessera';
import {
  type ImageryPyramid,
  ImageryTileSource,
  type ImageryTileSourceOptions,
} from '@tessera-vt/tessera/imagery';
import { type DependencyList, useEffect, useMemo, useRef, useState } from 'react';
import type { Node } from 'three/webgpu';
import { useTessera } from './tessera-provider.js';

/**
 * Opens a tile source: `signal` aborts when the component unmounts (or its dependencies change)
 * first; `runtime` is the provider's, to give the source (`{ runtime }`) so that it reads through
 * the runtime's network client and decode workers.
 */
export type TileSourceOpener = (signal: AbortSignal, runtime: TesseraRuntime) => Promise<TileSource>;

/**
 * Adds a virtual texture to the provider's virtual-texture system for as long as the component is
 * mounted, and removes it at unmount (its pool pages and page table go back to the budget).
 *
 * `source` is an open `TileSource`, which stays the caller's, or an opener such as
 * `(signal, runtime) => ArchiveTileSource.open(url, { runtime }, signal)`, called after mount and again when `deps`
 * change: the source it opens is the hook's, disposed with the texture (and at once if the
 * component unmounted while it opened). An inline opener is not called again on re-render;
 * list what it reads in `deps`, as for `useEffect`.
 *
 * ```tsx
 * const photo = useVirtualTexture((signal, runtime) => ArchiveTileSource.open('/photo.tsva', { runtime }, signal));
 * const color = useVirtualTextureNode(photo);
 * return photo && <mesh><planeGeometry args={[photo.aspect, 1]} /><meshBasicNodeMaterial colorNode={color} /></mesh>;
 * ```
 * @param deps - what the opener depends on; a change opens and adds again (default: nothing).
 * @param options - options of `VirtualTextureSystem.add`, read when the texture is added.
 * @returns the texture, or null until it is added (the source is still opening).
 * @throws (to the nearest error boundary) the opener's rejection, and the errors of
 *   `VirtualTextureSystem.add` (TesseraConfigError 'invalid-tile', 'budget-too-small', ...).
 */
export function useVirtualTexture(
  source: TileSource | TileSourceOpener | null,
  deps: DependencyList = [],
  options: VirtualTextureAddOptions = {},
): VirtualTexture | null {
  const systems = useTessera();
  const [texture, setTexture] = useState<VirtualTexture | null>(null);
  const [failure, setFailure] = useState<{ error: unknown } | null>(null);
  const latest = useRef({ source, options });
  latest.current = { source, options };
  // An open source is its own dependency; an opener is not (a new closure every render).
  const sourceKey = typeof source === 'function' ? null : source;

  // biome-ignore lint/correctness/useExhaustiveDependencies: the opener and options are read through `latest`; `deps` says when to call the opener again.
  useEffect(() => {
    const given = latest.current.source;
    if (given === null) return;
    const abort = new AbortController();
    const owned = typeof given === 'function';
    let added: VirtualTexture | null = null;
    let opened: TileSource | null = null;
    const add = (tileSource: TileSource): void => {
      opened = tileSource;
      if (abort.signal.aborted) {
        if (owned) tileSource.dispose?.();
        return;
      }
      try {
        added = systems.virtualTextures().add(tileSource, latest.current.options);
        setTexture(added);
      } catch (error) {
        setFailure({ error });
      }
    };
    if (owned) {
      given(abort.signal, systems.runtime).then(add, (error: unknown) => {
        if (!abort.signal.aborted) setFailure({ error });
      });
    } else {
      add(given);
    }
    return () => {
      abort.abort();
      setTexture(null);
      // The provider may have been unmounted first (its systems, and with them this texture, are gone).
      if (added !== null && !added.removed && !systems.disposed) systems.virtualTextures().remove(added);
      if (owned) (opened as TileSource | null)?.dispose?.();
    };
  }, [systems, sourceKey, ...deps]);

  if (failure !== null) throw failure.error;
  return texture;
}

/**
 * The TSL node sampling `vt` (`virtualTexture(vt, uvNode, options)`), made once per texture, uv
 * node and option values, for a node material's `colorNode` (or any other input).
 * @param uvNode - the uv node (default the mesh's `uv()`); keep its identity stable (`useMemo`).
 * @returns null while `vt` is null.
 * @throws TesseraError('unknown-texture') for a texture already removed; TesseraConfigError for a
 *   bad option (see `virtualTexture`).
 */
export function useVirtualTextureNode(
  vt: VirtualTexture | null,
  uvNode?: Node<'vec2'>,
  options: VirtualTextureSampleOptions = {},
): VirtualTextureSampleNode | null {
  const { uvSpace, lodBias, flipY } = options;
  return useMemo(
    () => (vt === null ? null : virtualTexture(vt, uvNode, { uvSpace, lodBias, flipY })),
    [vt, uvNode, uvSpace, lodBias, flipY],
  );
}

/**
 * Opens an imagery pyramid: `signal` aborts when the component unmounts first; `runtime` is the
 * provider's, to give the pyramid's opener (`{ runtime }`).
 */
export type ImageryPyramidOpener = (signal: AbortSignal, runtime: TesseraRuntime) => Promise<ImageryPyramid>;

/**
 * Imagery people already have (a COG, PMTiles, XYZ tiles, IIIF, Deep Zoom) as a virtual texture:
 * `open` gives the pyramid (`openCogPyramid(url)`, `openXyzPyramid(...)` from
 * `@tessera-vt/tessera/imagery`), the hook wraps it in an `ImageryTileSource` that cuts pages at
 * the system's page geometry, adds it, and at unmount removes it and disposes the source and its
 * pyramid. As {@link useVirtualTexture} with an opener.
 *
 * ```tsx
 * const earth = useImagery((signal, runtime) => openCogPyramid('/earth.tif', { runtime }));
 * ```
 * @param deps - what `open` depends on; a change opens again (default: nothing).
 * @param options - options of the `ImageryTileSource` (region, colour space, cache bytes).
 * @returns the texture, or null while the pyramid opens.
 * @throws (to the nearest error boundary) `open`'s rejection and the `ImageryTileSource`
 *   constructor's and `VirtualTextureSystem.add`'s errors.
 */
export function useImagery(
  open: ImageryPyramidOpener,
  deps: DependencyList = [],
  options: ImageryTileSourceOptions = {},
): VirtualTexture | null {
  const latest = useRef({ open, options });
  latest.current = { open, options };
  const opener = useMemo<TileSourceOpener>(
    () => async (signal, runtime) => {
      const pyramid = await latest.current.open(signal, runtime);
      try {
        signal.throwIfAborted();
        return new ImageryTileSource(pyramid, latest.current.options);
      } catch (error) {
        pyramid.dispose?.();
        throw error;
      }
    },
    [],
  );
  return useVirtualTexture(opener, deps);
}
