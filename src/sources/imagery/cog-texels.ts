/**
 * How the samples of a GeoTIFF tile become the rgba8 texels of an {@link ImageryTile}: 8-bit RGB
 * and RGBA as they are (associated alpha un-premultiplied), JPEG's YCbCr converted, a palette
 * through its colour map, and a single band (greyscale elevation, a classification, a float
 * measurement) through a colour ramp. `GDAL_NODATA` and NaN become transparent.
 */

import { TileSourceError } from '../../core/errors';

/**
 * One stop of a colour ramp for single-band imagery: texels whose value is `value` get `color`
 * (`[r, g, b]` or `[r, g, b, a]`, each 0..255); values between two stops get the linear blend,
 * values beyond the first or last stop that stop's colour.
 */
export interface CogRampStop {
  /** Sample value, in the band's own units (metres, a class index, reflectance). */
  readonly value: number;
  /** Colour at that value, 0..255 per component; alpha 255 when left out. */
  readonly color: readonly [number, number, number] | readonly [number, number, number, number];
}

/** The sample types a tile may hold. */
export type CogSampleType =
  | 'uint8'
  | 'int8'
  | 'uint16'
  | 'int16'
  | 'uint32'
  | 'int32'
  | 'float32'
  | 'float64';

/** What one level's samples mean (from its IFD). */
export interface CogTexelLayout {
  /** `rgb`: three colour samples; `ycbcr`: JPEG's YCbCr; `grey`: one band; `palette`: indices. */
  readonly kind: 'rgb' | 'ycbcr' | 'grey' | 'palette';
  /** Samples per texel, alpha and other extra samples included. */
  readonly samplesPerPixel: number;
  readonly sampleType: CogSampleType;
  /** Byte order of multi-byte samples in the decoded tile (the file's). */
  readonly littleEndian: boolean;
  /** The sample after the colour samples is alpha: straight (unassociated) or premultiplied. */
  readonly alpha: 'none' | 'straight' | 'premultiplied';
  /** Value of texels without data (all colour samples equal to it), or `null`. */
  readonly nodata: number | null;
  /** `whiteIsZero` greyscale (TIFF photometric 0) darkens as values grow. */
  readonly whiteIsZero: boolean;
  /** Palette only: TIFF `ColorMap` (16-bit red, green then blue entries). */
  readonly colorMap?: ArrayLike<number>;
}

const BYTES: Record<CogSampleType, number> = {
  uint8: 1,
  int8: 1,
  uint16: 2,
  int16: 2,
  uint32: 4,
  int32: 4,
  float32: 4,
  float64: 8,
};

/** Natural value range of each type: what maps to 0..255 when nothing else says. */
const RANGE: Record<CogSampleType, readonly [number, number]> = {
  uint8: [0, 255],
  int8: [-128, 127],
  uint16: [0, 65535],
  int16: [-32768, 32767],
  uint32: [0, 4294967295],
  int32: [-2147483648, 2147483647],
  float32: [0, 1],
  float64: [0, 1],
};

const HOST_LITTLE_ENDIAN = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;

/** The sample type for TIFF `SampleFormat` and `BitsPerSample`, or `null` when unsupported. */
export function cogSampleType(sampleFormat: number, bitsPerSample: number): CogSampleType | null {
  if (sampleFormat === 3) return bitsPerSample === 32 ? 'float32' : bitsPerSample === 64 ? 'float64' : null;
  const signed = sampleFormat === 2;
  if (sampleFormat !== 1 && !signed) return null;
  switch (bitsPerSample) {
    case 8:
      return signed ? 'int8' : 'uint8';
    case 16:
      return signed ? 'int16' : 'uint16';
    case 32:
      return signed ? 'int32' : 'uint32';
    default:
      return null;
  }
}

/**
 * Checks a ramp (ascending finite values, components in 0..255).
 * @returns a message saying what is wrong, or `null` when it is valid.
 */
export function rampProblem(stops: readonly CogRampStop[]): string | null {
  if (stops.length === 0) return 'ramp: needs at least one stop';
  for (let i = 0; i < stops.length; i++) {
    const { value, color } = stops[i];
    if (!Number.isFinite(value)) return `ramp: stop ${i} value is not finite`;
    if (i > 0 && value <= stops[i - 1].value) return `ramp: stop ${i} value is not above stop ${i - 1}'s`;
    if (color.length !== 3 && color.length !== 4) return `ramp: stop ${i} colour needs 3 or 4 components`;
    for (const c of color)
      if (!(c >= 0 && c <= 255)) return `ramp: stop ${i} colour component ${c} is outside 0..255`;
  }
  return null;
}

/**
 * Converts one level's decoded tiles to rgba8. Lookup tables for 8- and 16-bit single bands and
 * palettes are built once, so the per-texel work is a table read.
 */
