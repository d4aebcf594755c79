/** Creates the demo's WebGPURenderer on the backend the URL asks for. */

import { WebGPURenderer } from 'three/webgpu';
import type { BackendChoice, DemoParams } from './params';

/** The backend a renderer actually runs on. */
export type ActiveBackend = 'webgpu' | 'webgl';

/** A ready renderer and the backend it ended up on. */
export interface DemoRenderer {
  renderer: WebGPURenderer;
  backend: ActiveBackend;
}

/** True when the renderer runs on three's WebGPU backend (not the WebGL2 fallback). */
export function isWebGPUBackend(renderer: WebGPURenderer): boolean {
  return (renderer.backend as { isWebGPUBackend?: boolean }).isWebGPUBackend === true;
}

/**
 * WebGPU by default; when the browser has no usable adapter, three's WebGPURenderer falls back to
 * WebGL2 by itself. A forced backend (`?backend=webgpu`) that cannot be had is an error, not a
 * silent fallback, so a test never runs on something other than what it claims.
 */
export async function createDemoRenderer(params: DemoParams, parent: HTMLElement): Promise<DemoRenderer> {
  const choice: BackendChoice = params.backend;
  const hasWebGPU = typeof navigator !== 'undefined' && 'gpu' in navigator;
  const renderer = new WebGPURenderer({
    forceWebGL: choice === 'webgl' || (choice === 'auto' && !hasWebGPU),
    antialias: false,
    // GPU timings for the HUD and demo.stats() (demo/gpu-timings.ts); three turns it off itself
    // where the device has no timestamp queries.
    trackTimestamp: true,
  });
  renderer.setPixelRatio(params.size ? 1 : Math.min(devicePixelRatio, 2));
  if (params.size) renderer.setSize(params.size.width, params.size.height);
  else renderer.setSize(innerWidth, innerHeight);
  parent.appendChild(renderer.domElement);
  await renderer.init();
  const backend: ActiveBackend = isWebGPUBackend(renderer) ? 'webgpu' : 'webgl';
  if (choice !== 'auto' && choice !== backend) {
    throw new Error(`?backend=${choice} was asked for but only ${backend} could be initialised`);
  }
  return { renderer, backend };
}
