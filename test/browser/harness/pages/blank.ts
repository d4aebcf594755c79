import { DataTexture } from 'three';
import { createTestRenderer, gpuDevice } from '../../support/renderer';

// A renderer on the requested backend, exposed for tests that plant faults or allocate directly.
const renderer = await createTestRenderer(32, 32);
Object.assign(globalThis, { harness: { renderer, device: gpuDevice(renderer), DataTexture } });
document.title = 'ready';

/** What the page exposes as `globalThis.harness` (typed for the specs). */
export interface BlankHarness {
  renderer: typeof renderer;
  device: GPUDevice | undefined;
  DataTexture: typeof DataTexture;
}
