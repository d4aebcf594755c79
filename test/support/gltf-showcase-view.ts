/**
 * How the pages view the showcase scene (gltf-showcase-scene.ts) and what the fidelity page
 * (test/browser/gltf/pages/gltf-fidelity.ts) reports: browser-safe, unlike the scene's writer.
 */

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

/** What the page reports of one streamed run. */
export interface StreamRun {
  frames: number;
  /** Frame `whenSettled()` resolved with, -1 when it did not within the run. */
  settledAt: number;
  firstTexturedFrame: number;
  overBudgetFrames: number;
  /** Render pipelines (WebGPU) created from the first textured frame to the settled one. */
  pipelinesAfterFirstFrame: number;
  gpuBytes: number;
  textures: {
    name: string;
    format: string;
    mip: number;
    label: string;
    channel: number;
    repeat: number[];
    offset: number[];
  }[];
}

/** A streamed run compared with three's own render. */
export interface FidelityRun extends StreamRun {
  overall: number;
  perMesh: Record<string, number>;
  maskCounts: number[];
  uses: { use: string; label: string; colorSpace: string }[];
  gl: Record<string, Record<string, number> | null>;
  referenceGl: Record<string, Record<string, number> | null>;
  /** GPU bytes three's own loaders' render added (the independent tracker's count). */
  referenceGpuBytes: number;
}

export type FidelityPage = {
  compare(budget: number): Promise<FidelityRun>;
  stream(budget: number, phase: string): Promise<StreamRun>;
};
