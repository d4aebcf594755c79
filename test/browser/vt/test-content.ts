import type { TileData, TileSource, TileSourceInfo } from '../../../src/core/vt/tile-source';

/**
 * Deterministic test content of a virtual texture: the colour of every texel of every mip is a
 * closed-form function, so the expected colour of any rendered pixel can be computed.
 *
 * Texel (tx, ty) of mip `m` is addressed in that mip's payload texels (page p covers
 * [p * payload, (p + 1) * payload)). Fine detail (periods of 11-13 texels) shows misplaced or
 * wrongly filtered texels; the blue channel varies with position and mip, so a tile from the wrong
 * place or the wrong mip is visible too.
 */
export function contentByte(channel: number, mip: number, tx: number, ty: number): number {
  let v: number;
  if (channel === 0) v = 128 + 100 * Math.sin((2 * Math.PI * tx) / 13);
  else if (channel === 1) v = 128 + 100 * Math.sin((2 * Math.PI * ty) / 11);
  else v = 128 + 100 * Math.sin(2 * Math.PI * (tx / 97 + ty / 61) + 1.7 * mip);
  return Math.round(v);
}

/** sRGB byte to linear (0..1). */
export function srgbToLinear(byte: number): number {
  const c = byte / 255;
  return c <= 0.04045 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
}

/** Linear (0..1) to an sRGB value in 0..255 (not rounded). */
export function linearToSrgb(value: number): number {
  const c = Math.min(1, Math.max(0, value));
  return 255 * (c <= 0.0031308 ? c * 12.92 : 1.055 * c ** (1 / 2.4) - 0.055);
}

const LINEAR = new Float64Array(256);
for (let i = 0; i < 256; i++) LINEAR[i] = srgbToLinear(i);
/** Bytes read as unorm (a linear data layer, e.g. a normal map): byte / 255. */
export const UNORM = new Float64Array(256);
for (let i = 0; i < 256; i++) UNORM[i] = i / 255;

/**
 * Linear value of `channel` bilinearly filtered at continuous texel position (x, y) of mip `mip`
 * (texel centres at integer + 0.5), clamped to the mip's edges as the pool borders are; bytes
 * decoded through `decode` (default sRGB; {@link UNORM} for a linear data layer).
 */
export function bilinearLinear(
  channel: number,
  mip: number,
  x: number,
  y: number,
  levelWidth: number,
  levelHeight: number,
  decode: Float64Array = LINEAR,
): number {
  const fx = x - 0.5;
  const fy = y - 0.5;
  const x0 = Math.floor(fx);
  const y0 = Math.floor(fy);
  const ax = fx - x0;
  const ay = fy - y0;
  const cx0 = Math.min(levelWidth - 1, Math.max(0, x0));
  const cx1 = Math.min(levelWidth - 1, Math.max(0, x0 + 1));
  const cy0 = Math.min(levelHeight - 1, Math.max(0, y0));
  const cy1 = Math.min(levelHeight - 1, Math.max(0, y0 + 1));
  const v00 = decode[contentByte(channel, mip, cx0, cy0)];
  const v10 = decode[contentByte(channel, mip, cx1, cy0)];
  const v01 = decode[contentByte(channel, mip, cx0, cy1)];
  const v11 = decode[contentByte(channel, mip, cx1, cy1)];
  return (v00 * (1 - ax) + v10 * ax) * (1 - ay) + (v01 * (1 - ax) + v11 * ax) * ay;
}

/** Options of {@link TestTileSource}. */
export interface TestTileSourceOptions {
  widthPages: number;
  heightPages: number;
  tileSize?: number;
  border?: number;
  /** Delay before each tile resolves, in milliseconds (0 = next microtask). */
  delayMs?: number;
}

/**
 * A TileSource producing {@link contentByte} tiles, borders filled from the neighbouring texels of
 * the same mip (clamped at the texture's edges).
 */
export class TestTileSource implements TileSource {
  readonly info: TileSourceInfo;
  /** Tiles produced so far. */
  loads = 0;
  private readonly delayMs: number;

  constructor(options: TestTileSourceOptions) {
    this.info = {
      widthPages: options.widthPages,
      heightPages: options.heightPages,
      tileSize: options.tileSize ?? 128,
      border: options.border ?? 4,
      layers: [{ name: 'albedo', format: 'rgba8unorm-srgb' }],
    };
    this.delayMs = options.delayMs ?? 0;
  }

  async load(mip: number, x: number, y: number, signal: AbortSignal): Promise<TileData> {
    if (this.delayMs > 0) await new Promise((resolve) => setTimeout(resolve, this.delayMs));
    if (signal.aborted) throw new DOMException('aborted', 'AbortError');
    const { tileSize, border, widthPages, heightPages } = this.info;
    const payload = tileSize - 2 * border;
    const levelWidth = Math.max(1, widthPages >> mip) * payload;
    const levelHeight = Math.max(1, heightPages >> mip) * payload;
    const bytes = new Uint8Array(tileSize * tileSize * 4);
    for (let j = 0; j < tileSize; j++) {
      const ty = Math.min(levelHeight - 1, Math.max(0, y * payload + j - border));
      for (let i = 0; i < tileSize; i++) {
        const tx = Math.min(levelWidth - 1, Math.max(0, x * payload + i - border));
        const o = (j * tileSize + i) * 4;
        bytes[o] = contentByte(0, mip, tx, ty);
        bytes[o + 1] = contentByte(1, mip, tx, ty);
        bytes[o + 2] = contentByte(2, mip, tx, ty);
        bytes[o + 3] = 255;
      }
    }
    this.loads++;
    return { layers: [bytes] };
  }
}
