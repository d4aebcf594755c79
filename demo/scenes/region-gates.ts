/**
 * Gates between regions: an arch halfway between two region centres. Flying through one switches to
 * the region on the far side (the "walk through a gate" trigger of a transition).
 */

import { BoxGeometry, Group, Mesh, MeshStandardMaterial, Vector3 } from 'three';
import type { RegionDefinition, RegionName } from '../regions';
import type { HeightField } from '../world/height-field';

/** Half the opening's width, metres. */
const HALF_WIDTH = 12;
/** Opening height, metres. */
const HEIGHT = 18;

interface Gate {
  centre: Vector3;
  /** Unit normal pointing from region `a` towards region `b` (x, z). */
  nx: number;
  nz: number;
  a: RegionName;
  b: RegionName;
}

/** The gates and their crossing test. Add {@link RegionGates.group} to the scene. */
export class RegionGates {
  readonly group = new Group();
  private readonly gates: Gate[] = [];

  constructor(regions: readonly RegionDefinition[], heights: HeightField) {
    this.group.name = 'gates';
    const material = new MeshStandardMaterial({ color: 0xd8c27a, emissive: 0x3a2a00, roughness: 0.6 });
    const pillar = new BoxGeometry(2.5, HEIGHT, 2.5).translate(0, HEIGHT / 2, 0);
    const lintel = new BoxGeometry(HALF_WIDTH * 2 + 5, 2.5, 3).translate(0, HEIGHT + 1.25, 0);
    for (let i = 0; i < regions.length; i++) {
      for (let j = i + 1; j < regions.length; j++) {
        const a = regions[i];
        const b = regions[j];
        const dx = b.centre.x - a.centre.x;
        const dz = b.centre.z - a.centre.z;
        const length = Math.hypot(dx, dz);
        const x = (a.centre.x + b.centre.x) / 2;
        const z = (a.centre.z + b.centre.z) / 2;
        const centre = new Vector3(x, heights.heightAt(x, z), z);
        const gate: Gate = { centre, nx: dx / length, nz: dz / length, a: a.name, b: b.name };
        this.gates.push(gate);
        const arch = new Group();
        arch.name = `gate:${a.name}-${b.name}`;
        arch.position.copy(centre);
        // The arch spans the tangent direction, so its local x axis is perpendicular to the normal.
        arch.rotation.y = Math.atan2(-gate.nz, gate.nx) + Math.PI / 2;
        const left = new Mesh(pillar, material);
        left.position.x = -HALF_WIDTH - 1.25;
        const right = new Mesh(pillar, material);
        right.position.x = HALF_WIDTH + 1.25;
        arch.add(left, right, new Mesh(lintel, material));
        this.group.add(arch);
      }
    }
  }

  /** World position of the gate between `a` and `b` (either order), or undefined. */
  gateBetween(
    a: RegionName,
    b: RegionName,
  ): { centre: Vector3; nx: number; nz: number; from: RegionName; to: RegionName } | undefined {
    const gate = this.gates.find((g) => (g.a === a && g.b === b) || (g.a === b && g.b === a));
    if (!gate) return undefined;
    return { centre: gate.centre, nx: gate.nx, nz: gate.nz, from: gate.a, to: gate.b };
  }

  /** The region entered when moving from `from` to `to` (world metres) through a gate, else null. */
  crossed(from: Vector3, to: Vector3): RegionName | null {
    for (const gate of this.gates) {
      const c = gate.centre;
      const before = (from.x - c.x) * gate.nx + (from.z - c.z) * gate.nz;
      const after = (to.x - c.x) * gate.nx + (to.z - c.z) * gate.nz;
      if (before < 0 === after < 0) continue;
      // Where the path meets the gate plane, it must be inside the opening.
      const t = before / (before - after);
      const px = from.x + (to.x - from.x) * t - c.x;
      const pz = from.z + (to.z - from.z) * t - c.z;
      const py = from.y + (to.y - from.y) * t - c.y;
      const lateral = Math.abs(-px * gate.nz + pz * gate.nx);
      if (lateral <= HALF_WIDTH && py >= -2 && py <= HEIGHT) return after >= 0 ? gate.b : gate.a;
    }
    return null;
  }
}
