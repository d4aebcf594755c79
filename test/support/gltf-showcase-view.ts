/** How the pages view the showcase scene (gltf-showcase-scene.ts): browser-safe, unlike its writer. */

/** Where the pages put the camera (a perspective camera, vertical fov in degrees). */
export const SHOWCASE_CAMERA = {
  position: [0, 1.7, 6] as const,
  target: [0, 1, -4] as const,
  fov: 50,
  near: 0.1,
  far: 100,
};

/** Mesh names of the scene, as three's GLTFLoader names the objects. */
export const SHOWCASE_MESHES = ['floor', 'sphere', 'crates', 'poster', 'sign'] as const;
