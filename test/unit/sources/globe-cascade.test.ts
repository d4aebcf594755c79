import { describe, expect, it } from 'vitest';
import {
  anchorFrame,
  groundOffset,
  levelUvTransform,
  MERCATOR_MAX_LATITUDE,
  mercatorDifference,
  mercatorY,
  placeRegion,
  planGlobeCascade,
  regionShouldMove,
  worldTexel,
} from '../../../src/sources/imagery/globe-cascade';

const DEG = Math.PI / 180;

describe('planGlobeCascade', () => {
  it('keeps the whole world to the finest zoom that fits 4096 pages, regions below', () => {
    // 120-texel payload: z10 is 262144 texels (2185 pages), z11 would need 4370.
    expect(planGlobeCascade(0, 18, 256, 120).levels).toEqual([
      { zoom: 10, region: false, pages: 4096, texels: 262144 },
      { zoom: 18, region: true, pages: 4096, texels: 4096 * 120 },
    ]);
    expect(planGlobeCascade(0, 18, 256, 248).levels.map((l) => l.zoom)).toEqual([11, 18]);
    // Pages of 264 with a border of 4: one tile per page, the whole world to z12, a z18 region of a z6 tile.
    expect(planGlobeCascade(0, 18, 256, 256).levels).toEqual([
      { zoom: 12, region: false, pages: 4096, texels: 2 ** 20 },
      { zoom: 18, region: true, pages: 4096, texels: 2 ** 20 },
    ]);
    // Deeper pyramids nest regions 8 zooms apart (each spans 12 zooms of mips).
    expect(planGlobeCascade(0, 24, 256, 120).levels.map((l) => l.zoom)).toEqual([10, 16, 24]);
    // A pyramid the whole world holds needs no region.
    expect(planGlobeCascade(0, 6, 256, 120).levels).toEqual([
      { zoom: 6, region: false, pages: 256, texels: 16384 },
    ]);
  });

  it('refuses a pyramid whose coarsest zoom is over 4096 pages, and bad arguments', () => {
    expect(() => planGlobeCascade(12, 18, 256, 120)).toThrow(/does not fit/);
    expect(() => planGlobeCascade(3, 2, 256, 120)).toThrow();
    expect(() => planGlobeCascade(0, 18, 256, 0)).toThrow();
    expect(() => planGlobeCascade(0, 18, 256, 120, 3000)).toThrow();
  });
});

describe('placeRegion and regionShouldMove', () => {
  const world = 256 * 2 ** 18;
  const side = 4096 * 120;
  const alignment = 4096;

  it('centres an aligned region on the ground point, inside the world', () => {
    for (const [gx, gy] of [
      [0.5 * world + 12345.6, 0.3 * world + 777.7],
      [1000, 5000],
      [world - 3, world - 1],
    ]) {
      const [x, y] = placeRegion(gx, gy, side, alignment, world);
      expect(x % alignment).toBe(0);
      expect(y % alignment).toBe(0);
      expect(x).toBeGreaterThanOrEqual(0);
      expect(x + side).toBeLessThanOrEqual(world);
      expect(y + side).toBeLessThanOrEqual(world);
      // The ground point is inside, away from the edges unless the world's edge is near.
      for (const [g, o] of [
        [gx, x],
        [gy, y],
      ]) {
        expect(g).toBeGreaterThanOrEqual(o);
        expect(g).toBeLessThanOrEqual(o + side);
        const nearWorldEdge = g < side / 2 || g > world - side / 2;
        if (!nearWorldEdge) expect(Math.abs(g - (o + side / 2))).toBeLessThanOrEqual(alignment / 2);
      }
    }
  });

  it('moves only past a quarter of the region, and never at the edge of the world', () => {
    const gx = 0.5 * world + 10;
    const gy = 0.5 * world + 10;
    const [x, y] = placeRegion(gx, gy, side, alignment, world);
    expect(regionShouldMove(x, y, gx, gy, side, alignment, world)).toBe(false);
    expect(regionShouldMove(x, y, gx + side / 4 - alignment, gy, side, alignment, world)).toBe(false);
    expect(regionShouldMove(x, y, gx + side / 4 + alignment, gy, side, alignment, world)).toBe(true);
    expect(regionShouldMove(x, y, gx, gy - side / 2, side, alignment, world)).toBe(true);
    // Right against the world's edge the placement cannot follow: it stays.
    const [ex, ey] = placeRegion(5, 5, side, alignment, world);
    expect([ex, ey]).toEqual([0, 0]);
    expect(regionShouldMove(ex, ey, 5, 5, side, alignment, world)).toBe(false);
    // After a move the camera is central again: the next move needs another quarter.
    const [mx, my] = placeRegion(gx + side / 3, gy, side, alignment, world);
    expect(regionShouldMove(mx, my, gx + side / 3, gy, side, alignment, world)).toBe(false);
  });
});

