/**
 * A deterministic, seeded world texture of any size: any tile of any mip is generated on its own
 * from band-limited noise (octaves past the mip's Nyquist are dropped), so no level depends on
 * another and a worker can make any tile. Pure functions over typed arrays: usable in a Web
 * Worker or a worker thread.
 */

import { TesseraConfigError } from '../../core/errors';
import type { TileSourceInfo } from '../../core/tile-source';
import { accumulatePacked, PACKED_STRIDE, packOctaves } from './octave-accumulator';
import { buildOctaveTable, CHANNEL_COUNT, type OctaveTable, octaveWeight } from './world-octaves';
import { type HeightSample, shadeTexel, type TerrainStyle, terrainHeight } from './world-shading';

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

/**
 * Octaves whose wavelength at the tile's mip is at least this many texels are evaluated on a
 * coarse grid and interpolated bilinearly (error under ~2% of those octaves' small amplitude);
 * finer ones are evaluated at every texel.
 */
const COARSE_MIN_WAVELENGTH = 128;

/** The procedural world: layer 0 is sRGB albedo, layer 1 the linear tangent-space normal. */
export class ProceduralWorld {
  /** Tile-source description of the world (two layers: `albedo`, `normal`). */
  readonly info: TileSourceInfo;
  /** Number of mip levels (down to one page on the longer side). */
  readonly mipCount: number;
  /** Mip-0 size, texels. */
  readonly widthTexels: number;
  readonly heightTexels: number;
  /** Relief, style and octave constants derived from the seed and size. */
  readonly style: TerrainStyle;
  private readonly octaves: OctaveTable;
  private readonly payload: number;
  private readonly gridStride: number;
  private readonly gridSide: number;
  private readonly grid: Float64Array;
  private readonly acc = new Float64Array(CHANNEL_COUNT);
  private readonly heightSample: HeightSample = { height: 0, dx: 0, dy: 0, riverMask: 0, riverDistance: 0 };
  private readonly coarseList: Int32Array;
  private readonly coarseWeights: Float64Array;
  private readonly fineList: Int32Array;
  private readonly fineWeights: Float64Array;
  private readonly coarsePacked: Float64Array;
  private readonly finePacked: Float64Array;
  private readonly allWeights: Float64Array;
  private readonly allList: Int32Array;
  private readonly columnCell: Int32Array;
  private readonly columnFraction: Float64Array;
  private readonly columnX: Float64Array;

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
    };
    this.payload = tileSize - 2 * border;
    this.widthTexels = widthPages * this.payload;
    this.heightTexels = heightPages * this.payload;
    this.mipCount = Math.log2(Math.max(widthPages, heightPages)) + 1;
    const worldTexels = Math.max(this.widthTexels, this.heightTexels);
    this.octaves = buildOctaveTable(options.seed | 0, worldTexels);
    let detailSum = 0;
    for (let i = 0; i < this.octaves.count; i++)
      if (this.octaves.isDetail[i]) detailSum += this.octaves.amplitude[i];
    this.style = {
      reliefTexels: worldTexels * 0.025,
      riverHalfWidth: 7,
      roadHalfWidth: 2.5,
      detailScale: detailSum > 0 ? 1 / detailSum : 0,
    };
    // Grid points must coincide between neighbouring tiles (origins differ by the payload) so
    // border texels equal the neighbour's interior texels exactly.
    let stride = 8;
    while (this.payload % stride !== 0) stride >>= 1;
    this.gridStride = stride;
    this.gridSide = Math.max(2, Math.ceil((tileSize - 1) / stride) + 1);
    this.grid = new Float64Array(this.gridSide * this.gridSide * CHANNEL_COUNT);
    const n = this.octaves.count;
    this.coarseList = new Int32Array(n);
    this.coarseWeights = new Float64Array(n);
    this.fineList = new Int32Array(n);
    this.fineWeights = new Float64Array(n);
    this.coarsePacked = new Float64Array(n * PACKED_STRIDE);
    this.finePacked = new Float64Array(n * PACKED_STRIDE);
    this.allList = new Int32Array(n);
    this.allWeights = new Float64Array(n);
    this.columnCell = new Int32Array(tileSize);
    this.columnFraction = new Float64Array(tileSize);
    this.columnX = new Float64Array(tileSize);
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
        this.allList[count] = i;
        this.allWeights[count++] = w;
      }
    }
    this.acc.fill(0);
    packOctaves(this.octaves, this.allList, this.allWeights, count, this.finePacked);
    accumulatePacked(this.finePacked, count, u * this.widthTexels, v * this.heightTexels, this.acc);
    terrainHeight(this.acc, this.style, span, this.heightSample);
    return this.heightSample.height;
  }

  /**
   * Generates page (`x`, `y`) of mip `mip` into `albedo` and `normal` (each at least
   * `tileSize² x 4` bytes). Synchronous and allocation-free; coordinates are not range-checked
   * beyond what the caller's {@link TileSourceInfo} allows.
   */
  generateTile(mip: number, x: number, y: number, albedo: Uint8Array, normal: Uint8Array): void {
    const { tileSize, border } = this.info;
    const pagesW = Math.max(1, this.info.widthPages >> mip);
    const pagesH = Math.max(1, this.info.heightPages >> mip);
    const texW = pagesW * this.payload;
    const texH = pagesH * this.payload;
    const spanX = this.widthTexels / texW;
    const spanY = this.heightTexels / texH;
    const span = Math.max(spanX, spanY);
    const octaves = this.octaves;
    let coarseCount = 0;
    let fineCount = 0;
    for (let i = 0; i < octaves.count; i++) {
      const f = octaves.frequency[i];
      const w = octaveWeight(f, span);
      if (w === 0) continue;
      if (1 / (f * span) >= COARSE_MIN_WAVELENGTH) {
        this.coarseList[coarseCount] = i;
        this.coarseWeights[coarseCount++] = w;
      } else {
        this.fineList[fineCount] = i;
        this.fineWeights[fineCount++] = w;
      }
    }
    packOctaves(octaves, this.coarseList, this.coarseWeights, coarseCount, this.coarsePacked);
    packOctaves(octaves, this.fineList, this.fineWeights, fineCount, this.finePacked);
    const x0 = x * this.payload - border;
    const y0 = y * this.payload - border;
    const stride = this.gridStride;
    const side = this.gridSide;
    const grid = this.grid;
    const acc = this.acc;
    for (let gj = 0; gj < side; gj++) {
      const gy = (y0 + gj * stride + 0.5) * spanY;
      for (let gi = 0; gi < side; gi++) {
        acc.fill(0);
        const gx = (x0 + gi * stride + 0.5) * spanX;
        accumulatePacked(this.coarsePacked, coarseCount, gx, gy, acc);
        grid.set(acc, (gj * side + gi) * CHANNEL_COUNT);
      }
    }
    for (let i = 0; i < tileSize; i++) {
      const tx = Math.min(Math.max(x0 + i, 0), texW - 1);
      const local = tx - x0;
      const cell = Math.min((local / stride) | 0, side - 2);
      this.columnCell[i] = cell;
      this.columnFraction[i] = (local - cell * stride) / stride;
      this.columnX[i] = (tx + 0.5) * spanX;
    }
    const rowStride = side * CHANNEL_COUNT;
    for (let j = 0; j < tileSize; j++) {
      const ty = Math.min(Math.max(y0 + j, 0), texH - 1);
      const localY = ty - y0;
      const cellY = Math.min((localY / stride) | 0, side - 2);
      const fy = (localY - cellY * stride) / stride;
      const py = (ty + 0.5) * spanY;
      for (let i = 0; i < tileSize; i++) {
        const fx = this.columnFraction[i];
        const base = cellY * rowStride + this.columnCell[i] * CHANNEL_COUNT;
        const w00 = (1 - fx) * (1 - fy);
        const w10 = fx * (1 - fy);
        const w01 = (1 - fx) * fy;
        const w11 = fx * fy;
        for (let c = 0; c < CHANNEL_COUNT; c++) {
          const b = base + c;
          acc[c] =
            grid[b] * w00 +
            grid[b + CHANNEL_COUNT] * w10 +
            grid[b + rowStride] * w01 +
            grid[b + rowStride + CHANNEL_COUNT] * w11;
        }
        accumulatePacked(this.finePacked, fineCount, this.columnX[i], py, acc);
        shadeTexel(acc, span, this.style, albedo, normal, (j * tileSize + i) * 4);
      }
    }
  }
}
