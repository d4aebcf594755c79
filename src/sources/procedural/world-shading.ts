/**
 * Turns accumulated noise fields into terrain: height (with river beds carved in), biome colour
 * by height, slope, temperature and moisture, rivers and roads drawn with box-filtered coverage
 * (so a road thinner than a texel at a coarse mip still averages correctly), and a tangent-space
 * normal. Every blend is a smooth function of the fields, which keeps mip N close to the average
 * of mip N-1.
 */

import { LINEAR_TABLE_STEPS, LINEAR_TO_SRGB_BYTE, srgbToLinear } from '../color/srgb';
import {
  CH_DETAIL,
  CH_HEIGHT,
  CH_HEIGHT_DX,
  CH_HEIGHT_DY,
  CH_MOISTURE,
  CH_RIVER,
  CH_RIVER_DX,
  CH_RIVER_DY,
  CH_ROAD,
  CH_ROAD_DX,
  CH_ROAD_DY,
  CH_TEMPERATURE,
} from './world-octaves';

// Local copies: imported bindings can compile to property reads in some loaders.
const L_DETAIL = CH_DETAIL;
const L_HEIGHT = CH_HEIGHT;
const L_HEIGHT_DX = CH_HEIGHT_DX;
const L_HEIGHT_DY = CH_HEIGHT_DY;
const L_MOISTURE = CH_MOISTURE;
const L_RIVER = CH_RIVER;
const L_RIVER_DX = CH_RIVER_DX;
const L_RIVER_DY = CH_RIVER_DY;
const L_ROAD = CH_ROAD;
const L_ROAD_DX = CH_ROAD_DX;
const L_ROAD_DY = CH_ROAD_DY;
const L_TEMPERATURE = CH_TEMPERATURE;

/** Constants of one world's look, in mip-0 texels where they are lengths. */
export interface TerrainStyle {
  /** Height difference between height 0 and 1, in mip-0 texels (sets slopes and normals). */
  reliefTexels: number;
  /** Half width of a river, mip-0 texels. */
  riverHalfWidth: number;
  /** Half width of a road, mip-0 texels. */
  roadHalfWidth: number;
  /** 1 / (sum of the detail octaves' amplitudes), so detail spans about [-1, 1]. */
  detailScale: number;
}

/**
 * Rows of a terrain buffer written by {@link terrainRow}: row `r` of a `count`-point buffer is
 * `terrain[r * count .. (r + 1) * count)`.
 */
export const TERRAIN_HEIGHT = 0;
/** d(height)/dx and d(height)/dy, per mip-0 texel. */
export const TERRAIN_DX = 1;
export const TERRAIN_DY = 2;
/** 0..1: how strongly rivers may appear here (lowlands only). */
export const TERRAIN_RIVER_MASK = 3;
/** Signed distance to the nearest river centreline, mip-0 texels (estimate). */
export const TERRAIN_RIVER_DISTANCE = 4;
/** Rows in a terrain buffer. */
export const TERRAIN_ROWS = 5;

/** Sea level: heights below are drawn as water. */
export const SEA_LEVEL = 0.3;
const RIVER_CARVE_DEPTH = 0.01;

/**
 * Smoothstep from `e0` over a width of `1 / invWidth`. Callers write the reciprocal as a constant
 * expression, which the JIT folds: no division per texel.
 */
function smoothstep(e0: number, invWidth: number, x: number): number {
  let t = (x - e0) * invWidth;
  t = t < 0 ? 0 : Math.min(t, 1);
  return t * t * (3 - 2 * t);
}

/**
 * Fraction of a box (half width `halfFootprint`, reciprocal width `invFootprint`, texels) centred
 * at signed distance `d` covered by a strip |d| < `halfWidth`.
 */
function stripCoverage(d: number, halfWidth: number, halfFootprint: number, invFootprint: number): number {
  const hi = Math.min(d + halfFootprint, halfWidth);
  const lo = Math.max(d - halfFootprint, -halfWidth);
  const c = (hi - lo) * invFootprint;
  return c <= 0 ? 0 : Math.min(c, 1);
}

/**
 * Computes the terrain of `count` points from their accumulated fields (channel `c` of point `i`
 * at `fields[c * count + i]`) into `terrain` ({@link TERRAIN_ROWS} rows of `count`): height in
 * [0, 1] with river beds carved in, its gradient, and the river mask and distance. `footprint` is
 * a sample's width in mip-0 texels (the river valley widens to stay band-limited, keeping its
 * cross-section).
 */
