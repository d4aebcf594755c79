import type { Texture } from 'three';
import type { PoolShape } from '../../core/vt/residency/pool-shape';
import type { BackendBridge } from '../backend-bridge';
import type { PoolTextures } from './pool-textures';

/*
 * GPU-side copies of pool slots from one set of pool textures into another of a different shape
 * (a pool resize), so surviving pages never travel back to the CPU. Generic over the texture's
 * format: WebGPU copies texture to texture (any format, block-compressed ones included, as tiles
 * are block-aligned); WebGL2 reads the old texture through a framebuffer with `copyTexSubImage`,
 * which needs a colour-renderable format (rgba8, sRGB or not), so compressed pools cannot be
 * copied there (see canCopyPoolSlots).
 */

/** Texel origin and array layer of one slot. */
export interface SlotOrigin {
  x: number;
  y: number;
  layer: number;
}

/** Where `slot` lies in a pool of `shape`, into `out`. */
export function slotOrigin(shape: PoolShape, slot: number, out: SlotOrigin): SlotOrigin {
  const perGrid = shape.slotsPerRow * shape.slotRows;
  out.layer = Math.floor(slot / perGrid);
  const inGrid = slot - out.layer * perGrid;
  out.x = (inGrid % shape.slotsPerRow) * shape.tileSize;
  out.y = Math.floor(inGrid / shape.slotsPerRow) * shape.tileSize;
  return out;
}

/** True when the backend can copy slots of `textures` GPU-side. */
export function canCopyPoolSlots(bridge: BackendBridge, textures: PoolTextures): boolean {
  if (bridge.isWebGPU) return true;
  for (const texture of textures.textures) {
    const flags = texture as Texture & { isCompressedTexture?: boolean; isCompressedArrayTexture?: boolean };
    if (flags.isCompressedTexture === true || flags.isCompressedArrayTexture === true) return false;
  }
  return true;
}

const from: SlotOrigin = { x: 0, y: 0, layer: 0 };
const to: SlotOrigin = { x: 0, y: 0, layer: 0 };

/**
 * Copies every slot `s` of `source` with `newSlotOf[s] >= 0` into slot `newSlotOf[s]` of
 * `target`, every layer. Both must have the same tile size and layer formats.
 */
export function copyPoolSlots(
  bridge: BackendBridge,
  source: PoolTextures,
  target: PoolTextures,
  newSlotOf: Int32Array,
): void {
  const tile = source.shape.tileSize;
  if (bridge.device !== null) {
    const device = bridge.device;
    const encoder = device.createCommandEncoder({ label: 'tessera:pool-resize' });
    const size = { width: tile, height: tile, depthOrArrayLayers: 1 };
    for (let layer = 0; layer < source.textures.length; layer++) {
      const src = bridge.gpuTexture(source.textures[layer]);
      const dst = bridge.gpuTexture(target.textures[layer]);
      if (src === undefined || dst === undefined) continue;
      for (let s = 0; s < newSlotOf.length; s++) {
        if (newSlotOf[s] < 0) continue;
        slotOrigin(source.shape, s, from);
        slotOrigin(target.shape, newSlotOf[s], to);
        encoder.copyTextureToTexture(
          { texture: src, origin: { x: from.x, y: from.y, z: from.layer } },
          { texture: dst, origin: { x: to.x, y: to.y, z: to.layer } },
          size,
        );
      }
    }
    device.queue.submit([encoder.finish()]);
    return;
  }
  const gl = bridge.gl as WebGL2RenderingContext;
  const framebuffer = gl.createFramebuffer();
  bridge.bindReadFramebuffer(framebuffer);
  const sourceArray = source.shape.arrayLayers > 1;
  const targetArray = target.shape.arrayLayers > 1;
  for (let layer = 0; layer < source.textures.length; layer++) {
    const src = bridge.glTexture(source.textures[layer]);
    const dst = bridge.glTexture(target.textures[layer]);
    if (src === undefined || dst === undefined) continue;
    bridge.bindTexture(targetArray ? gl.TEXTURE_2D_ARRAY : gl.TEXTURE_2D, dst);
    let attachedLayer = -1;
    for (let s = 0; s < newSlotOf.length; s++) {
      if (newSlotOf[s] < 0) continue;
      slotOrigin(source.shape, s, from);
      slotOrigin(target.shape, newSlotOf[s], to);
      if (attachedLayer !== from.layer) {
        attachedLayer = from.layer;
        if (sourceArray) {
          gl.framebufferTextureLayer(gl.READ_FRAMEBUFFER, gl.COLOR_ATTACHMENT0, src, 0, from.layer);
        } else {
          gl.framebufferTexture2D(gl.READ_FRAMEBUFFER, gl.COLOR_ATTACHMENT0, gl.TEXTURE_2D, src, 0);
        }
      }
      if (targetArray) {
        gl.copyTexSubImage3D(gl.TEXTURE_2D_ARRAY, 0, to.x, to.y, to.layer, from.x, from.y, tile, tile);
      } else {
        gl.copyTexSubImage2D(gl.TEXTURE_2D, 0, to.x, to.y, from.x, from.y, tile, tile);
      }
    }
  }
  bridge.bindReadFramebuffer(null);
  gl.deleteFramebuffer(framebuffer);
}
