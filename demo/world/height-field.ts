/**
 * Terrain heights in metres for geometry and camera, from the same procedural world that paints the
 * terrain's virtual texture, so the relief lines up with the rivers, roads and biomes in its albedo.
 */

import type { ProceduralWorld } from '@tessera-vt/tessera/sources';
import { PROCEDURAL_SEA_LEVEL as SEA_LEVEL } from '@tessera-vt/tessera/sources';

/** World metres <-> texture UV mapping and heights. Origin at the terrain's centre, y up. */
export interface HeightField {
  /** Side of the square terrain, metres. */
  readonly sizeMeters: number;
  /** Height of ground (or water surface) at world (`x`, `z`), metres; `spacing` (metres) band-limits it. */
  heightAt(x: number, z: number, spacing?: number): number;
}

/** Side of the demo terrain, metres (4.096 km, about 16.8 km²). */
export const TERRAIN_SIZE_METERS = 4096;

/** Heights of a {@link ProceduralWorld} laid over a {@link TERRAIN_SIZE_METERS} square. */
export class ProceduralHeightField implements HeightField {
  readonly sizeMeters = TERRAIN_SIZE_METERS;
  /** Mip-0 texels per metre. */
  private readonly texelsPerMeter: number;
  private readonly reliefMeters: number;
  private readonly maxMip: number;

  constructor(private readonly world: ProceduralWorld) {
    this.texelsPerMeter = world.widthTexels / this.sizeMeters;
    // The texture's relief is in texels; converting with the same scale keeps slopes (and so the
    // normal layer's shading) consistent with the geometry.
    this.reliefMeters = world.style.reliefTexels / this.texelsPerMeter;
    this.maxMip = world.mipCount - 1;
  }

  heightAt(x: number, z: number, spacing = 0): number {
    // Octaves finer than the vertex spacing would alias and cost time: drop them via the mip.
    const spacingTexels = spacing * this.texelsPerMeter;
    const mip = spacingTexels > 1 ? Math.min(this.maxMip, Math.floor(Math.log2(spacingTexels))) : 0;
    const u = x / this.sizeMeters + 0.5;
    const v = z / this.sizeMeters + 0.5;
    const h = this.world.heightAt(clamp01(u), clamp01(v), mip);
    // Below sea level the texture draws water: keep the surface flat there.
    return (Math.max(h, SEA_LEVEL) - SEA_LEVEL) * this.reliefMeters;
  }
}

function clamp01(t: number): number {
  return Math.min(1, Math.max(0, t));
}
