/**
 * Terrain texturing without the virtual-texture plugin: the procedural world's coarse mip baked
 * once into an ordinary albedo texture. It keeps the demo running (and shows what a single texture
 * gets you: ~8.5 m per texel) until `src/three` provides `VirtualTextureSystem`.
 */

import type { ProceduralWorld } from '@tessera-vt/tessera/sources';
import { DataTexture, LinearMipmapLinearFilter, SRGBColorSpace } from 'three';
import { MeshStandardNodeMaterial } from 'three/webgpu';
import {
  emptySurfaceStats,
  type TerrainDebugView,
  type TerrainSurface,
  type TerrainSurfaceSettings,
  type TerrainSurfaceStats,
} from './terrain-surface';

/** Mip of the world baked into the stand-in (8 = 4x4 pages of a 1024-page world: ~480² texels). */
const STAND_IN_MIP = 8;

/** An ordinary mipmapped texture of the world's mip {@link STAND_IN_MIP}. */
export class StandInTerrainSurface implements TerrainSurface {
  readonly kind = 'stand-in' as const;
  readonly material: MeshStandardNodeMaterial;
  readonly debugViews: readonly TerrainDebugView[] = [];
  readonly isReady = true;
  readonly errors: readonly string[] = [];
  /** Edge of the texture, texels (its width; the world is square). */
  readonly edgeTexels: number;
  private readonly texture: DataTexture;
  private readonly statsView = emptySurfaceStats();

  constructor(world: ProceduralWorld) {
    const { tileSize, border } = world.info;
    const payload = tileSize - 2 * border;
    const pagesW = Math.max(1, world.info.widthPages >> STAND_IN_MIP);
    const pagesH = Math.max(1, world.info.heightPages >> STAND_IN_MIP);
    const width = pagesW * payload;
    const height = pagesH * payload;
    const texels = new Uint8Array(width * height * 4);
    const albedo = new Uint8Array(tileSize * tileSize * 4);
    const normal = new Uint8Array(tileSize * tileSize * 4);
    for (let py = 0; py < pagesH; py++) {
      for (let px = 0; px < pagesW; px++) {
        world.generateTile(STAND_IN_MIP, px, py, albedo, normal);
        for (let row = 0; row < payload; row++) {
          const from = ((row + border) * tileSize + border) * 4;
          const to = ((py * payload + row) * width + px * payload) * 4;
          texels.set(albedo.subarray(from, from + payload * 4), to);
        }
      }
    }
    this.edgeTexels = width;
    this.texture = new DataTexture(texels, width, height);
    this.texture.name = 'demo:terrain-stand-in';
    this.texture.colorSpace = SRGBColorSpace;
    this.texture.minFilter = LinearMipmapLinearFilter;
    this.texture.generateMipmaps = true;
    this.texture.anisotropy = 8;
    this.texture.needsUpdate = true;
    this.material = new MeshStandardNodeMaterial({ map: this.texture, roughness: 0.95 });
    this.material.name = 'demo:terrain';
    this.statsView.bytesByCategory.other = Math.floor((width * height * 4 * 4) / 3);
  }

  update(): void {}

  applySettings(_settings: TerrainSurfaceSettings): void {}

  setDebugView(_view: TerrainDebugView, _enabled: boolean): void {}

  markTeleport(): void {}

  /** No feedback: always current. */
  readonly feedbackCaughtUp = true;

  stats(): TerrainSurfaceStats {
    return this.statsView;
  }

  dispose(): void {
    this.texture.dispose();
    this.material.dispose();
  }
}
