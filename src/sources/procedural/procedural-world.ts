/**
 * A deterministic, seeded world texture of any size: any tile of any mip is generated on its own
 * from band-limited noise (octaves past the mip's Nyquist are dropped), so no level depends on
 * another and a worker can make any tile. Pure functions over typed arrays: usable in a Web
 * Worker or a worker thread.
 */

import { TesseraConfigError } from '../../core/errors';
import type { TileSourceInfo } from '../../core/vt/tile-source';
import { accumulatePacked, PACKED_STRIDE, packOctaves } from './octave-accumulator';
import { TileGenerator } from './tile-generator';
import { buildOctaveTable, CHANNEL_COUNT, type OctaveTable, octaveWeight } from './world-octaves';
import { TERRAIN_HEIGHT, TERRAIN_ROWS, type TerrainStyle, terrainRow } from './world-shading';

/** Options of {@link ProceduralWorld}. */
export interface ProceduralWorldOptions {
  /** Seed (any integer; only the low 32 bits matter). */
  seed: number;
  /** Width of mip 0 in pages (power of two, 1..4096). Default 1024. */
  widthPages?: number;
  /** Height of mip 0 in pages (power of two, 1..4096). Default `widthPages`. */
  heightPages?: number;
  /** Tile side including the border, texels (8..1024). Default 128. */
  tileSize?: number;
  /** Border inside the tile on each side, texels. Default 4. */
  border?: number;
}

/** The procedural world: layer 0 is sRGB albedo, layer 1 the linear tangent-space normal. */
export class ProceduralWorld {
  /** Tile-source description of the world (two layers: `albedo`, `normal`). */
  readonly info: TileSourceInfo;
  /** Number of mip levels (down to one page on the longer side). */
  readonly mipCount: number;
  /** Mip-0 size, texels. */
  readonly widthTexels: number;
  /** Mip-0 height, texels. */
  readonly heightTexels: number;
  /** Relief, style and octave constants derived from the seed and size. */
  readonly style: TerrainStyle;
  private readonly octaves: OctaveTable;
  private readonly generator: TileGenerator;
  // heightAt scratch: one point, every visible octave.
  private readonly acc = new Float64Array(CHANNEL_COUNT);
  private readonly terrain = new Float64Array(TERRAIN_ROWS);
  private readonly pointList: Int32Array;
  private readonly pointWeights: Float64Array;
  private readonly pointPacked: Float64Array;

  constructor(options: ProceduralWorldOptions) {
    const widthPages = options.widthPages ?? 1024;
    const heightPages = options.heightPages ?? widthPages;
    const tileSize = options.tileSize ?? 128;
    const border = options.border ?? 4;
    for (const [name, pages] of [
      ['widthPages', widthPages],
      ['heightPages', heightPages],
    ] as const) {
      if (!Number.isInteger(pages) || pages < 1 || pages > 4096) {
        throw new TesseraConfigError('invalid-size', `${name} must be an integer in 1..4096, got ${pages}`);
      }
      if ((pages & (pages - 1)) !== 0) throw new TesseraConfigError('not-power-of-two', `${name} ${pages}`);
    }
    if (!Number.isInteger(tileSize) || tileSize < 8 || tileSize > 1024) {
      throw new TesseraConfigError('invalid-tile', `tileSize must be an integer in 8..1024, got ${tileSize}`);
    }
    if (!Number.isInteger(border) || border < 0 || tileSize - 2 * border < 4) {
      throw new TesseraConfigError(
        'invalid-tile',
        `border ${border} leaves no payload in a ${tileSize} tile`,
      );
    }
    this.info = {
      widthPages,
      heightPages,
      tileSize,
      border,
      layers: [
        { name: 'albedo', format: 'rgba8unorm-srgb' },
        { name: 'normal', format: 'rgba8unorm' },
      ],
      contentWidth: widthPages * (tileSize - 2 * border),
      contentHeight: heightPages * (tileSize - 2 * border),
    };
    const payload = tileSize - 2 * border;
    this.widthTexels = widthPages * payload;
    this.heightTexels = heightPages * payload;
    this.mipCount = Math.log2(Math.max(widthPages, heightPages)) + 1;
    const worldTexels = Math.max(this.widthTexels, this.heightTexels);
    this.octaves = buildOctaveTable(options.seed | 0, worldTexels);
    let detailSum = 0;
    for (let i = 0; i < this.octaves.count; i++) {
      if (this.octaves.isDetail[i]) detailSum += this.octaves.amplitude[i];
    }
    this.style = {
      reliefTexels: worldTexels * 0.025,
      riverHalfWidth: 7,
      roadHalfWidth: 2.5,
      detailScale: detailSum > 0 ? 1 / detailSum : 0,
    };
    const n = this.octaves.count;
    this.pointList = new Int32Array(n);
    this.pointWeights = new Float64Array(n);
    this.pointPacked = new Float64Array(n * PACKED_STRIDE);
    this.generator = new TileGenerator(this.octaves, this.style, {
      tileSize,
      border,
      widthPages,
      heightPages,
    });
  }

  /**
   * Terrain height in [0, 1] at (`u`, `v`) (0..1 across the whole world), band-limited to mip
   * `mip` (0 = full detail). Multiply by {@link TerrainStyle.reliefTexels} for texel units.
   */
  heightAt(u: number, v: number, mip = 0): number {
    const span = 2 ** mip;
    let count = 0;
    for (let i = 0; i < this.octaves.count; i++) {
      const w = octaveWeight(this.octaves.frequency[i], span);
      if (w > 0) {
        this.pointList[count] = i;
        this.pointWeights[count++] = w;
      }
    }
    this.acc.fill(0);
    packOctaves(this.octaves, this.pointList, this.pointWeights, count, this.pointPacked);
    accumulatePacked(this.pointPacked, count, u * this.widthTexels, v * this.heightTexels, this.acc);
    terrainRow(this.acc, 1, this.style, span, this.terrain);
    return this.terrain[TERRAIN_HEIGHT];
  }

  /**
   * Generates page (`x`, `y`) of mip `mip` into `albedo` and `normal` (each at least
   * `tileSize² x 4` bytes). Synchronous and allocation-free; coordinates are not range-checked
   * beyond what the caller's {@link TileSourceInfo} allows.
   */
  generateTile(mip: number, x: number, y: number, albedo: Uint8Array, normal: Uint8Array): void {
    this.generator.generate(mip, x, y, albedo, normal);
  }
}
