/**
 * Turns accumulated noise fields into terrain: height (with river beds carved in), biome colour
 * by height, slope, temperature and moisture, rivers and roads drawn with box-filtered coverage
 * (so a road thinner than a texel at a coarse mip still averages correctly), and a tangent-space
 * normal. Every blend is a smooth function of the fields, which keeps mip N close to the average
 * of mip N-1.
 */

import { linearToSrgbByte, srgbToLinear } from '../color/srgb';
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

/** Height and its gradient (per mip-0 texel), written by {@link terrainHeight}. */
export interface HeightSample {
  /** Height in [0, 1] (0 deepest valley, 1 highest peak). */
  height: number;
  dx: number;
  dy: number;
  /** 0..1: how strongly rivers may appear here (lowlands only). */
  riverMask: number;
  /** Signed distance to the nearest river centreline, mip-0 texels (estimate). */
  riverDistance: number;
}

/** Sea level: heights below are drawn as water. */
export const SEA_LEVEL = 0.3;
const RIVER_CARVE_DEPTH = 0.01;

function smoothstep(e0: number, e1: number, x: number): number {
  let t = (x - e0) / (e1 - e0);
  t = t < 0 ? 0 : Math.min(t, 1);
  return t * t * (3 - 2 * t);
}

/** Fraction of a box `footprint` texels wide centred at signed distance `d` covered by a strip |d| < `halfWidth`. */
function stripCoverage(d: number, halfWidth: number, footprint: number): number {
  const hi = Math.min(d + footprint * 0.5, halfWidth);
  const lo = Math.max(d - footprint * 0.5, -halfWidth);
  const c = (hi - lo) / footprint;
  return c <= 0 ? 0 : Math.min(c, 1);
}

/**
 * Computes the terrain height at a point from its accumulated fields; `footprint` is the sample's
 * width in mip-0 texels (the river valley widens to stay band-limited, keeping its cross-section).
 */
export function terrainHeight(
  acc: Float64Array,
  style: TerrainStyle,
  footprint: number,
  out: HeightSample,
): void {
  let h = 0.5 + 0.9 * acc[CH_HEIGHT];
  let dx = 0.9 * acc[CH_HEIGHT_DX];
  let dy = 0.9 * acc[CH_HEIGHT_DY];
  const rgx = acc[CH_RIVER_DX];
  const rgy = acc[CH_RIVER_DY];
  const rgl = Math.sqrt(rgx * rgx + rgy * rgy) + 1e-12;
  const riverDistance = acc[CH_RIVER] / rgl;
  const riverMask = smoothstep(0.62, 0.5, h);
  // Valley profile six river widths wide (at least two sample footprints, same cross-section area);
  // its gradient uses grad(distance) ~ grad(field) / |grad(field)|.
  const nominalWidth = style.riverHalfWidth * 6;
  const width = Math.max(nominalWidth, footprint * 2);
  const q = riverDistance / width;
  if (q > -1 && q < 1 && riverMask > 0) {
    const one = 1 - q * q;
    const depth = (RIVER_CARVE_DEPTH * riverMask * nominalWidth) / width;
    h -= depth * one * one;
    const slope = (depth * 4 * q * one) / width / rgl;
    dx += slope * rgx;
    dy += slope * rgy;
  }
  out.height = h < 0 ? 0 : Math.min(h, 1);
  out.dx = dx;
  out.dy = dy;
  out.riverMask = riverMask;
  out.riverDistance = riverDistance;
}

const lin = (r: number, g: number, b: number) => [
  srgbToLinear(r / 255),
  srgbToLinear(g / 255),
  srgbToLinear(b / 255),
];
const GRASS = lin(88, 118, 48);
const LUSH = lin(52, 96, 36);
const DESERT = lin(208, 178, 122);
const SNOW = lin(236, 240, 246);
const ROCK = lin(118, 108, 100);
const WATER = lin(34, 70, 96);
const ROAD = lin(146, 130, 104);

const scratchHeight: HeightSample = { height: 0, dx: 0, dy: 0, riverMask: 0, riverDistance: 0 };