describe('the ground offset the shader computes', () => {
  /** Where a ray meets the unit sphere, found the plain way in doubles: [lon, lat] radians. */
  function hitLonLat(
    camera: [number, number, number],
    dir: [number, number, number],
  ): [number, number] | null {
    const b = camera[0] * dir[0] + camera[1] * dir[1] + camera[2] * dir[2];
    const c = camera[0] ** 2 + camera[1] ** 2 + camera[2] ** 2 - 1;
    const disc = b * b - c;
    if (disc < 0) return null;
    const t = -b - Math.sqrt(disc);
    const p = [camera[0] + t * dir[0], camera[1] + t * dir[1], camera[2] + t * dir[2]];
    return [Math.atan2(-p[2], p[0]), Math.asin(p[1] / Math.hypot(p[0], p[1], p[2]))];
  }

  /** A camera `altitude` radii above (lon, lat), and a ray tilted `tilt` from straight down towards `heading`. */
  function view(lon: number, lat: number, altitude: number, tilt: number, heading: number) {
    const r = 1 + altitude;
    const camera: [number, number, number] = [
      r * Math.cos(lat) * Math.cos(lon),
      r * Math.sin(lat),
      -r * Math.cos(lat) * Math.sin(lon),
    ];
    const frame = anchorFrame(...camera);
    const b = frame.basis;
    const e = Math.sin(tilt) * Math.sin(heading);
    const n = Math.sin(tilt) * Math.cos(heading);
    const u = -Math.cos(tilt);
    // World direction = e * E + n * N + u * U (the basis rows).
    const dir: [number, number, number] = [
      e * b[0] + n * b[3] + u * b[6],
      e * b[1] + n * b[4] + u * b[7],
      e * b[2] + n * b[5] + u * b[8],
    ];
    return { camera, frame, dir, enu: [e, n, u] as const };
  }

  it('in doubles, equals intersecting the sphere and projecting, in longitude and Mercator y', () => {
    for (const [lonDeg, latDeg, altitude, tiltDeg, headingDeg] of [
      [2.3522, 48.8566, 2.7e-5, 30, 40],
      [-74.006, 40.7128, 1e-3, 60, 200],
      [151.2, -33.87, 0.05, 20, 100],
      [179.9, 10, 0.5, 10, 90],
      [0, 84.9, 0.01, 5, 0],
    ]) {
      const v = view(lonDeg * DEG, latDeg * DEG, altitude, tiltDeg * DEG, headingDeg * DEG);
      const offset = groundOffset(v.frame, v.enu[0], v.enu[1], v.enu[2]);
      const hit = hitLonLat(v.camera, v.dir);
      expect(offset).not.toBeNull();
      expect(hit).not.toBeNull();
      const [lon, lat] = hit as [number, number];
      let dLon = lon - v.frame.lon;
      dLon -= 2 * Math.PI * Math.round(dLon / (2 * Math.PI));
      const [gotLon, gotMerc] = offset as [number, number];
      expect(gotLon).toBeCloseTo(dLon, 11);
      expect(gotMerc).toBeCloseTo(mercatorY(lat) - mercatorY(v.frame.lat), 9);
    }
  });

  it('in float32, places ground at street level within a small fraction of a zoom-18 texel', () => {
    const f = Math.fround;
    const texelsPerRadian = (256 * 2 ** 18) / (2 * Math.PI);
    let worst = 0;
    for (let i = 0; i < 200; i++) {
      // Deterministic spread of views: latitudes to 70 degrees, altitudes 100 m to 2 km, tilts to 60 degrees.
      const lon = ((i * 137.5) % 360) - 180;
      const lat = ((i * 61.3) % 140) - 70;
      const altitude = (100 + ((i * 97) % 1900)) / 6.371e6;
      const v = view(lon * DEG, lat * DEG, altitude, ((i * 13) % 60) * DEG, ((i * 47) % 360) * DEG);
      const exact = groundOffset(v.frame, v.enu[0], v.enu[1], v.enu[2]) as [number, number];
      const single = groundOffset(v.frame, f(v.enu[0]), f(v.enu[1]), f(v.enu[2]), f) as [number, number];
      worst = Math.max(
        worst,
        Math.abs(exact[0] - single[0]) * texelsPerRadian,
        Math.abs(exact[1] - single[1]) * texelsPerRadian,
      );
    }
    expect(worst).toBeLessThan(0.05);
  });

  it('the same world uv from anchors anywhere (the anchor only changes where precision is)', () => {
    const world = 256 * 2 ** 18;
    const v = view(2.3522 * DEG, 48.8566 * DEG, 2.7e-5, 35 * DEG, 10 * DEG);
    const hit = hitLonLat(v.camera, v.dir) as [number, number];
    const [gx, gy] = worldTexel(hit[0], hit[1], world);
    const t = levelUvTransform(v.frame, world, 0, 0, world);
    const [dLon, dMerc] = groundOffset(v.frame, v.enu[0], v.enu[1], v.enu[2]) as [number, number];
    expect((t.offsetX + t.scale * dLon) * world).toBeCloseTo(gx, 3);
    expect((t.offsetY - t.scale * dMerc) * world).toBeCloseTo(gy, 3);
  });
});

describe('mercatorDifference', () => {
  it('equals the difference of Mercator ys, by series and by logarithms', () => {
    for (const lat of [-80, -45, 0, 12.5, 48.8566, 70, 84]) {
      for (const d of [1e-7, -3e-5, 2e-3, -0.004, 0.05, -0.3, 0.9]) {
        const a = lat * DEG;
        const b = Math.max(-MERCATOR_MAX_LATITUDE, Math.min(MERCATOR_MAX_LATITUDE, a + d));
        const expected = mercatorY(b) - mercatorY(a);
        expect(mercatorDifference(a, b - a)).toBeCloseTo(expected, 10);
      }
    }
  });
});