export function terrainRow(
  fields: Float64Array,
  count: number,
  style: TerrainStyle,
  footprint: number,
  terrain: Float64Array,
): void {
  // Valley profile six river widths wide (at least two sample footprints, same cross-section area);
  // its gradient uses grad(distance) ~ grad(field) / |grad(field)|.
  const nominalWidth = style.riverHalfWidth * 6;
  const width = Math.max(nominalWidth, footprint * 2);
  const depthScale = (RIVER_CARVE_DEPTH * nominalWidth) / width;
  const heightAt = L_HEIGHT * count;
  const heightDxAt = L_HEIGHT_DX * count;
  const heightDyAt = L_HEIGHT_DY * count;
  const riverAt = L_RIVER * count;
  const riverDxAt = L_RIVER_DX * count;
  const riverDyAt = L_RIVER_DY * count;
  for (let i = 0; i < count; i++) {
    let h = 0.5 + 0.9 * fields[heightAt + i];
    let dx = 0.9 * fields[heightDxAt + i];
    let dy = 0.9 * fields[heightDyAt + i];
    const riverMask = smoothstep(0.62, 1 / (0.5 - 0.62), h);
    // Highlands carry no river: the distance (a square root and a division) is only read where
    // the mask is positive, here and in shadeRow.
    let riverDistance = 0;
    if (riverMask > 0) {
      const rgx = fields[riverDxAt + i];
      const rgy = fields[riverDyAt + i];
      const rgl = Math.sqrt(rgx * rgx + rgy * rgy) + 1e-12;
      riverDistance = fields[riverAt + i] / rgl;
      // Outside the valley |distance| >= width, so |q| >= 1 after rounding too: the division
      // waits until the distance says it can matter (most lowland texels lie far from a river).
      if (riverDistance > -width && riverDistance < width) {
        const q = riverDistance / width;
        if (q > -1 && q < 1) {
          const one = 1 - q * q;
          const depth = depthScale * riverMask;
          h -= depth * one * one;
          const slope = (depth * 4 * q * one) / width / rgl;
          dx += slope * rgx;
          dy += slope * rgy;
        }
      }
    }
    terrain[i] = h < 0 ? 0 : Math.min(h, 1);
    terrain[count + i] = dx;
    terrain[2 * count + i] = dy;
    terrain[3 * count + i] = riverMask;
    terrain[4 * count + i] = riverDistance;
  }
}

const lin = (r: number) => srgbToLinear(r / 255);
const SRGB_BYTE = LINEAR_TO_SRGB_BYTE;
const STEPS = LINEAR_TABLE_STEPS;

/**
 * The byte linearToSrgbByte gives for a linear value `l` (finite, well inside the int32 range),
 * with the clamp done on `l`: V8 then truncates an in-range double instead of calling its generic
 * double-to-int32 path. Out-of-range and NaN inputs land on the same table ends as there.
 */
function srgbByte(l: number): number {
  return l <= 0 ? SRGB_BYTE[0] : l >= 1 ? SRGB_BYTE[STEPS] : SRGB_BYTE[(l * STEPS + 0.5) | 0];
}
// Linear-light palette, one constant per channel so the shading loop reads no arrays.
const GRASS_R = lin(88);
const GRASS_G = lin(118);
const GRASS_B = lin(48);
const LUSH_R = lin(52);
const LUSH_G = lin(96);
const LUSH_B = lin(36);
const DESERT_R = lin(208);
const DESERT_G = lin(178);
const DESERT_B = lin(122);
const SNOW_R = lin(236);
const SNOW_G = lin(240);
const SNOW_B = lin(246);
const ROCK_R = lin(118);
const ROCK_G = lin(108);
const ROCK_B = lin(100);
const WATER_R = lin(34);
const WATER_G = lin(70);
const WATER_B = lin(96);
const ROAD_R = lin(146);
const ROAD_G = lin(130);
const ROAD_B = lin(104);

/**
 * Shades a row of `count` texels from their fields (channel `c` of texel `i` at
 * `fields[c * count + i]`) and their terrain (from {@link terrainRow}): writes sRGB albedo (alpha 255) and the tangent-space normal (x along
 * +u, y along +v i.e. down the texel rows, z out of the surface; encoded `n * 127.5 + 127.5`,
 * alpha 255) from byte `offset` on. Both layers come from the same samples. `footprint` is a
 * texel's width in mip-0 texels.
 */
