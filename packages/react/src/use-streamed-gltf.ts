import { registerGltfTextureStreaming, type TextureStreamingSystem } from '@tessera-vt/tessera';
import type { GltfTextureStreaming } from '@tessera-vt/tessera/three';
import { use, useEffect } from 'react';
import type { Material, Mesh, Object3D } from 'three';
import { type GLTF, GLTFLoader } from 'three/addons/loaders/GLTFLoader.js';
import { useTessera } from './tessera-provider.js';
import type { TesseraSystems } from './tessera-systems.js';

/** Options of {@link useStreamedGLTF}. */
export interface StreamedGLTFOptions {
  /**
   * Lifetime tag of the scene's textures (scene transitions and the stale sweep treat a tag as
   * one scene; see `GltfTextureStreamingOptions.tag`). Default `gltf:<url>`.
   */
  tag?: string;
}

/** One load of a URL under one tag: its promise, and the mounted components using it. */
interface GltfEntry {
  readonly promise: Promise<GLTF>;
  gltf: GLTF | null;
  users: number;
  /** A release waiting for the end of the current task (see `release`). */
  releasePending: boolean;
}

/** Per streaming system: one loader registration per tag, and the loads by tag and URL. */
interface SystemGltfCache {
  readonly registrations: Map<string, GltfTextureStreaming>;
  readonly entries: Map<string, GltfEntry>;
}

// Keyed by the streaming system, so that a provider's unmount (its system disposed and dropped)
// drops its loads with it.
const caches = new WeakMap<TextureStreamingSystem, SystemGltfCache>();

function cacheOf(streaming: TextureStreamingSystem): SystemGltfCache {
  let cache = caches.get(streaming);
  if (cache === undefined) {
    cache = { registrations: new Map(), entries: new Map() };
    caches.set(streaming, cache);
  }
  return cache;
}

function entryFor(streaming: TextureStreamingSystem, url: string, tag: string): GltfEntry {
  const cache = cacheOf(streaming);
  const key = `${tag}\n${url}`;
  let entry = cache.entries.get(key);
  if (entry === undefined) {
    let registration = cache.registrations.get(tag);
    if (registration === undefined) {
      // One loader per tag: a registration's tag is read when a parse starts, so loads under
      // different tags must not share one.
      registration = registerGltfTextureStreaming(new GLTFLoader(), streaming, { tag });
      cache.registrations.set(tag, registration);
    }
    const created: GltfEntry = {
      promise: registration.load(url),
      gltf: null,
      users: 0,
      releasePending: false,
    };
    created.promise.then(
      (gltf) => {
        created.gltf = gltf;
      },
      // A failed load is not kept: the next render (after an error boundary's reset) loads again.
      () => cache.entries.delete(key),
    );
    cache.entries.set(key, created);
    entry = created;
  }
  return entry;
}

/**
 * Frees a loaded glTF: its streamed textures leave the budget (unless the provider's systems are
 * already gone, which freed them), its geometries and materials the GPU (the renderer may outlive
 * the provider).
 */
function disposeGltf(
  systems: TesseraSystems,
  streaming: TextureStreamingSystem,
  registration: GltfTextureStreaming,
  gltf: GLTF,
): void {
  for (const root of gltf.scenes) {
    if (!systems.disposed) {
      for (const texture of registration.texturesOf(root)) {
        if (!texture.released) streaming.remove(texture);
      }
    }
    root.traverse((object: Object3D) => {
      const mesh = object as Mesh;
      if (mesh.isMesh !== true) return;
      mesh.geometry.dispose();
      const materials: Material[] = Array.isArray(mesh.material) ? mesh.material : [mesh.material];
      for (const material of materials) material.dispose();
    });
  }
}

/**
 * Loads a glTF scene with three's `GLTFLoader` and Tessera's glTF plugin
 * (`registerGltfTextureStreaming`): every material texture streams under the provider's budget,
 * level by level as the meshes' screen size needs. Like drei's `useGLTF`, it suspends the
 * component until the file is loaded (wrap it in `<Suspense>`) and returns three's `GLTF`; use
 * `gltf.scene` in a `<primitive object={gltf.scene} />`. Components asking for the same URL and tag
 * under one provider share one load, hence one scene object (clone it to show it twice, as with
 * `useGLTF`). When the last of them unmounts, the scene's streamed textures are removed from the
 * streaming system (their bytes return to the budget) and its geometries and materials disposed;
 * a later mount loads the file again.
 *
 * ```tsx
 * function Valley() {
 *   const gltf = useStreamedGLTF('/valley.glb');
 *   return <primitive object={gltf.scene} />;
 * }
 * <Suspense fallback={null}><Valley /></Suspense>
 * ```
 * The file itself is downloaded through the runtime's network client (retries of transient
 * failures, `GltfTextureStreaming.load`).
 * @throws (to the nearest error boundary) the load's errors: TileSourceError `http-status`,
 *   `network`, `timeout`; the loader's own for a file it cannot parse.
 */
export function useStreamedGLTF(url: string, options: StreamedGLTFOptions = {}): GLTF {
  const systems = useTessera();
  const streaming = systems.streaming();
  const tag = options.tag ?? `gltf:${url}`;
  const entry = entryFor(streaming, url, tag);
  const gltf = use(entry.promise);

  useEffect(() => {
    entry.users++;
    entry.releasePending = false;
    return () => {
      entry.users--;
      if (entry.users > 0 || entry.releasePending) return;
      // Deferred to the end of the task: React's StrictMode unmounts and mounts effects again at
      // once, and the same component then still uses this scene.
      entry.releasePending = true;
      queueMicrotask(() => {
        if (!entry.releasePending || entry.users > 0) return;
        entry.releasePending = false;
        const cache = caches.get(streaming);
        const key = `${tag}\n${url}`;
        if (cache?.entries.get(key) === entry) cache.entries.delete(key);
        const registration = cache?.registrations.get(tag);
        if (registration === undefined || entry.gltf === null) return;
        disposeGltf(systems, streaming, registration, entry.gltf);
      });
    };
  }, [entry, streaming, systems, tag, url]);

  return gltf;
}
