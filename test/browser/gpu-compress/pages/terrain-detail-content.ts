/**
 * Terrain-like detail tiles generated for the compressor's quality checks: the high-frequency
 * content a rendered terrain page holds close to the ground (per-texel grain, grass strokes,
 * shaded pebbles, road markings, a height-derived normal map). Deterministic per seed; the seeds
 * used by the tests are not the ones the encoder was looked at with.
 */

/** Kinds of generated content. */
export type DetailContent = 'grass' | 'pebbles' | 'road' | 'normals';

function hash(x: number, y: number, seed: number): number {
  let h = (x * 374761393 + y * 668265263 + seed * 2147483647) | 0;
  h = Math.imul(h ^ (h >>> 13), 1274126177);
  return ((h ^ (h >>> 16)) >>> 0) / 4294967296;
}

function valueNoise(x: number, y: number, period: number, seed: number): number {
  const fx = x / period;
  const fy = y / period;
  const ix = Math.floor(fx);
  const iy = Math.floor(fy);
  const tx = fx - ix;
  const ty = fy - iy;
  const sx = tx * tx * (3 - 2 * tx);
  const sy = ty * ty * (3 - 2 * ty);
  const a = hash(ix, iy, seed);
  const b = hash(ix + 1, iy, seed);
  const c = hash(ix, iy + 1, seed);
  const d = hash(ix + 1, iy + 1, seed);
  return a + (b - a) * sx + (c - a) * sy + (a - b - c + d) * sx * sy;
}

/** Fractal noise in [0, 1) from a 32-texel period down to 2 texels. */
function fbm(x: number, y: number, seed: number): number {
  let sum = 0;
  let weight = 0;
  let amplitude = 1;
  for (let period = 32; period >= 2; period /= 2) {
    sum += valueNoise(x, y, period, seed + period) * amplitude;
    weight += amplitude;
    amplitude *= 0.6;
  }
  return sum / weight;
}

function random(seed: number): () => number {
  let state = seed >>> 0 || 1;
  return () => {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    return state / 4294967296;
  };
}

type Rgb = [number, number, number];

function mixRgb(a: Rgb, b: Rgb, t: number): Rgb {
  return [a[0] + (b[0] - a[0]) * t, a[1] + (b[1] - a[1]) * t, a[2] + (b[2] - a[2]) * t];
}

function put(rgba: Uint8Array, size: number, x: number, y: number, c: Rgb): void {
  if (x < 0 || y < 0 || x >= size || y >= size) return;
  const o = (y * size + x) * 4;
  rgba[o] = Math.max(0, Math.min(255, Math.round(c[0])));
  rgba[o + 1] = Math.max(0, Math.min(255, Math.round(c[1])));
  rgba[o + 2] = Math.max(0, Math.min(255, Math.round(c[2])));
  rgba[o + 3] = 255;
}

function fillGround(
  rgba: Uint8Array,
  size: number,
  seed: number,
  dark: Rgb,
  light: Rgb,
  grain: number,
): void {
  const rand = random(seed * 7 + 1);
  for (let y = 0; y < size; y++) {
    for (let x = 0; x < size; x++) {
      const c = mixRgb(dark, light, fbm(x, y, seed));
      const g = (rand() - 0.5) * grain;
      put(rgba, size, x, y, [c[0] + g, c[1] + g, c[2] + g]);
    }
  }
}

function grass(rgba: Uint8Array, size: number, seed: number): void {
  fillGround(rgba, size, seed, [38, 58, 20], [96, 128, 44], 18);
  const rand = random(seed);
  const blades = (size * size) / 24;
  for (let i = 0; i < blades; i++) {
    let x = rand() * size;
    let y = rand() * size;
    const angle = -Math.PI / 2 + (rand() - 0.5) * 1.4;
    const length = 4 + rand() * 9;
    const tone: Rgb = rand() < 0.15 ? [170, 160, 70] : mixRgb([30, 70, 18], [140, 190, 70], rand());
    for (let s = 0; s < length; s++) {
      put(rgba, size, Math.floor(x), Math.floor(y), mixRgb(tone, [20, 40, 10], (s / length) * 0.4));
      x += Math.cos(angle);
      y += Math.sin(angle);
    }
  }
}

function pebbles(rgba: Uint8Array, size: number, seed: number): void {
  fillGround(rgba, size, seed, [110, 90, 62], [176, 150, 110], 26);
  const rand = random(seed);
  const count = (size * size) / 220;
  for (let i = 0; i < count; i++) {
    const cx = rand() * size;
    const cy = rand() * size;
    const rx = 2.5 + rand() * 8;
    const ry = rx * (0.6 + rand() * 0.4);
    const base = mixRgb([88, 84, 80], [200, 190, 175], rand());
    for (let y = Math.floor(cy - ry - 1); y <= cy + ry + 1; y++) {
      for (let x = Math.floor(cx - rx - 1); x <= cx + rx + 1; x++) {
        const dx = (x - cx) / rx;
        const dy = (y - cy) / ry;
        const r2 = dx * dx + dy * dy;
        if (r2 > 1) continue;
        // Lit from the top left, dark rim, a little speckle.
        const shade = 0.65 + 0.45 * (-dx - dy) * 0.5 + (1 - r2) * 0.25;
        const rim = r2 > 0.8 ? 0.55 : 1;
        const speckle = (hash(x, y, seed) - 0.5) * 30;
        put(rgba, size, x, y, [
          base[0] * shade * rim + speckle,
          base[1] * shade * rim + speckle,
          base[2] * shade * rim + speckle,
        ]);
      }
    }
  }
}

