/**
 * The octave table of the procedural world: every noise octave of every field (height,
 * temperature, moisture, roads, rivers), as flat typed arrays so a tile generator in a worker
 * walks them without allocating. Frequencies are in cycles per mip-0 texel, so gradients come
 * out per mip-0 texel.
 */

import { latticeValue } from './value-noise';

/** Accumulator channels an octave adds into (indices into a Float64Array). */
export const CH_HEIGHT = 0;
export const CH_HEIGHT_DX = 1;
export const CH_HEIGHT_DY = 2;
/** Sum of the height octaves finer than {@link DETAIL_MAX_WAVELENGTH}: brightness variation. */
export const CH_DETAIL = 3;
export const CH_TEMPERATURE = 4;
export const CH_MOISTURE = 5;
export const CH_ROAD = 6;
export const CH_ROAD_DX = 7;
export const CH_ROAD_DY = 8;
export const CH_RIVER = 9;
export const CH_RIVER_DX = 10;
export const CH_RIVER_DY = 11;
/** Number of accumulator channels. */
export const CHANNEL_COUNT = 12;

/** Height octaves with a wavelength under this many mip-0 texels also feed {@link CH_DETAIL}. */
export const DETAIL_MAX_WAVELENGTH = 512;

/** Amplitude ratio between successive height octaves (persistence). */
const HEIGHT_GAIN = 0.47;

/** All octaves of one world, structure-of-arrays. */
export interface OctaveTable {
  /** Number of octaves. */
  count: number;
  /** Frequency, cycles per mip-0 texel. */
  frequency: Float64Array;
  /** Amplitude (already divided by the field's normalisation). */
  amplitude: Float64Array;
  /** cos / sin of the octave's rotation (breaks the lattice's axis alignment). */
  cos: Float64Array;
  sin: Float64Array;
  /** Offset added to the rotated, scaled coordinate, in lattice units. */
  offsetX: Float64Array;
  offsetY: Float64Array;
  /** Seed of the octave's lattice hash. */
  seed: Int32Array;
  /** Channel receiving the value; gradient channels are value+1, value+2 when `hasGradient`. */
  channel: Uint8Array;
  hasGradient: Uint8Array;
  /** 1 when the octave also adds into {@link CH_DETAIL}. */
  isDetail: Uint8Array;
}

interface FieldSpec {
  channel: number;
  hasGradient: boolean;
  /** Wavelength of the first octave, mip-0 texels. */
  baseWavelength: number;
  /** Finest wavelength kept, mip-0 texels (octaves stop there). */
  minWavelength: number;
  gain: number;
}

/**
 * Builds the octave table of a world `worldTexels` wide (the larger side of mip 0, texels).
 * Deterministic in (`seed`, `worldTexels`).
 */
export function buildOctaveTable(seed: number, worldTexels: number): OctaveTable {
  const fields: FieldSpec[] = [
    // Continents to pebbles: octaves down to a 2-texel wavelength at mip 0.
    {
      channel: CH_HEIGHT,
      hasGradient: true,
      baseWavelength: worldTexels / 3,
      minWavelength: 2,
      gain: HEIGHT_GAIN,
    },
    {
      channel: CH_TEMPERATURE,
      hasGradient: false,
      baseWavelength: worldTexels / 2,
      minWavelength: 2048,
      gain: 0.5,
    },
    {
      channel: CH_MOISTURE,
      hasGradient: false,
      baseWavelength: worldTexels / 2.5,
      minWavelength: 1024,
      gain: 0.5,
    },
    // Roads and rivers are zero-contours of smooth fields: two octaves keep them gently winding.
    {
      channel: CH_ROAD,
      hasGradient: true,
      baseWavelength: Math.min(worldTexels / 4, 6000),
      minWavelength: 1500,
      gain: 0.35,
    },
    {
      channel: CH_RIVER,
      hasGradient: true,
      baseWavelength: Math.min(worldTexels / 3, 9000),
      minWavelength: 2500,
      gain: 0.3,
    },
  ];
  const specs: { field: FieldSpec; wavelength: number; amplitude: number }[] = [];
  for (const field of fields) {
    let wavelength = field.baseWavelength;
    let amplitude = 1;
    const start = specs.length;
    let norm = 0;
    do {
      specs.push({ field, wavelength, amplitude });
      norm += amplitude;
      wavelength /= 2;
      amplitude *= field.gain;
    } while (wavelength >= field.minWavelength);
    for (let i = start; i < specs.length; i++) specs[i].amplitude /= norm;
  }
  const count = specs.length;
  const table: OctaveTable = {
    count,
    frequency: new Float64Array(count),
    amplitude: new Float64Array(count),
    cos: new Float64Array(count),
    sin: new Float64Array(count),
    offsetX: new Float64Array(count),
    offsetY: new Float64Array(count),
    seed: new Int32Array(count),
    channel: new Uint8Array(count),
    hasGradient: new Uint8Array(count),
    isDetail: new Uint8Array(count),
  };
  for (let i = 0; i < count; i++) {
    const { field, wavelength, amplitude } = specs[i];
    const octaveSeed = Math.imul(seed ^ 0x9e3779b9, i + 1) ^ Math.imul(field.channel + 7, 0x632be5ab);
    const angle = (latticeValue(i, 17, octaveSeed) + 1) * Math.PI;
    table.frequency[i] = 1 / wavelength;
    table.amplitude[i] = amplitude;
    table.cos[i] = Math.cos(angle);
    table.sin[i] = Math.sin(angle);
    table.offsetX[i] = latticeValue(i, 31, octaveSeed) * 4096;
    table.offsetY[i] = latticeValue(i, 47, octaveSeed) * 4096;
    table.seed[i] = octaveSeed | 0;
    table.channel[i] = field.channel;
    table.hasGradient[i] = field.hasGradient ? 1 : 0;
    table.isDetail[i] = field.channel === CH_HEIGHT && wavelength < DETAIL_MAX_WAVELENGTH ? 1 : 0;
  }
  return table;
}

/**
 * Weight of an octave at a mip whose texels are `texelSpan` mip-0 texels wide: 1 while the
 * octave's wavelength spans at least 3 of that mip's texels, fading linearly to 0 at 1.5. A fade
 * ending just below Nyquist (2 texels) tracks the 2x2 box filter's own attenuation, so each mip
 * stays close to the box average of the finer level while aliasing stays small.
 */
export function octaveWeight(frequency: number, texelSpan: number): number {
  const wavelengthInTexels = 1 / (frequency * texelSpan);
  const w = (wavelengthInTexels - 1.5) * (1 / 1.5);
  return w <= 0 ? 0 : Math.min(w, 1);
}