/**
 * Shades one texel: writes sRGB albedo (alpha 255) and the tangent-space normal (x along +u,
 * y along +v i.e. down the texel rows, z out of the surface; encoded `n * 127.5 + 127.5`, alpha
 * 255) at byte `offset`. `footprint` is the texel's width in mip-0 texels.
 */
export function shadeTexel(
  acc: Float64Array,
  footprint: number,
  style: TerrainStyle,
  albedo: Uint8Array,
  normal: Uint8Array,
  offset: number,
): void {
  const hs = scratchHeight;
  terrainHeight(acc, style, footprint, hs);
  const h = hs.height;
  const sx = hs.dx * style.reliefTexels;
  const sy = hs.dy * style.reliefTexels;
  const slope = Math.sqrt(sx * sx + sy * sy);

  const temperature = 0.5 + 0.9 * acc[CH_TEMPERATURE] - (h - 0.5) * 0.7;
  const moisture = 0.5 + 0.9 * acc[CH_MOISTURE];
  const lush = smoothstep(0.45, 0.7, moisture);
  let r = GRASS[0] + (LUSH[0] - GRASS[0]) * lush;
  let g = GRASS[1] + (LUSH[1] - GRASS[1]) * lush;
  let b = GRASS[2] + (LUSH[2] - GRASS[2]) * lush;
  const desert = smoothstep(0.52, 0.64, temperature) * smoothstep(0.5, 0.36, moisture);
  r += (DESERT[0] - r) * desert;
  g += (DESERT[1] - g) * desert;
  b += (DESERT[2] - b) * desert;
  const rock = Math.max(smoothstep(0.45, 0.9, slope), smoothstep(0.66, 0.74, h));
  r += (ROCK[0] - r) * rock;
  g += (ROCK[1] - g) * rock;
  b += (ROCK[2] - b) * rock;
  const snow =
    Math.max(smoothstep(0.28, 0.18, temperature), smoothstep(0.76, 0.84, h)) *
    (1 - 0.6 * smoothstep(0.7, 1.2, slope));
  r += (SNOW[0] - r) * snow;
  g += (SNOW[1] - g) * snow;
  b += (SNOW[2] - b) * snow;
  const detail = 1 + 0.35 * acc[CH_DETAIL] * style.detailScale;
  r *= detail;
  g *= detail;
  b *= detail;

  const riverCover = stripCoverage(hs.riverDistance, style.riverHalfWidth, footprint) * hs.riverMask;
  const sea = smoothstep(SEA_LEVEL, SEA_LEVEL - 0.02, h);
  const water = Math.max(riverCover, sea);
  r += (WATER[0] - r) * water;
  g += (WATER[1] - g) * water;
  b += (WATER[2] - b) * water;

  const rgx = acc[CH_ROAD_DX];
  const rgy = acc[CH_ROAD_DY];
  const roadDistance = acc[CH_ROAD] / (Math.sqrt(rgx * rgx + rgy * rgy) + 1e-12);
  const roadMask = (1 - snow) * (1 - water) * smoothstep(0.7, 0.62, h) * (1 - smoothstep(0.5, 0.8, slope));
  const road = stripCoverage(roadDistance, style.roadHalfWidth, footprint) * roadMask;
  r += (ROAD[0] - r) * road;
  g += (ROAD[1] - g) * road;
  b += (ROAD[2] - b) * road;

  albedo[offset] = linearToSrgbByte(r);
  albedo[offset + 1] = linearToSrgbByte(g);
  albedo[offset + 2] = linearToSrgbByte(b);
  albedo[offset + 3] = 255;

  const flat = water * 0.8;
  const nx = -sx * (1 - flat);
  const ny = -sy * (1 - flat);
  const inv = 1 / Math.sqrt(nx * nx + ny * ny + 1);
  normal[offset] = (nx * inv * 127.5 + 128) | 0;
  normal[offset + 1] = (ny * inv * 127.5 + 128) | 0;
  normal[offset + 2] = (inv * 127.5 + 128) | 0;
  normal[offset + 3] = 255;
}
