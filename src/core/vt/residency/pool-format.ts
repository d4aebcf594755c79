import type { TextureFormatName } from '../../budget/texture-format';
import { TesseraConfigError } from '../../errors';
import { tileLayerBytes } from '../tile-bytes';
import type { TileEncoding, TileLayerUsage } from '../tile-source';

/**
 * What a UASTC layer is transcoded to: a block format (`bc7`, `astc` = ASTC 4x4, `etc2` = ETC2
 * RGBA8, `bc5`, `eac-rg11`, the last two red and green only) or `rgba8` (decoded texels, the last
 * resort). The names users force a layer's target with.
 */
export type UastcTarget = 'bc7' | 'astc' | 'etc2' | 'bc5' | 'eac-rg11' | 'rgba8';

/** Every {@link UastcTarget}, compressed ones first. */
export const UASTC_TARGETS: readonly UastcTarget[] = ['bc7', 'astc', 'etc2', 'bc5', 'eac-rg11', 'rgba8'];

/** The block-compressed targets a device can sample (a set of {@link UastcTarget} minus `rgba8`). */
export type CompressionSupport = ReadonlySet<Exclude<UastcTarget, 'rgba8'>>;

/** The texel formats a pool texture may have (WebGPU names). */
export type PoolTexelFormat = Extract<
  TextureFormatName,
  | 'rgba8unorm'
  | 'rgba8unorm-srgb'
  | 'bc7-rgba-unorm'
  | 'bc7-rgba-unorm-srgb'
  | 'astc-4x4-unorm'
  | 'astc-4x4-unorm-srgb'
  | 'etc2-rgba8unorm'
  | 'etc2-rgba8unorm-srgb'
  | 'bc5-rg-unorm'
  | 'eac-rg11unorm'
>;

/** Colour layers: best first (BC7 on desktop, ASTC and ETC2 on mobile). */
const COLOR_ORDER: readonly UastcTarget[] = ['bc7', 'astc', 'etc2', 'rgba8'];
/** Normal layers: two-channel formats keep x and y at full precision; four-channel ones still beat rgba8 on size. */
const NORMAL_ORDER: readonly UastcTarget[] = ['bc5', 'eac-rg11', 'bc7', 'astc', 'rgba8'];

/** The pool texel format of `target`, sRGB-encoded when `srgb` (two-channel targets never are). */
export function poolTexelFormatOf(target: UastcTarget, srgb: boolean): PoolTexelFormat {
  switch (target) {
    case 'bc7':
      return srgb ? 'bc7-rgba-unorm-srgb' : 'bc7-rgba-unorm';
    case 'astc':
      return srgb ? 'astc-4x4-unorm-srgb' : 'astc-4x4-unorm';
    case 'etc2':
      return srgb ? 'etc2-rgba8unorm-srgb' : 'etc2-rgba8unorm';
    case 'bc5':
      return 'bc5-rg-unorm';
    case 'eac-rg11':
      return 'eac-rg11unorm';
    default:
      return srgb ? 'rgba8unorm-srgb' : 'rgba8unorm';
  }
}

/** True for the formats holding only red and green (the sampler rebuilds a normal's z). */
export function isTwoChannelFormat(format: PoolTexelFormat): boolean {
  return format === 'bc5-rg-unorm' || format === 'eac-rg11unorm';
}

/** True for a UASTC tile encoding. */
export function isUastcEncoding(encoding: TileEncoding): boolean {
  return encoding === 'uastc-4x4' || encoding === 'uastc-4x4-srgb';
}

/** The choice for one pool layer: its target and the texture format that follows. */
export interface PoolFormatChoice {
  /** What tiles of the layer become (for rgba8 layers: `rgba8`, no transcoding). */
  target: UastcTarget;
  /** Format of the layer's pool texture. */
  format: PoolTexelFormat;
  /** True when a UASTC layer found no compressed format on the device and was decoded to rgba8. */
  fellBack: boolean;
}

/**
 * Chooses the pool format of one layer from what the device supports: an rgba8 layer stays rgba8;
 * a UASTC colour layer takes BC7 > ASTC 4x4 > ETC2 RGBA8 > rgba8 (sRGB variants when the encoding
 * is sRGB); a UASTC normal layer takes BC5 > EAC RG11 > BC7 > ASTC 4x4 > rgba8 (always linear).
 * `forced` picks the target instead (for tests, or to avoid a format).
 * @throws TesseraConfigError('invalid-option') when `forced` is not supported by the device, is
 *   given for an rgba8 layer, or is a two-channel target for a colour layer (blue and alpha would
 *   be lost).
 */
export function choosePoolFormat(
  encoding: TileEncoding,
  usage: TileLayerUsage,
  support: CompressionSupport,
  forced?: UastcTarget,
): PoolFormatChoice {
  const srgb = encoding === 'rgba8unorm-srgb' || encoding === 'uastc-4x4-srgb';
  if (!isUastcEncoding(encoding)) {
    if (forced !== undefined && forced !== 'rgba8') {
      throw new TesseraConfigError(
        'invalid-option',
        `target '${forced}' needs a UASTC layer, not ${encoding}`,
      );
    }
    return { target: 'rgba8', format: poolTexelFormatOf('rgba8', srgb), fellBack: false };
  }
  // Normal maps are data: never sRGB, whatever the encoding says.
  const linear = usage === 'normal' ? false : srgb;
  if (forced !== undefined) {
    if (!UASTC_TARGETS.includes(forced)) {
      throw new TesseraConfigError('invalid-option', `unknown UASTC target '${String(forced)}'`);
    }
    if (forced !== 'rgba8' && !support.has(forced)) {
      throw new TesseraConfigError('invalid-option', `the device cannot sample target '${forced}'`);
    }
    if (usage === 'color' && (forced === 'bc5' || forced === 'eac-rg11')) {
      throw new TesseraConfigError(
        'invalid-option',
        `target '${forced}' keeps only red and green; a colour layer needs four channels`,
      );
    }
    return { target: forced, format: poolTexelFormatOf(forced, linear), fellBack: false };
  }
  for (const target of usage === 'normal' ? NORMAL_ORDER : COLOR_ORDER) {
    if (target === 'rgba8' || support.has(target)) {
      return { target, format: poolTexelFormatOf(target, linear), fellBack: target === 'rgba8' };
    }
  }
  return { target: 'rgba8', format: poolTexelFormatOf('rgba8', linear), fellBack: true };
}

/** Bytes of one pool slot holding a `tileSize²` tile in each layer's chosen format, in bytes. */
export function slotBytesOfFormats(formats: readonly PoolFormatChoice[], tileSize: number): number {
  let total = 0;
  for (const choice of formats) total += tileLayerBytes(choice.format, tileSize);
  return total;
}
