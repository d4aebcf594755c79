import { WebGPURenderer } from 'three/webgpu';

/** The backend a test page was asked for through `?backend=webgpu|webgl`. */
export function requestedBackend(): 'webgpu' | 'webgl' {
  return new URLSearchParams(location.search).get('backend') === 'webgl' ? 'webgl' : 'webgpu';
}

/**
 * Creates and initialises a WebGPURenderer on the requested backend, and fails loudly if three
 * silently fell back to WebGL2 when WebGPU was asked for (a test must run on what it claims).
 */
export async function createTestRenderer(width: number, height: number): Promise<WebGPURenderer> {
  const backend = requestedBackend();
  const renderer = new WebGPURenderer({ forceWebGL: backend === 'webgl', antialias: false });
  renderer.setPixelRatio(1);
  renderer.setSize(width, height);
  document.body.appendChild(renderer.domElement);
  await renderer.init();
  const isWebGPU = (renderer.backend as { isWebGPUBackend?: boolean }).isWebGPUBackend === true;
  if (isWebGPU !== (backend === 'webgpu')) {
    throw new Error(
      `asked for the ${backend} backend but three initialised ${isWebGPU ? 'WebGPU' : 'WebGL2'}`,
    );
  }
  return renderer;
}

/** The GPUDevice of a renderer on the WebGPU backend (undefined on WebGL2). */
export function gpuDevice(renderer: WebGPURenderer): GPUDevice | undefined {
  return (renderer.backend as { device?: GPUDevice }).device;
}
