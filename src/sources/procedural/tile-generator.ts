/**
 * Generates one tile of the procedural world. Each octave is evaluated at the coarsest grid that
 * still resolves it: an octave with a wavelength of at least {@link MIN_WAVELENGTH_PER_STRIDE}
 * grid strides goes to that grid (8, 4 or 2 texels apart), the rest at every texel. Grids cascade
 * coarse to fine by bilinear interpolation, and the texel rows start from the finest grid, so a
 * texel costs one interpolation plus its high-frequency octaves. Work runs row by row, one octave
 * at a time, into channel rows that the shading then reads (albedo and normal from the same
 * samples). Everything is preallocated: generating a tile allocates nothing.
 */

import { halveBetweenLines, halveLine } from './halve-lines';
import { PACKED_STRIDE, packOctave } from './octave-accumulator';
import { addOctaveRow } from './octave-rows';
import { TileGrid } from './tile-grid';
import { CHANNEL_COUNT, type OctaveTable, octaveWeight } from './world-octaves';
import { shadeRow, TERRAIN_ROWS, type TerrainStyle, terrainRow } from './world-shading';

/**
 * An octave goes on a grid when its wavelength spans at least this many grid strides: bilinear
 * interpolation then errs by at most (π / 8)² / 2 ≈ 8% of that octave's amplitude (only the
 * octaves just above the threshold come near it; each coarser one errs 4x less). Measured
 * against the earlier generator (which interpolated only octaves of 128+ texels): mean |albedo difference| 0.08 sRGB steps, mean
 * normal difference 0.03 steps (a few texels at road and river edges move by up to 103 steps);
 * the mean mip-consistency errors stay within 0.15 steps of it.
 */
const MIN_WAVELENGTH_PER_STRIDE = 8;

/** Coarsest grid stride tried, texels (halved until it divides the tile payload). */
const MAX_STRIDE = 8;

/** Sizes of the world a {@link TileGenerator} serves. */
export interface TileGeneratorSizes {
  /** Tile side including the border, texels. */
  tileSize: number;
  /** Border inside the tile on each side, texels. */
  border: number;
  /** Mip-0 size in pages. */
  widthPages: number;
  heightPages: number;
}

/** Reusable tile generator with its scratch buffers (one per thread). */
export class TileGenerator {
  private readonly tileSize: number;
  private readonly border: number;
  private readonly payload: number;
  private readonly widthPages: number;
  private readonly heightPages: number;
  /** Grids, coarsest first; empty when the payload is odd. */
  private readonly grids: TileGrid[] = [];
  /** Octaves evaluated at every texel of the current tile. */
  private readonly texelPacked: Float64Array;
  private texelCount = 0;
  /** `rows[c * tileSize + i]`: channel `c` of texel `i` of the current row. */
  private readonly rows: Float64Array;
  /** Terrain of the current row (see terrainRow). */
  private readonly terrain: Float64Array;
  /** Vertical interpolation of the finest grid at the current row, channel-major. */
  private readonly gridRow: Float64Array;
  private readonly columnX: Float64Array;
  /** Mip-0 texel coordinate of each row of the current tile. */
  private readonly rowY: Float64Array;
  private readonly columnCell: Int32Array;
  private readonly columnFraction: Float64Array;
  private readonly scratchCell: Int32Array;
  private columnsHalve = false;
  private readonly scratchFraction: Float64Array;

  constructor(
    private readonly octaves: OctaveTable,
    private readonly style: TerrainStyle,
    sizes: TileGeneratorSizes,
  ) {
    this.tileSize = sizes.tileSize;
    this.border = sizes.border;
    this.payload = sizes.tileSize - 2 * sizes.border;
    this.widthPages = sizes.widthPages;
    this.heightPages = sizes.heightPages;
    for (let stride = MAX_STRIDE; stride >= 2; stride >>= 1) {
      if (this.payload % stride === 0) {
        this.grids.push(new TileGrid(stride, this.tileSize, octaves.count, PACKED_STRIDE));
      }
    }
    const T = this.tileSize;
    this.texelPacked = new Float64Array(octaves.count * PACKED_STRIDE);
    this.rows = new Float64Array(T * CHANNEL_COUNT);
    this.terrain = new Float64Array(T * TERRAIN_ROWS);
    const maxSide = Math.max(T, ...this.grids.map((g) => g.side));
    this.gridRow = new Float64Array(maxSide * CHANNEL_COUNT);
    this.columnX = new Float64Array(T);
    this.rowY = new Float64Array(T);
    this.columnCell = new Int32Array(T);
    this.columnFraction = new Float64Array(T);
    this.scratchCell = new Int32Array(maxSide);
    this.scratchFraction = new Float64Array(maxSide);
  }

