import { describe, expect, it } from 'vitest';
import { parseDemoParams } from '../../../demo/params';
import { REGIONS, REGIONS_SEED } from '../../../demo/regions';
import { TERRAIN_SIZE_METERS } from '../../../demo/world/height-field';
import { ProceduralWorld } from '../../../src/sources/procedural/procedural-world';
import { SEA_LEVEL as PROCEDURAL_SEA_LEVEL } from '../../../src/sources/procedural/world-shading';

/**
 * The regions' centres are where `demo/world/survey-region-centres.ts` found land of their biomes
 * in the demo's default world; the browser check of what the ground shows there is
 * `test/browser/demo/demo-budget-short.spec.ts`. These are the cheap invariants.
 */
describe('demo regions', () => {
  it('are placed on the default seed', () => {
    expect(parseDemoParams('').seed).toBe(REGIONS_SEED);
  });

  it('have dry ground within 250 m of each centre (the rendered terrain draws no water there)', () => {
    const world = new ProceduralWorld({ seed: REGIONS_SEED });
    for (const { name, centre } of REGIONS) {
      let wet = 0;
      for (let dz = -250; dz <= 250; dz += 25) {
        for (let dx = -250; dx <= 250; dx += 25) {
          if (Math.hypot(dx, dz) > 250) continue;
          const u = (centre.x + dx) / TERRAIN_SIZE_METERS + 0.5;
          const v = (centre.z + dz) / TERRAIN_SIZE_METERS + 0.5;
          if (world.heightAt(u, v, 4) < PROCEDURAL_SEA_LEVEL) wet++;
        }
      }
      expect(wet, name).toBe(0);
    }
  });

  it('lie far enough apart that each blend of sand or snow stays in its own region', () => {
    for (const a of REGIONS) {
      for (const b of REGIONS) {
        if (a === b) continue;
        // A region's biome weight fades to 0 at 1.35 radii (demo/terrain/rendered-terrain.ts).
        const distance = Math.hypot(a.centre.x - b.centre.x, a.centre.z - b.centre.z);
        expect(distance, `${a.name}-${b.name}`).toBeGreaterThan(1.35 * Math.max(a.radius, b.radius));
      }
    }
  });
});
