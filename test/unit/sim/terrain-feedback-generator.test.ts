import { describe, expect, it } from 'vitest';
import { TesseraConfigError } from '../../../src/core/errors';
import { feedbackJitterX, feedbackJitterY } from '../../../src/core/vt/feedback/feedback-jitter';
import { NO_REQUEST, pageMip, pageVt, pageX, pageY } from '../../../src/core/vt/page-id';
import { type CameraPose, createCameraPose } from '../../../src/sim/camera-pose';
import { TerrainFeedbackGenerator } from '../../../src/sim/terrain-feedback-generator';

// 256 pages x 120 payload texels = 30720 texels over 30720 world units: 1 mip-0 texel per unit.
const base = {
  vt: 3,
  widthPages: 256,
  heightPages: 256,
  worldWidth: 30720,
  screenWidth: 1928,
  screenHeight: 1080,
  feedbackWidth: 241, // odd sizes put a pixel centre exactly on the screen centre
  feedbackHeight: 135,
};

function lookingDown(height: number): CameraPose {
  // 90 degree vertical fov: one screen pixel at the centre spans 2 h / 1080 world units.
  return createCameraPose({
    x: 10000,
    y: height,
    z: 20000,
    pitch: -Math.PI / 2,
    fovY: Math.PI / 2,
    aspect: 1928 / 1080,
  });
}

/** Ray-plane hit (world x, z) at NDC, from an independent camera basis built with vector math. */
function hit(pose: CameraPose, nx: number, ny: number): [number, number] {
  const f = [
    Math.sin(pose.yaw) * Math.cos(pose.pitch),
    Math.sin(pose.pitch),
    Math.cos(pose.yaw) * Math.cos(pose.pitch),
  ];
  const cross = (a: number[], b: number[]) => [
    a[1] * b[2] - a[2] * b[1],
    a[2] * b[0] - a[0] * b[2],
    a[0] * b[1] - a[1] * b[0],
  ];
  const norm = (a: number[]) => a.map((c) => c / Math.hypot(...a));
  const r = norm(cross(f, [0, 1, 0]));
  const u = cross(r, f);
  const ty = Math.tan(pose.fovY / 2);
  const d = [0, 1, 2].map((k) => f[k] + nx * ty * pose.aspect * r[k] + ny * ty * u[k]);
  const t = -pose.y / d[1];
  return [pose.x + t * d[0], pose.z + t * d[2]];
}

