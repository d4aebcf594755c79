import {
  type CompressionSupport,
  poolTexelFormatOf,
  type UastcTarget,
} from '../../core/vt/residency/pool-format';
import type { BackendBridge } from '../backend-bridge';
import { blockFormatEntry } from './block-formats';

type CompressedTarget = Exclude<UastcTarget, 'rgba8'>;

const COMPRESSED_TARGETS: readonly CompressedTarget[] = ['bc7', 'astc', 'etc2', 'bc5', 'eac-rg11'];

/**
 * The block formats the renderer's device can sample, read once: WebGPU adapter features
 * (three's WebGPURenderer requests every feature the adapter offers) or WebGL2 extensions, as the
 * shared table (`block-formats.ts`) gives them for each target's pool format:
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
  const features = bridge.device?.features ?? null;
  const extensions =
    features === null && bridge.gl !== null ? new Set(bridge.gl.getSupportedExtensions() ?? []) : null;
  for (const target of COMPRESSED_TARGETS) {
    if (allowed !== undefined && !allowed.includes(target)) continue;
    // The linear pool format: its sRGB variant (BC7, ASTC, ETC2) needs the same feature or extension.
    const entry = blockFormatEntry(poolTexelFormatOf(target, false));
    if (entry === undefined) continue;
    const supported =
      features !== null
        ? features.has(entry.feature)
        : extensions !== null && entry.glExtensions.some((name) => extensions.has(name));
    if (supported) found.add(target);
  }
  return found;
}
