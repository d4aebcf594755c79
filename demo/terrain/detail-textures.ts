/**
 * The terrain's tiling detail textures (grass, rock, sand, snow), painted procedurally at start-up
 * on the CPU (a few milliseconds each, once): small tileable images with real high-frequency
 * content (grass blades, pebbles, cracks, ripples, sparkle) that the runtime virtual texture
 * blends by the splat map and renders into its pages at each page's resolution.
 */

import { DataTexture, LinearMipmapLinearFilter, RepeatWrapping, RGBAFormat, SRGBColorSpace } from 'three';
import { seededRandom } from '../world/seeded-random';

/** Side of each detail texture, in texels (tileable). */
export const DETAIL_TEXTURE_SIZE = 256;

/** A tileable RGB canvas of floats (sRGB 0..1) with wrapped drawing helpers. */
class Canvas {
  readonly rgb: Float32Array;
  constructor(readonly size: number) {
    this.rgb = new Float32Array(size * size * 3);
  }
  index(x: number, y: number): number {
    const s = this.size;
    return ((((y % s) + s) % s) * s + (((x % s) + s) % s)) * 3;
  }
  fill(r: number, g: number, b: number): void {
    for (let i = 0; i < this.rgb.length; i += 3) this.rgb.set([r, g, b], i);
  }
  /** Blends colour `c` into (x, y) with weight `a`. */
  blend(x: number, y: number, c: readonly number[], a: number): void {
    const i = this.index(Math.round(x), Math.round(y));
    for (let k = 0; k < 3; k++) this.rgb[i + k] += (c[k] - this.rgb[i + k]) * a;
  }
  /** Multiplies every texel by (1 + amount x tileable value noise of `cells` cells per side). */
  noise(random: () => number, cells: number, amount: number): void {
    const lattice = Array.from({ length: cells * cells }, () => random() * 2 - 1);
    const s = this.size;
    for (let y = 0; y < s; y++) {
      for (let x = 0; x < s; x++) {
        const fx = (x / s) * cells;
        const fy = (y / s) * cells;
        const x0 = Math.floor(fx);
        const y0 = Math.floor(fy);
        const tx = smooth(fx - x0);
        const ty = smooth(fy - y0);
        const at = (i: number, j: number) => lattice[(j % cells) * cells + (i % cells)];
        const top = at(x0, y0) + (at(x0 + 1, y0) - at(x0, y0)) * tx;
        const bottom = at(x0, y0 + 1) + (at(x0 + 1, y0 + 1) - at(x0, y0 + 1)) * tx;
        const f = 1 + amount * (top + (bottom - top) * ty);
        const i = (y * s + x) * 3;
        for (let k = 0; k < 3; k++) this.rgb[i + k] *= f;
      }
    }
  }
  /** A shaded pebble: a disc lit from the top-left with a dark rim. */
  pebble(cx: number, cy: number, r: number, c: readonly number[]): void {
    for (let y = -r - 1; y <= r + 1; y++) {
      for (let x = -r - 1; x <= r + 1; x++) {
        const d = Math.hypot(x, y) / r;
        if (d > 1.15) continue;
        const light = 1 + 0.45 * (-(x + y) / (r * 1.4));
        const shade =
          d > 1 ? [c[0] * 0.35, c[1] * 0.35, c[2] * 0.35] : c.map((v) => v * light * (1 - 0.3 * d * d));
        this.blend(cx + x, cy + y, shade, d > 1 ? 0.6 : 1);
      }
    }
  }
  /** A thin stroke from (x, y) along (dx, dy), `length` texels, colour fading from `base` to `tip`. */
  stroke(
    x: number,
    y: number,
    dx: number,
    dy: number,
    length: number,
    base: readonly number[],
    tip: readonly number[],
  ): void {
    for (let t = 0; t <= length; t++) {
      const f = t / length;
      const c = base.map((b, k) => b + (tip[k] - b) * f);
      this.blend(x + dx * t, y + dy * t, c, 0.9);
    }
  }
  texture(name: string): DataTexture {
    const s = this.size;
    const bytes = new Uint8Array(s * s * 4);
    for (let i = 0, o = 0; i < this.rgb.length; i += 3, o += 4) {
      bytes[o] = clampByte(this.rgb[i]);
      bytes[o + 1] = clampByte(this.rgb[i + 1]);
      bytes[o + 2] = clampByte(this.rgb[i + 2]);
      bytes[o + 3] = 255;
    }
    const texture = new DataTexture(bytes, s, s, RGBAFormat);
    texture.name = `demo:detail:${name}`;
    texture.colorSpace = SRGBColorSpace;
    texture.wrapS = RepeatWrapping;
    texture.wrapT = RepeatWrapping;
    texture.minFilter = LinearMipmapLinearFilter;
    texture.generateMipmaps = true;
    texture.anisotropy = 4;
    texture.needsUpdate = true;
    return texture;
  }
}