  /** Generates page (`x`, `y`) of mip `mip` into `albedo` and `normal` (`tileSize² x 4` bytes each). */
  generate(mip: number, x: number, y: number, albedo: Uint8Array, normal: Uint8Array): void {
    const T = this.tileSize;
    const texW = Math.max(1, this.widthPages >> mip) * this.payload;
    const texH = Math.max(1, this.heightPages >> mip) * this.payload;
    const spanX = (this.widthPages * this.payload) / texW;
    const spanY = (this.heightPages * this.payload) / texH;
    // Spans are whole powers of two; `| 0` keeps the value and lets V8 pass it to the per-row
    // calls as a small integer instead of boxing a double for each call.
    const span = Math.max(spanX, spanY) | 0;
    const x0 = x * this.payload - this.border;
    const y0 = y * this.payload - this.border;
    this.assignOctaves(span);

    // Grids, coarse to fine; a grid without octaves of its own is skipped (the next interpolates
    // straight from the coarser one).
    let source: TileGrid | undefined;
    for (let g = 0; g < this.grids.length; g++) {
      const grid = this.grids[g];
      if (grid.count === 0) continue;
      grid.place(x0, y0, spanX, spanY);
      if (source === undefined) grid.values.fill(0);
      else {
        grid.interpolateFrom(source, this.scratchCell, this.scratchFraction);
      }
      grid.addOctaves();
      source = grid;
    }

    for (let i = 0; i < T; i++) {
      const tx = Math.min(Math.max(x0 + i, 0), texW - 1);
      this.columnX[i] = (tx + 0.5) * spanX;
      if (source !== undefined) {
        const local = tx - x0;
        const cell = Math.min((local / source.stride) | 0, source.side - 2);
        this.columnCell[i] = cell;
        this.columnFraction[i] = (local - cell * source.stride) / source.stride;
      }
    }
    // Texels past the texture edge repeat the edge texel: the same inputs give the same bits, so
    // only the columns [colLo, colHi) and rows [rowLo, rowHi) inside the texture are computed and
    // the rest copied. With the grid at stride 2, every computed column sits at grid-local texel i.
    const colLo = Math.min(Math.max(-x0, 0), T);
    const colHi = Math.max(Math.min(texW - x0, T), colLo);
    const rowLo = Math.min(Math.max(-y0, 0), T);
    const rowHi = Math.max(Math.min(texH - y0, T), rowLo);
    this.columnsHalve = source !== undefined && source.stride === 2 && T % 2 === 0;
    const rows = this.rows;
    for (let j = rowLo; j < rowHi; j++) {
      if (source === undefined) rows.fill(0);
      else {
        this.interpolateRow(source, j);
      }
      this.rowY[j] = (y0 + j + 0.5) * spanY;
      for (let k = 0; k < this.texelCount; k++) {
        addOctaveRow(this.texelPacked, k, this.columnX, colLo, colHi, this.rowY, j, rows, 0, T);
      }
      terrainRow(rows, T, this.style, span, this.terrain);
      shadeRow(rows, this.terrain, T, span, this.style, albedo, normal, j * T * 4);
      if (colLo > 0 || colHi < T) this.repeatEdgeTexels(albedo, normal, j * T * 4, colLo, colHi);
    }
    const rowBytes = T * 4;
    for (let j = 0; j < rowLo; j++) {
      albedo.copyWithin(j * rowBytes, rowLo * rowBytes, (rowLo + 1) * rowBytes);
      normal.copyWithin(j * rowBytes, rowLo * rowBytes, (rowLo + 1) * rowBytes);
    }
    for (let j = rowHi; j < T; j++) {
      albedo.copyWithin(j * rowBytes, (rowHi - 1) * rowBytes, rowHi * rowBytes);
      normal.copyWithin(j * rowBytes, (rowHi - 1) * rowBytes, rowHi * rowBytes);
    }
  }

