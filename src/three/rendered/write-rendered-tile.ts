import type { Texture } from 'three';
import type { BackendBridge } from '../backend-bridge';
import { type SlotOrigin, slotOrigin } from '../residency/pool-copy';
import type { PoolTextures } from '../residency/pool-textures';

/*
 * The one place a rendered tile reaches its pool slot: a GPU-side copy of the whole tile-sized
 * render target into the slot of one pool layer (rgba8 pools: the format differs at most in its
 * sRGB-ness, which both backends copy as is). A block-compressed pool cannot be a copy target of
 * a render target; a GPU block encoder writing blocks into the slot is the second implementation
 * of this function (same arguments), not a change to its callers.
 */

const to: SlotOrigin = { x: 0, y: 0, layer: 0 };
const copySize = { width: 0, height: 0, depthOrArrayLayers: 1 };
const source: GPUTexelCopyTextureInfo = { texture: null as unknown as GPUTexture };
const destination: GPUTexelCopyTextureInfo = {
  texture: null as unknown as GPUTexture,
  origin: { x: 0, y: 0, z: 0 },
};

/**
 * Copies `target` (a tile-sized render target's texture, rendered rows top to bottom in the
 * pool's orientation) into `slot` of pool layer `layer`, on the GPU. Returns false when either
 * texture has no GPU object yet (nothing copied). `readFramebuffer`: the caller's framebuffer
 * for reading the target on WebGL2 (unused on WebGPU).
 */
export function writeRenderedTile(
  bridge: BackendBridge,
  target: Texture,
  pool: PoolTextures,
  layer: number,
  slot: number,
  readFramebuffer: WebGLFramebuffer | null,
): boolean {
  const tile = pool.shape.tileSize;
  slotOrigin(pool.shape, slot, to);
  if (bridge.device !== null) {
    const src = bridge.gpuTexture(target);
    const dst = bridge.gpuTexture(pool.textures[layer]);
    if (src === undefined || dst === undefined) return false;
    const encoder = bridge.device.createCommandEncoder({ label: 'tessera:rendered-tile' });
    source.texture = src;
    destination.texture = dst;
    const origin = destination.origin as GPUOrigin3DDict;
    origin.x = to.x;
    origin.y = to.y;
    origin.z = to.layer;
    copySize.width = tile;
    copySize.height = tile;
    encoder.copyTextureToTexture(source, destination, copySize);
    bridge.device.queue.submit([encoder.finish()]);
    return true;
  }
  const gl = bridge.gl as WebGL2RenderingContext;
  const src = bridge.glTexture(target);
  const dst = bridge.glTexture(pool.textures[layer]);
  if (src === undefined || dst === undefined) return false;
  bridge.bindReadFramebuffer(readFramebuffer);
  gl.framebufferTexture2D(gl.READ_FRAMEBUFFER, gl.COLOR_ATTACHMENT0, gl.TEXTURE_2D, src, 0);
  if (pool.shape.arrayLayers > 1) {
    bridge.bindTexture(gl.TEXTURE_2D_ARRAY, dst);
    gl.copyTexSubImage3D(gl.TEXTURE_2D_ARRAY, 0, to.x, to.y, to.layer, 0, 0, tile, tile);
  } else {
    bridge.bindTexture(gl.TEXTURE_2D, dst);
    gl.copyTexSubImage2D(gl.TEXTURE_2D, 0, to.x, to.y, 0, 0, tile, tile);
  }
  bridge.bindReadFramebuffer(null);
  return true;
}
