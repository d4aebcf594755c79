/**
 * What the demo's scene would need with plain three.js textures: every texture fully resident at
 * full resolution with its whole mip chain (as `TextureLoader` / `KTX2Loader` keep it), and the
 * terrain, which Tessera streams from a virtual texture larger than any GPU texture, as the largest
 * texture the device allows, one per terrain layer (albedo, normal), in rgba8.
 */

import type { WebGPURenderer } from 'three/webgpu';

/** The plain three.js figures, bytes. */
export interface PlainThreeEstimate {
  /** Edge of the largest 2D texture the device allows, texels. */
  maxTextureDimension: number;
  /** Terrain layers (albedo, normal), one maximal texture each. */
  terrainLayers: number;
  /** The terrain's layers, each one maximal rgba8 texture with mips, bytes. */
  terrainBytes: number;
  /** The active region's prop textures, fully resident, bytes. */
  propBytes: number;
  /** Their sum, bytes. */
  totalBytes: number;
}

/** Bytes of a square rgba8 texture of `edge` texels with its full mip chain. */
export function rgba8ChainBytes(edge: number): number {
  let bytes = 0;
  for (let e = edge; e >= 1; e >>= 1) bytes += e * e * 4;
  return bytes;
}

/**
 * The estimate for a terrain of `terrainLayers` layers on a device allowing `maxTextureDimension`
 * texels per edge, plus `propBytes` of prop textures fully resident.
 */
export function plainThreeEstimate(
  maxTextureDimension: number,
  terrainLayers: number,
  propBytes: number,
): PlainThreeEstimate {
  const terrainBytes = terrainLayers * rgba8ChainBytes(maxTextureDimension);
  return {
    maxTextureDimension,
    terrainLayers,
    terrainBytes,
    propBytes,
    totalBytes: terrainBytes + propBytes,
  };
}

/** `maxTextureDimension2D` of the renderer's device (WebGPU limits, or WebGL2 `MAX_TEXTURE_SIZE`). */
export function maxTextureDimensionOf(renderer: WebGPURenderer): number {
  const backend = renderer.backend as {
    device?: GPUDevice;
    gl?: WebGL2RenderingContext;
  };
  if (backend.device) return backend.device.limits.maxTextureDimension2D;
  if (backend.gl) return backend.gl.getParameter(backend.gl.MAX_TEXTURE_SIZE) as number;
  return 8192;
}