export class CogTexelConverter {
  private readonly ramp: readonly CogRampStop[];
  /** rgba8 per possible value, for 8- and 16-bit grey and palette. */
  private readonly table: Uint8Array | null;
  /** Added to a value to index {@link table} (signed types). */
  private readonly tableBias: number;
  private readonly min: number;
  private readonly scale: number;

  /**
   * @param layout what the samples mean.
   * @param ramp colour ramp for a single band; default grey over the type's range (`0..1` for
   *   floats), reversed for `whiteIsZero`.
   */
  constructor(
    readonly layout: CogTexelLayout,
    ramp: readonly CogRampStop[] | undefined,
  ) {
    const [min, max] = RANGE[layout.sampleType];
    this.min = min;
    this.scale = 255 / (max - min);
    const black = [0, 0, 0] as const;
    const white = [255, 255, 255] as const;
    this.ramp = ramp ?? [
      { value: min, color: layout.whiteIsZero ? white : black },
      { value: max, color: layout.whiteIsZero ? black : white },
    ];
    this.tableBias = -min;
    this.table = null;
    // Every type of one or two bytes is an integer type: a table covers all its values.
    const tabulated = BYTES[layout.sampleType] <= 2 && (layout.kind === 'grey' || layout.kind === 'palette');
    if (tabulated) this.table = this.buildTable(min, max);
  }

  /**
   * Converts `decoded` (`texels x samplesPerPixel` interleaved samples; it may be modified) to a
   * new rgba8 array of `texels x 4` bytes.
   * @throws TileSourceError `decode-failed` when `decoded` is shorter than that.
   */
  convert(decoded: ArrayBuffer, texels: number): Uint8Array {
    const { layout } = this;
    const spp = layout.samplesPerPixel;
    const bytes = BYTES[layout.sampleType];
    if (decoded.byteLength < texels * spp * bytes) {
      throw new TileSourceError(
        'decode-failed',
        `tile decoded to ${decoded.byteLength} bytes, expected ${texels * spp * bytes}`,
        false,
      );
    }
    if (bytes > 1 && layout.littleEndian !== HOST_LITTLE_ENDIAN) swapBytes(decoded, texels * spp, bytes);
    const values = sampleView(layout.sampleType, decoded, texels * spp);
    const out = new Uint8Array(texels * 4);
    if (layout.kind === 'grey' || layout.kind === 'palette') this.convertSingleBand(values, texels, out);
    else if (layout.kind === 'ycbcr') convertYCbCr(values, texels, spp, out);
    else this.convertRgb(values, texels, out);
    if (layout.alpha !== 'none') this.applyAlpha(values, texels, out);
    return out;
  }

  private convertSingleBand(values: ArrayLike<number>, texels: number, out: Uint8Array): void {
    const spp = this.layout.samplesPerPixel;
    const table = this.table;
    if (table !== null) {
      const bias = this.tableBias;
      for (let t = 0, s = 0, o = 0; t < texels; t++, s += spp, o += 4) {
        const i = (values[s] + bias) * 4;
        out[o] = table[i];
        out[o + 1] = table[i + 1];
        out[o + 2] = table[i + 2];
        out[o + 3] = table[i + 3];
      }
      return;
    }
    const nodata = this.layout.nodata;
    for (let t = 0, s = 0, o = 0; t < texels; t++, s += spp, o += 4) {
      const v = values[s];
      // NaN has no colour: transparent, whatever the nodata value says.
      if (v === nodata || Number.isNaN(v)) continue;
      rampColour(this.ramp, v, out, o);
    }
  }

  private convertRgb(values: ArrayLike<number>, texels: number, out: Uint8Array): void {
    const spp = this.layout.samplesPerPixel;
    const nodata = this.layout.nodata;
    if (this.layout.sampleType === 'uint8') {
      for (let t = 0, s = 0, o = 0; t < texels; t++, s += spp, o += 4) {
        out[o] = values[s];
        out[o + 1] = values[s + 1];
        out[o + 2] = values[s + 2];
        out[o + 3] = 255;
      }
    } else {
      const { min, scale } = this;
      for (let t = 0, s = 0, o = 0; t < texels; t++, s += spp, o += 4) {
        out[o] = toByte(values[s], min, scale);
        out[o + 1] = toByte(values[s + 1], min, scale);
        out[o + 2] = toByte(values[s + 2], min, scale);
        out[o + 3] = 255;
      }
    }
    if (nodata === null) return;
    for (let t = 0, s = 0, o = 3; t < texels; t++, s += spp, o += 4) {
      if (values[s] === nodata && values[s + 1] === nodata && values[s + 2] === nodata) out[o] = 0;
    }
  }

