import {
  choosePoolFormat,
  type PoolFormatChoice,
  type UastcTarget,
} from '../../core/vt/residency/pool-format';
import type { BackendBridge } from '../backend-bridge';
import { renderedPoolFormat } from '../page-producers';
import type { VirtualTexturePoolLayer } from '../virtual-texture';
import { compressionSupportOf } from './compression-support';

/** One pool layer's format choice, and whether its UASTC tiles are transcoded with alpha. */
export interface PoolLayerChoice extends PoolFormatChoice {
  alpha: boolean;
}

/** Devices already warned that they offer no block format (one warning per device or context). */
const warned = new WeakSet<object>();

/**
 * The pool format of every layer of a system, chosen once from the renderer's device (see
 * `choosePoolFormat`). Warns once per device when a UASTC layer finds no compressed format and is
 * decoded to rgba8 (4x the memory per page).
 * @throws TesseraConfigError('invalid-option') for a forced target the device lacks.
 */
export function choosePoolFormats(
  bridge: BackendBridge,
  layers: readonly VirtualTexturePoolLayer[],
  allowed: readonly UastcTarget[] | undefined,
): PoolLayerChoice[] {
  const support = compressionSupportOf(bridge, allowed);
  const choices = layers.map((layer) => {
    const usage = layer.usage ?? 'color';
    const alpha = usage === 'color' && layer.alpha !== false;
    const compressed = renderedPoolFormat(bridge, layer.rendered, layer.format, support);
    if (compressed !== null) return { ...compressed, alpha };
    return { ...choosePoolFormat(layer.format, usage, support, layer.target), alpha };
  });
  const key = (bridge.device ?? bridge.gl) as object;
  if (choices.some((choice) => choice.fellBack) && !warned.has(key)) {
    warned.add(key);
    console.warn(
      'tessera: the device offers no block-compressed format for UASTC layers (BC7, ASTC 4x4, ETC2, BC5, EAC); decoding them to rgba8 (4x the memory per page)',
    );
  }
  return choices;
}