function road(rgba: Uint8Array, size: number, seed: number): void {
  fillGround(rgba, size, seed, [44, 44, 46], [82, 80, 78], 40);
  const rand = random(seed);
  const centre = size * (0.35 + rand() * 0.3);
  for (let y = 0; y < size; y++) {
    for (let x = 0; x < size; x++) {
      const worn = hash(x, y, seed + 3) < 0.12;
      // A dashed white centre line, 4 texels wide; a solid yellow edge line.
      if (Math.abs(x - centre) < 2 && (y + seed) % 24 < 14 && !worn) put(rgba, size, x, y, [232, 232, 226]);
      if (Math.abs(x - size * 0.08) < 1.5 && !worn) put(rgba, size, x, y, [222, 180, 40]);
    }
  }
  for (let c = 0; c < 6; c++) {
    let x = rand() * size;
    let y = rand() * size;
    for (let s = 0; s < 40; s++) {
      put(rgba, size, Math.floor(x), Math.floor(y), [22, 22, 24]);
      x += rand() * 2 - 1;
      y += rand() * 1.6 - 0.3;
    }
  }
}

function normals(rgba: Uint8Array, size: number, seed: number): void {
  const height = (x: number, y: number) => fbm(x, y, seed) * 6 + valueNoise(x, y, 3, seed + 99) * 1.5;
  for (let y = 0; y < size; y++) {
    for (let x = 0; x < size; x++) {
      const dx = height(x + 1, y) - height(x - 1, y);
      const dy = height(x, y + 1) - height(x, y - 1);
      const inv = 1 / Math.hypot(dx, dy, 2);
      put(rgba, size, x, y, [
        (-dx * inv * 0.5 + 0.5) * 255,
        (-dy * inv * 0.5 + 0.5) * 255,
        (2 * inv * 0.5 + 0.5) * 255,
      ]);
    }
  }
}

/** A `size²` rgba8 tile of `kind`, alpha 255. */
export function detailTile(kind: DetailContent, size: number, seed: number): Uint8Array {
  const rgba = new Uint8Array(size * size * 4);
  if (kind === 'grass') grass(rgba, size, seed);
  else if (kind === 'pebbles') pebbles(rgba, size, seed);
  else if (kind === 'road') road(rgba, size, seed);
  else normals(rgba, size, seed);
  return rgba;
}

/** PSNR of `actual` against `expected` (rgba8, same size) over the first `channels` channels, dB. */
export function psnr(expected: Uint8Array, actual: Uint8Array, channels: number): number {
  let sum = 0;
  let count = 0;
  for (let i = 0; i < expected.length; i += 4) {
    for (let c = 0; c < channels; c++) {
      const d = expected[i + c] - actual[i + c];
      sum += d * d;
      count++;
    }
  }
  if (sum === 0) return Number.POSITIVE_INFINITY;
  return 10 * Math.log10((255 * 255) / (sum / count));
}

/**
 * The best PSNR any encoder holding each 4x4 block's colours on one straight line (BC7 mode 6,
 * BC1, any single-subset mode) can reach on `rgba` (`size²`, RGB): per block, the error left after
 * projecting the texels onto their principal axis, with unquantized endpoints and weights, dB.
 */
export function lineFitPsnr(rgba: Uint8Array, size: number): number {
  let residual = 0;
  for (let by = 0; by < size; by += 4) {
    for (let bx = 0; bx < size; bx += 4) {
      const texels: number[][] = [];
      const mean = [0, 0, 0];
      for (let j = 0; j < 16; j++) {
        const o = ((by + (j >> 2)) * size + bx + (j & 3)) * 4;
        const t = [rgba[o], rgba[o + 1], rgba[o + 2]];
        texels.push(t);
        for (let c = 0; c < 3; c++) mean[c] += t[c] / 16;
      }
      const cov = [0, 0, 0, 0, 0, 0, 0, 0, 0];
      for (const t of texels) {
        for (let a = 0; a < 3; a++)
          for (let b = 0; b < 3; b++) cov[a * 3 + b] += (t[a] - mean[a]) * (t[b] - mean[b]);
      }
      let axis = [1, 1, 1];
      for (let n = 0; n < 32; n++) {
        const next = [0, 1, 2].map(
          (a) => cov[a * 3] * axis[0] + cov[a * 3 + 1] * axis[1] + cov[a * 3 + 2] * axis[2],
        );
        const length = Math.hypot(next[0], next[1], next[2]);
        if (length < 1e-9) break;
        axis = next.map((v) => v / length);
      }
      for (const t of texels) {
        const d = [t[0] - mean[0], t[1] - mean[1], t[2] - mean[2]];
        const along = d[0] * axis[0] + d[1] * axis[1] + d[2] * axis[2];
        residual += d[0] * d[0] + d[1] * d[1] + d[2] * d[2] - along * along;
      }
    }
  }
  return 10 * Math.log10(65025 / Math.max(residual / (size * size * 3), 1e-9));
}
