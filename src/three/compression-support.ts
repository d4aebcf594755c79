import type { CompressionSupport, UastcTarget } from '../core/vt/pool-format';
import type { BackendBridge } from './backend-bridge';

type CompressedTarget = Exclude<UastcTarget, 'rgba8'>;

/**
 * The block formats the renderer's device can sample, read once: WebGPU adapter features
 * (three's WebGPURenderer requests every feature the adapter offers) or WebGL2 extensions.
 * - `texture-compression-bc`: BC7 and BC5; WebGL2 `EXT_texture_compression_bptc` (BC7),
 *   `EXT_texture_compression_rgtc` (BC5).
 * - `texture-compression-astc` / `WEBGL_compressed_texture_astc`: ASTC 4x4 (LDR).
 * - `texture-compression-etc2` / `WEBGL_compressed_texture_etc`: ETC2 RGBA8 and EAC RG11.
 * `allowed` (default: every target) restricts the result, e.g. to keep a driver off a format.
 */
export function compressionSupportOf(
  bridge: BackendBridge,
  allowed?: readonly UastcTarget[],
): CompressionSupport {
  const found = new Set<CompressedTarget>();
  if (bridge.device !== null) {
    const features = bridge.device.features;
    if (features.has('texture-compression-bc')) {
      found.add('bc7');
      found.add('bc5');
    }
    if (features.has('texture-compression-astc')) found.add('astc');
    if (features.has('texture-compression-etc2')) {
      found.add('etc2');
      found.add('eac-rg11');
    }
  } else if (bridge.gl !== null) {
    const extensions = new Set(bridge.gl.getSupportedExtensions() ?? []);
    if (extensions.has('EXT_texture_compression_bptc')) found.add('bc7');
    if (extensions.has('EXT_texture_compression_rgtc')) found.add('bc5');
    if (extensions.has('WEBGL_compressed_texture_astc')) found.add('astc');
    if (extensions.has('WEBGL_compressed_texture_etc')) {
      found.add('etc2');
      found.add('eac-rg11');
    }
  }
  if (allowed !== undefined)
    for (const target of [...found]) if (!allowed.includes(target)) found.delete(target);
  return found;
}
