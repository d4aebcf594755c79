/**
 * Chooses the terrain's texturing: Tessera's virtual texture by default, or the stand-in ordinary
 * texture with `?vt=0` (a comparison, and a fallback while the plugin is being brought up).
 */

import type { TesseraRuntime } from '@tessera-vt/tessera';
import type { WebGPURenderer } from 'three/webgpu';
import { StandInTerrainSurface } from './stand-in-surface';
import type { TerrainSurface, TerrainSurfaceSettings } from './terrain-surface';
import type { TerrainTileSource } from './terrain-tile-source';
import { VirtualTextureSurface } from './virtual-texture-surface';

/**
 * Builds the terrain surface for `tiles`. The virtual texture gets `settings.budgetBytes` less
 * `propShareBytes(budgetBytes)` and reserves what it allocates in `runtime`'s budget.
 */
export function createTerrainSurface(
  renderer: WebGPURenderer,
  tiles: TerrainTileSource,
  settings: TerrainSurfaceSettings,
  runtime: TesseraRuntime,
  propShareBytes: (budgetBytes: number) => number,
  useVirtualTexture: boolean,
  lodBias = 0,
): TerrainSurface {
  if (!useVirtualTexture) return new StandInTerrainSurface(tiles.world);
  const { source, rendered } = tiles;
  return new VirtualTextureSurface(renderer, source, settings, runtime, propShareBytes, rendered, lodBias);
}