function smooth(t: number): number {
  return t * t * (3 - 2 * t);
}

function clampByte(v: number): number {
  return Math.max(0, Math.min(255, Math.round(v * 255)));
}

/** The four detail textures, in splat channel order: grass, rock, sand, snow. */
export interface DetailTextures {
  grass: DataTexture;
  rock: DataTexture;
  sand: DataTexture;
  snow: DataTexture;
}

/** Paints the four detail textures for `seed` (deterministic). */
export function createDetailTextures(seed: number, size = DETAIL_TEXTURE_SIZE): DetailTextures {
  const random = seededRandom(seed ^ 0x5eed);
  return {
    grass: grass(random, size),
    rock: rock(random, size),
    sand: sand(random, size),
    snow: snow(random, size),
  };
}

function grass(random: () => number, size: number): DataTexture {
  const c = new Canvas(size);
  c.fill(0.24, 0.36, 0.12);
  c.noise(random, 8, 0.35);
  c.noise(random, 32, 0.2);
  // Soil and a few pebbles showing between the blades.
  for (let i = 0; i < 40; i++)
    c.pebble(random() * size, random() * size, 1 + Math.floor(random() * 3), [0.42, 0.38, 0.3]);
  for (let i = 0; i < size * 14; i++) {
    const angle = -Math.PI / 2 + (random() - 0.5) * 1.1;
    const length = 4 + random() * 9;
    const g = 0.35 + random() * 0.35;
    const tip = random() < 0.15 ? [0.62, 0.6, 0.25] : [0.3 * g + 0.1, g + 0.15, 0.12];
    c.stroke(
      random() * size,
      random() * size,
      Math.cos(angle),
      Math.sin(angle),
      length,
      [0.1, 0.2, 0.06],
      tip,
    );
  }
  return c.texture('grass');
}

function rock(random: () => number, size: number): DataTexture {
  const c = new Canvas(size);
  c.fill(0.46, 0.44, 0.41);
  c.noise(random, 4, 0.3);
  c.noise(random, 16, 0.25);
  c.noise(random, 64, 0.15);
  // Cracks: dark random walks.
  for (let i = 0; i < 26; i++) {
    let x = random() * size;
    let y = random() * size;
    let angle = random() * Math.PI * 2;
    for (let t = 0; t < 30 + random() * 60; t++) {
      angle += (random() - 0.5) * 0.6;
      x += Math.cos(angle);
      y += Math.sin(angle);
      c.blend(x, y, [0.12, 0.11, 0.1], 0.85);
    }
  }
  for (let i = 0; i < 90; i++)
    c.pebble(random() * size, random() * size, 1 + Math.floor(random() * 4), [0.55, 0.53, 0.5]);
  return c.texture('rock');
}

function sand(random: () => number, size: number): DataTexture {
  const c = new Canvas(size);
  c.fill(0.76, 0.66, 0.46);
  c.noise(random, 8, 0.12);
  // Wind ripples (whole periods per tile, so it tiles), then grain.
  const s = size;
  for (let y = 0; y < s; y++) {
    for (let x = 0; x < s; x++) {
      const ripple = Math.sin(((x + 6 * Math.sin((y / s) * Math.PI * 4)) / s) * Math.PI * 2 * 24);
      const i = (y * s + x) * 3;
      const f = 1 + 0.08 * ripple + (random() - 0.5) * 0.22;
      for (let k = 0; k < 3; k++) c.rgb[i + k] *= f;
    }
  }
  for (let i = 0; i < 60; i++)
    c.pebble(random() * size, random() * size, 1 + Math.floor(random() * 2), [0.55, 0.46, 0.36]);
  return c.texture('sand');
}

function snow(random: () => number, size: number): DataTexture {
  const c = new Canvas(size);
  c.fill(0.86, 0.9, 0.96);
  c.noise(random, 4, 0.08);
  c.noise(random, 32, 0.06);
  // Footprint-like hollows and sparkle.
  for (let i = 0; i < 50; i++)
    c.pebble(random() * size, random() * size, 2 + Math.floor(random() * 3), [0.7, 0.76, 0.86]);
  for (let i = 0; i < size * 3; i++) c.blend(random() * size, random() * size, [1, 1, 1], 1);
  return c.texture('snow');
}