  /**
   * Copies the texels of columns `colLo` and `colHi - 1` of the row at byte `rowAt` to the columns
   * beyond (whose fields, never read, hold unclamped interpolations). Copying the channel doubles
   * instead would box them in V8's lower tiers.
   */
  private repeatEdgeTexels(
    albedo: Uint8Array,
    normal: Uint8Array,
    rowAt: number,
    colLo: number,
    colHi: number,
  ): void {
    const first = rowAt + 4 * colLo;
    const last = rowAt + 4 * (colHi - 1);
    for (let to = rowAt; to < first; to++) {
      albedo[to] = albedo[first + (to & 3)];
      normal[to] = normal[first + (to & 3)];
    }
    for (let to = last + 4, end = rowAt + 4 * this.tileSize; to < end; to++) {
      albedo[to] = albedo[last + (to & 3)];
      normal[to] = normal[last + (to & 3)];
    }
  }

  /** Sorts the octaves visible at a mip whose texels span `span` mip-0 texels into grids and texels. */
  private assignOctaves(span: number): void {
    const octaves = this.octaves;
    for (const grid of this.grids) grid.count = 0;
    this.texelCount = 0;
    for (let i = 0; i < octaves.count; i++) {
      const f = octaves.frequency[i];
      const weight = octaveWeight(f, span);
      if (weight === 0) continue;
      const wavelength = 1 / (f * span);
      let placed = false;
      for (const grid of this.grids) {
        if (wavelength >= MIN_WAVELENGTH_PER_STRIDE * grid.stride) {
          packOctave(octaves, i, weight, grid.packed, grid.count++);
          placed = true;
          break;
        }
      }
      if (!placed) packOctave(octaves, i, weight, this.texelPacked, this.texelCount++);
    }
  }

  /**
   * Fills {@link rows} by interpolating `grid` at tile-local row `localY`, then along the row.
   * Rows on a grid row skip the vertical step; with a stride-2 grid the row alternates copies and
   * midpoints (the same values the general formula gives; columns past the texture edge get
   * unclamped values there, which generate() overwrites with the edge texel).
   */
  private interpolateRow(grid: TileGrid, localY: number): void {
    const side = grid.side;
    const cellY = Math.min((localY / grid.stride) | 0, side - 2);
    const fy = (localY - cellY * grid.stride) / grid.stride;
    const src = grid.values;
    if (this.columnsHalve) {
      // Stride 2: fy is 0 or 0.5, and `a * 0.5 + b * 0.5` is what the general formula computes.
      const T = this.tileSize;
      for (let c = 0; c < CHANNEL_COUNT; c++) {
        const at = c * grid.points + cellY * side;
        if (fy === 0) halveLine(src, at, this.rows, c * T, T >> 1, false);
        else {
          halveBetweenLines(src, at, side, this.rows, c * T, T >> 1, false);
        }
      }
      return;
    }
    let line = src;
    let lineAt = cellY * side;
    let channelStride = grid.points;
    if (fy !== 0) {
      const gy = 1 - fy;
      const tmp = this.gridRow;
      for (let c = 0; c < CHANNEL_COUNT; c++) {
        const row0 = c * grid.points + cellY * side;
        const row1 = row0 + side;
        const out = c * side;
        for (let i = 0; i < side; i++) tmp[out + i] = src[row0 + i] * gy + src[row1 + i] * fy;
      }
      line = tmp;
      lineAt = 0;
      channelStride = side;
    }
    const T = this.tileSize;
    const rows = this.rows;
    const columnCell = this.columnCell;
    const columnFraction = this.columnFraction;
    for (let c = 0; c < CHANNEL_COUNT; c++) {
      const from = lineAt + c * channelStride;
      const out = c * T;
      for (let i = 0; i < T; i++) {
        const cell = from + columnCell[i];
        const fx = columnFraction[i];
        rows[out + i] = line[cell] * (1 - fx) + line[cell + 1] * fx;
      }
    }
  }
}
