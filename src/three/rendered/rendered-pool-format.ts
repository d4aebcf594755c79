import { TesseraConfigError } from '../../core/errors';
import type { CompressionSupport, PoolFormatChoice } from '../../core/vt/residency/pool-format';
import type { TileEncoding } from '../../core/vt/tile-source';
import type { BackendBridge } from '../backend-bridge';

/** How a pool layer holds rendered pages (`VirtualTexturePoolLayer.rendered`). */
export type RenderedLayerStorage = 'compressed' | 'compressed-rg' | 'rgba8';

/** BC7 modes the GPU compressor tries for a rendered layer (see `GpuTileCompressorOptions.bc7Modes`). */
export type RenderedBc7Modes = 'mode6' | 'mode6+mode1';

/**
 * The default for rendered layers: mode 6 alone. On SwiftShader it compresses ~55 tiles/s against
 * ~12-18 with mode 1 too (docs/gpu-compression.md), and each page is compressed inside its frame's
 * render bound, so both modes make every frame that renders pages several times slower while a
 * view settles; mode 6 stays within 1 dB of any one-subset mode on detailed content.
 */
export const DEFAULT_RENDERED_BC7_MODES: RenderedBc7Modes = 'mode6';

/**
 * The block-compressed pool format of a rendered layer, or null to keep the ordinary choice (rgba8):
 * BC7 (`'compressed'`, sRGB for an sRGB encoding) or BC5 (`'compressed-rg'`) when the renderer is
 * on WebGPU (the compressor is a compute kernel; WebGL2 has none) and the device samples it.
 */
export function renderedPoolFormat(
  bridge: BackendBridge,
  rendered: RenderedLayerStorage | undefined,
  encoding: TileEncoding,
  support: CompressionSupport,
): PoolFormatChoice | null {
  if (rendered !== 'compressed' && rendered !== 'compressed-rg') return null;
  if (bridge.device === null || (encoding !== 'rgba8unorm' && encoding !== 'rgba8unorm-srgb')) return null;
  if (rendered === 'compressed-rg') {
    return support.has('bc5') ? { target: 'bc5', format: 'bc5-rg-unorm', fellBack: false } : null;
  }
  if (!support.has('bc7')) return null;
  const format = encoding === 'rgba8unorm-srgb' ? 'bc7-rgba-unorm-srgb' : 'bc7-rgba-unorm';
  return { target: 'bc7', format, fellBack: false };
}

/**
 * Checks a pool layer's rendered-page options.
 * @throws TesseraConfigError 'invalid-layers' for an unknown `rendered` or `renderedBc7Modes`, or
 *   for `rendered` on a UASTC layer; 'invalid-tile' for a compressed layer whose tile size or
 *   border is not a multiple of 4 (whole blocks).
 */
export function checkRenderedLayerOptions(
  layer: { format: TileEncoding; rendered?: unknown; renderedBc7Modes?: unknown },
  tileSize: number,
  border: number,
): void {
  const { rendered, renderedBc7Modes } = layer;
  if (
    rendered !== undefined &&
    rendered !== 'compressed' &&
    rendered !== 'compressed-rg' &&
    rendered !== 'rgba8'
  ) {
    throw new TesseraConfigError(
      'invalid-layers',
      `rendered must be 'compressed', 'compressed-rg' or 'rgba8', got ${String(rendered)}`,
    );
  }
  if (renderedBc7Modes !== undefined && renderedBc7Modes !== 'mode6' && renderedBc7Modes !== 'mode6+mode1') {
    throw new TesseraConfigError(
      'invalid-layers',
      `renderedBc7Modes must be 'mode6' or 'mode6+mode1', got ${String(renderedBc7Modes)}`,
    );
  }
  if (rendered !== undefined && layer.format !== 'rgba8unorm' && layer.format !== 'rgba8unorm-srgb') {
    throw new TesseraConfigError(
      'invalid-layers',
      `rendered pages need an rgba8 layer encoding, not ${layer.format}`,
    );
  }
  if (
    (rendered === 'compressed' || rendered === 'compressed-rg') &&
    (tileSize % 4 !== 0 || border % 4 !== 0)
  ) {
    throw new TesseraConfigError(
      'invalid-tile',
      `compressed rendered layers need a tile size and border that are multiples of 4, got ${tileSize}/${border}`,
    );
  }
}

/**
 * Checks that a source that does not render (its tiles are bytes) maps no layer onto a pool layer
 * reserved for rendered pages (`rendered` set), whose format may be a block format it cannot write.
 * @throws TesseraConfigError('invalid-layers') naming the layer.
 */
export function checkNoRenderedLayer(
  textureName: string,
  poolLayerSource: Int8Array,
  poolLayers: readonly { name: string; rendered?: RenderedLayerStorage }[],
): void {
  for (let l = 0; l < poolLayerSource.length; l++) {
    if (poolLayerSource[l] >= 0 && poolLayers[l].rendered !== undefined) {
      throw new TesseraConfigError(
        'invalid-layers',
        `'${textureName}' is not a RenderedTileSource: pool layer '${poolLayers[l].name}' holds rendered pages only`,
      );
    }
  }
}