export function shadeRow(
  fields: Float64Array,
  terrain: Float64Array,
  count: number,
  footprint: number,
  style: TerrainStyle,
  albedo: Uint8Array,
  normal: Uint8Array,
  offset: number,
): void {
  const relief = style.reliefTexels;
  const detailGain = 0.35 * style.detailScale;
  const riverHalfWidth = style.riverHalfWidth;
  const roadHalfWidth = style.roadHalfWidth;
  const halfFootprint = footprint * 0.5;
  const invFootprint = 1 / footprint;
  // Squared distance band (with 1% margin) outside which a road covers nothing.
  const roadBand2 = ((roadHalfWidth + halfFootprint) * 1.01) ** 2;
  const temperatureAt = L_TEMPERATURE * count;
  const moistureAt = L_MOISTURE * count;
  const detailAt = L_DETAIL * count;
  const roadAt = L_ROAD * count;
  const roadDxAt = L_ROAD_DX * count;
  const roadDyAt = L_ROAD_DY * count;
  for (let i = 0, o = offset; i < count; i++, o += 4) {
    const h = terrain[i];
    const sx = terrain[count + i] * relief;
    const sy = terrain[2 * count + i] * relief;
    // Slope only feeds smoothsteps that start at 0.45 or higher, all exactly 0 below that: under
    // slope² = 0.2 (slope < 0.448) a 0 stands in for the square root and changes no bit.
    const slope2 = sx * sx + sy * sy;
    const slope = slope2 < 0.2 ? 0 : Math.sqrt(slope2);

    const temperature = 0.5 + 0.9 * fields[temperatureAt + i] - (h - 0.5) * 0.7;
    const moisture = 0.5 + 0.9 * fields[moistureAt + i];
    const lush = smoothstep(0.45, 1 / (0.7 - 0.45), moisture);
    let r = GRASS_R + (LUSH_R - GRASS_R) * lush;
    let g = GRASS_G + (LUSH_G - GRASS_G) * lush;
    let b = GRASS_B + (LUSH_B - GRASS_B) * lush;
    // Most texels get none of a blend below: a zero weight leaves r, g, b as they are (adding
    // ±0 to a positive value), so skipping the blend changes no bit and saves its arithmetic.
    const hot = smoothstep(0.52, 1 / (0.64 - 0.52), temperature);
    if (hot > 0) {
      const desert = hot * smoothstep(0.5, 1 / (0.36 - 0.5), moisture);
      r += (DESERT_R - r) * desert;
      g += (DESERT_G - g) * desert;
      b += (DESERT_B - b) * desert;
    }
    const rock = Math.max(smoothstep(0.45, 1 / (0.9 - 0.45), slope), smoothstep(0.66, 1 / (0.74 - 0.66), h));
    if (rock > 0) {
      r += (ROCK_R - r) * rock;
      g += (ROCK_G - g) * rock;
      b += (ROCK_B - b) * rock;
    }
    // snow = cold · (1 - 0.6·steep): zero wherever cold is, without the slope's smoothstep.
    const cold = Math.max(
      smoothstep(0.28, 1 / (0.18 - 0.28), temperature),
      smoothstep(0.76, 1 / (0.84 - 0.76), h),
    );
    let snow = 0;
    if (cold > 0) {
      snow = cold * (1 - 0.6 * smoothstep(0.7, 1 / (1.2 - 0.7), slope));
      r += (SNOW_R - r) * snow;
      g += (SNOW_G - g) * snow;
      b += (SNOW_B - b) * snow;
    }
    const detail = 1 + detailGain * fields[detailAt + i];
    r *= detail;
    g *= detail;
    b *= detail;

    const riverMask = terrain[3 * count + i];
    const riverCover =
      riverMask > 0
        ? stripCoverage(terrain[4 * count + i], riverHalfWidth, halfFootprint, invFootprint) * riverMask
        : 0;
    const sea = smoothstep(SEA_LEVEL, -1 / 0.02, h);
    const water = Math.max(riverCover, sea);
    if (water > 0) {
      r += (WATER_R - r) * water;
      g += (WATER_G - g) * water;
      b += (WATER_B - b) * water;
    }

    // Most texels lie far from a road: the band test (|field| well past the band times
    // |gradient|: coverage surely 0) comes first and skips the road mask's smoothsteps and the
    // distance's square root and division.
    const rgx = fields[roadDxAt + i];
    const rgy = fields[roadDyAt + i];
    const roadField = fields[roadAt + i];
    if (roadField * roadField <= roadBand2 * (rgx * rgx + rgy * rgy)) {
      const roadMask =
        (1 - snow) *
        (1 - water) *
        smoothstep(0.7, 1 / (0.62 - 0.7), h) *
        (1 - smoothstep(0.5, 1 / (0.8 - 0.5), slope));
      if (roadMask > 0) {
        const roadDistance = roadField / (Math.sqrt(rgx * rgx + rgy * rgy) + 1e-12);
        const road = stripCoverage(roadDistance, roadHalfWidth, halfFootprint, invFootprint) * roadMask;
        r += (ROAD_R - r) * road;
        g += (ROAD_G - g) * road;
        b += (ROAD_B - b) * road;
      }
    }

    albedo[o] = srgbByte(r);
    albedo[o + 1] = srgbByte(g);
    albedo[o + 2] = srgbByte(b);
    albedo[o + 3] = 255;

    const flat = water * 0.8;
    const nx = -sx * (1 - flat);
    const ny = -sy * (1 - flat);
    const inv = 1 / Math.sqrt(nx * nx + ny * ny + 1);
    normal[o] = (nx * inv * 127.5 + 128) | 0;
    normal[o + 1] = (ny * inv * 127.5 + 128) | 0;
    normal[o + 2] = (inv * 127.5 + 128) | 0;
    normal[o + 3] = 255;
  }
}