describe('TerrainFeedbackGenerator', () => {
  it('gives the expected mip and page for a camera looking straight down', () => {
    const gen = new TerrainFeedbackGenerator(base);
    // Footprint 2 h / 1080 texels per screen pixel: h = 2700 gives 5 texels, lambda log2 5 = 2.32.
    const buffer = gen.generate(lookingDown(2700));
    const centre = buffer[67 * 241 + 120];
    expect(pageVt(centre)).toBe(3);
    expect(pageMip(centre)).toBe(2);
    expect(pageX(centre)).toBe(Math.floor((10000 / 30720) * 64));
    expect(pageY(centre)).toBe(Math.floor((20000 / 30720) * 64));
    expect(gen.lambdaAt(lookingDown(2700), 0, 0)).toBeCloseTo(Math.log2(5), 9);
    // Twice as high: one mip coarser.
    expect(gen.lambdaAt(lookingDown(5400), 0, 0)).toBeCloseTo(Math.log2(10), 9);
    expect(pageMip(gen.generate(lookingDown(5400))[67 * 241 + 120])).toBe(3);
  });

  it('adds the mip bias and clamps to the mip chain', () => {
    const gen = new TerrainFeedbackGenerator(base);
    expect(pageMip(gen.generate(lookingDown(2700), 1)[67 * 241 + 120])).toBe(3);
    expect(pageMip(gen.generate(lookingDown(2700), -10)[67 * 241 + 120])).toBe(0);
    const top = gen.generate(lookingDown(2700), 20)[67 * 241 + 120];
    expect(pageMip(top)).toBe(8);
    expect(pageX(top)).toBe(0);
    expect(pageY(top)).toBe(0);
  });

  it('writes NO_REQUEST for sky and for rays that leave the terrain', () => {
    const gen = new TerrainFeedbackGenerator(base);
    const up = createCameraPose({ x: 100, y: 50, z: 100, pitch: 0.6 });
    expect(gen.generate(up).every((v) => v === NO_REQUEST)).toBe(true);
    const horizon = createCameraPose({ x: 15000, y: 50, z: 15000, pitch: 0, yaw: 0.3 });
    const buffer = gen.generate(horizon);
    expect(buffer[0]).toBe(NO_REQUEST); // top row: sky
    expect(buffer[buffer.length - 1]).not.toBe(NO_REQUEST); // bottom row: ground
    const outside = createCameraPose({ x: -5000, y: 100, z: -5000, pitch: -Math.PI / 2 });
    expect(gen.generate(outside).every((v) => v === NO_REQUEST)).toBe(true);
    const below = createCameraPose({ x: 1000, y: -1, z: 1000, pitch: -Math.PI / 2 });
    expect(gen.generate(below).every((v) => v === NO_REQUEST)).toBe(true);
  });

  it('matches finite differences of the ray hit, per screen pixel', () => {
    const iso = new TerrainFeedbackGenerator({ ...base, maxAnisotropy: 1 });
    const unlimited = new TerrainFeedbackGenerator({ ...base, maxAnisotropy: 1e9 });
    const pose = createCameraPose({
      x: 9000,
      y: 300,
      z: 7000,
      yaw: 0.7,
      pitch: -0.4,
      fovY: 1,
      aspect: 1928 / 1080,
    });
    for (const [nx, ny] of [
      [0, 0],
      [0.5, -0.3],
      [-0.8, -0.9],
    ]) {
      const e = 1e-4; // in screen pixels
      const dnx = (2 / 1928) * e;
      const dny = (2 / 1080) * e;
      const [x0, z0] = hit(pose, nx, ny);
      const [x1, z1] = hit(pose, nx + dnx, ny);
      const [x2, z2] = hit(pose, nx, ny + dny);
      const px = Math.hypot(x1 - x0, z1 - z0) / e; // texels = world units here
      const py = Math.hypot(x2 - x0, z2 - z0) / e;
      expect(iso.lambdaAt(pose, nx, ny)).toBeCloseTo(Math.log2(Math.max(px, py)), 3);
      expect(unlimited.lambdaAt(pose, nx, ny)).toBeCloseTo(Math.log2(Math.min(px, py)), 3);
    }
  });

  it('is anisotropy-aware: grazing views raise the mip, bounded by the anisotropy limit', () => {
    const pose = createCameraPose({
      x: 15000,
      y: 40,
      z: 2000,
      yaw: 0,
      pitch: -0.05,
      fovY: 1,
      aspect: 1928 / 1080,
    });
    const iso = new TerrainFeedbackGenerator({ ...base, maxAnisotropy: 1 });
    const aniso2 = new TerrainFeedbackGenerator({ ...base, maxAnisotropy: 2 });
    const aniso16 = new TerrainFeedbackGenerator({ ...base, maxAnisotropy: 16 });
    const unlimited = new TerrainFeedbackGenerator({ ...base, maxAnisotropy: 1e9 });
    const lIso = iso.lambdaAt(pose, 0, 0);
    // At this angle the footprint is more than 16x longer than wide, so every ratio binds: 2 takes
    // one mip off, and 16 or more the sampler's cap of 8 taps (MAX_ANISOTROPIC_TAPS), three mips.
    expect(aniso2.lambdaAt(pose, 0, 0)).toBeCloseTo(lIso - 1, 9);
    expect(aniso16.lambdaAt(pose, 0, 0)).toBeCloseTo(lIso - 3, 9);
    expect(unlimited.lambdaAt(pose, 0, 0)).toBeCloseTo(lIso - 3, 9);
    // The same slant distance seen head-on gives a finer mip than seen at a grazing angle.
    const distance = 40 / Math.sin(0.05);
    const headOn = createCameraPose({
      x: 15000,
      y: distance,
      z: 2000,
      pitch: -Math.PI / 2,
      fovY: 1,
      aspect: 1928 / 1080,
    });
    // (the footprint is ~1 / sin(0.05) = 20x longer: +log2(20 / limit) mips over head-on).
    expect(aniso2.lambdaAt(pose, 0, 0)).toBeGreaterThan(aniso2.lambdaAt(headOn, 0, 0) + 3);
    expect(aniso16.lambdaAt(pose, 0, 0)).toBeGreaterThan(aniso16.lambdaAt(headOn, 0, 0) + 0.3);
  });

  it('agrees with lambdaAt at every pixel, with jitter', () => {
    const gen = new TerrainFeedbackGenerator({ ...base, feedbackWidth: 40, feedbackHeight: 23 });
    const pose = createCameraPose({ x: 12000, y: 200, z: 9000, yaw: 2.1, pitch: -0.35, aspect: 1928 / 1080 });
    const jx = feedbackJitterX(5);
    const jy = feedbackJitterY(5);
    const buffer = gen.generate(pose, 0.25, jx, jy);
    let requests = 0;
    for (let j = 0; j < 23; j++) {
      for (let i = 0; i < 40; i++) {
        const lambda = gen.lambdaAt(pose, (2 * (i + jx)) / 40 - 1, 1 - (2 * (j + jy)) / 23, 0.25);
        const v = buffer[j * 40 + i];
        if (Number.isNaN(lambda)) {
          expect(v).toBe(NO_REQUEST);
        } else {
          requests++;
          expect(pageMip(v)).toBe(Math.min(Math.max(Math.floor(lambda), 0), 8));
        }
      }
    }
    expect(requests).toBeGreaterThan(0);
  });

  it('reuses its buffer and rejects bad configurations', () => {
    const gen = new TerrainFeedbackGenerator(base);
    expect(gen.generate(lookingDown(100))).toBe(gen.buffer);
    expect(() => new TerrainFeedbackGenerator({ ...base, widthPages: 100 })).toThrow(TesseraConfigError);
    expect(() => new TerrainFeedbackGenerator({ ...base, feedbackWidth: 0 })).toThrow(TesseraConfigError);
    expect(() => new TerrainFeedbackGenerator({ ...base, worldWidth: -1 })).toThrow(TesseraConfigError);
    expect(() => new TerrainFeedbackGenerator({ ...base, maxAnisotropy: 0.5 })).toThrow(TesseraConfigError);
    expect(() => new TerrainFeedbackGenerator({ ...base, vt: 16 })).toThrow(TesseraConfigError);
    expect(() => gen.generate(lookingDown(100), 0, 0.5, 0.5, new Uint32Array(3))).toThrow(TesseraConfigError);
  });

  it('handles non-square textures (coarse mips one page thick)', () => {
    const gen = new TerrainFeedbackGenerator({ ...base, widthPages: 256, heightPages: 64 });
    expect(gen.worldDepth).toBe(30720 / 4);
    const v = gen.generate(createCameraPose({ x: 20000, y: 100, z: 5000, pitch: -Math.PI / 2 }), 20)[
      67 * 241 + 120
    ];
    expect(pageMip(v)).toBe(8);
    expect(pageY(v)).toBe(0);
    expect(pageX(v)).toBe(0);
  });
});

describe('feedback jitter', () => {
  it('visits 16 distinct sub-pixel offsets per cycle', () => {
    const seen = new Set<string>();
    for (let f = 0; f < 16; f++) seen.add(`${feedbackJitterX(f)},${feedbackJitterY(f)}`);
    expect(seen.size).toBe(16);
    expect(feedbackJitterX(17)).toBe(feedbackJitterX(1));
  });
});
