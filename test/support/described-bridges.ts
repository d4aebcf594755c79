import type { BackendBridge } from '../../src/three/backend-bridge';

/**
 * Backend bridges described by the members the format checks read: `device.features` (WebGPU),
 * `gl.getExtension` / `gl.getSupportedExtensions` (WebGL2). SwiftShader's device has every block
 * feature and three asks for all of them, so a device or context lacking one can only be described.
 */
export function webgpuWith(...features: string[]): BackendBridge {
  return { device: { features: new Set(features) }, gl: null } as unknown as BackendBridge;
}

/** A WebGL2 bridge whose context has exactly `extensions`. */
export function webglWith(...extensions: string[]): BackendBridge {
  const gl = {
    getExtension: (name: string) => (extensions.includes(name) ? {} : null),
    getSupportedExtensions: () => extensions,
  };
  return { device: null, gl } as unknown as BackendBridge;
}