  private applyAlpha(values: ArrayLike<number>, texels: number, out: Uint8Array): void {
    const spp = this.layout.samplesPerPixel;
    const at = this.layout.kind === 'grey' || this.layout.kind === 'palette' ? 1 : 3;
    const eightBit = this.layout.sampleType === 'uint8';
    const premultiplied = this.layout.alpha === 'premultiplied';
    const { min, scale } = this;
    for (let t = 0, s = at, o = 0; t < texels; t++, s += spp, o += 4) {
      const a = eightBit ? values[s] : toByte(values[s], min, scale);
      // Nodata already made this texel transparent; alpha only lowers it.
      if (a >= out[o + 3]) continue;
      out[o + 3] = a;
      if (premultiplied && a > 0 && this.layout.kind === 'rgb') {
        out[o] = Math.min(255, Math.round((out[o] * 255) / a));
        out[o + 1] = Math.min(255, Math.round((out[o + 1] * 255) / a));
        out[o + 2] = Math.min(255, Math.round((out[o + 2] * 255) / a));
      }
    }
  }

  private buildTable(min: number, max: number): Uint8Array {
    const count = max - min + 1;
    const table = new Uint8Array(count * 4);
    const { layout } = this;
    if (layout.kind === 'palette') {
      const map = layout.colorMap ?? [];
      const entries = Math.floor(map.length / 3);
      for (let v = 0; v < count && v < entries; v++) {
        table[v * 4] = map[v] >> 8;
        table[v * 4 + 1] = map[entries + v] >> 8;
        table[v * 4 + 2] = map[2 * entries + v] >> 8;
        table[v * 4 + 3] = 255;
      }
    } else {
      for (let v = min; v <= max; v++) rampColour(this.ramp, v, table, (v - min) * 4);
    }
    const nodata = layout.nodata;
    if (nodata !== null && Number.isInteger(nodata) && nodata >= min && nodata <= max) {
      table.fill(0, (nodata - min) * 4, (nodata - min) * 4 + 4);
    }
    return table;
  }
}

/** Writes the ramp's colour for `v` as rgba8 at `out[o..o+3]`. */
function rampColour(ramp: readonly CogRampStop[], v: number, out: Uint8Array, o: number): void {
  let i = 0;
  while (i < ramp.length - 1 && v >= ramp[i + 1].value) i++;
  const a = ramp[i];
  if (i === ramp.length - 1 || v <= a.value) {
    out[o] = a.color[0];
    out[o + 1] = a.color[1];
    out[o + 2] = a.color[2];
    out[o + 3] = a.color[3] ?? 255;
    return;
  }
  const b = ramp[i + 1];
  const t = (v - a.value) / (b.value - a.value);
  out[o] = Math.round(a.color[0] + (b.color[0] - a.color[0]) * t);
  out[o + 1] = Math.round(a.color[1] + (b.color[1] - a.color[1]) * t);
  out[o + 2] = Math.round(a.color[2] + (b.color[2] - a.color[2]) * t);
  const aa = a.color[3] ?? 255;
  out[o + 3] = Math.round(aa + ((b.color[3] ?? 255) - aa) * t);
}

/** JPEG's YCbCr (JFIF, full range) to RGB. */
function convertYCbCr(values: ArrayLike<number>, texels: number, spp: number, out: Uint8Array): void {
  for (let t = 0, s = 0, o = 0; t < texels; t++, s += spp, o += 4) {
    const y = values[s];
    const cb = values[s + 1] - 128;
    const cr = values[s + 2] - 128;
    out[o] = clampByte(y + 1.402 * cr);
    out[o + 1] = clampByte(y - 0.344136 * cb - 0.714136 * cr);
    out[o + 2] = clampByte(y + 1.772 * cb);
    out[o + 3] = 255;
  }
}

function clampByte(v: number): number {
  return v <= 0 ? 0 : v >= 255 ? 255 : Math.round(v);
}

function toByte(v: number, min: number, scale: number): number {
  return clampByte((v - min) * scale);
}

function sampleView(type: CogSampleType, buffer: ArrayBuffer, count: number): ArrayLike<number> {
  switch (type) {
    case 'uint8':
      return new Uint8Array(buffer, 0, count);
    case 'int8':
      return new Int8Array(buffer, 0, count);
    case 'uint16':
      return new Uint16Array(buffer, 0, count);
    case 'int16':
      return new Int16Array(buffer, 0, count);
    case 'uint32':
      return new Uint32Array(buffer, 0, count);
    case 'int32':
      return new Int32Array(buffer, 0, count);
    case 'float32':
      return new Float32Array(buffer, 0, count);
    case 'float64':
      return new Float64Array(buffer, 0, count);
  }
}

function swapBytes(buffer: ArrayBuffer, count: number, size: number): void {
  const b = new Uint8Array(buffer);
  for (let i = 0, p = 0; i < count; i++, p += size) {
    for (let lo = p, hi = p + size - 1; lo < hi; lo++, hi--) {
      const x = b[lo];
      b[lo] = b[hi];
      b[hi] = x;
    }
  }
}
