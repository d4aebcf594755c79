/**
 * One level of the coarse-grid cascade used by tile generation: the accumulated noise channels at
 * every `stride`-th texel of a tile (channel-major, so an octave pass over a grid row walks
 * contiguous memory). Grid points sit at the same global texels in every tile of a mip (the tile
 * payload is a multiple of `stride`), which keeps interpolated values, and so seams, bit-exact.
 */

import { halveBetweenLines, halveLine } from './halve-lines';
import { addOctaveRow } from './octave-rows';
import { CHANNEL_COUNT } from './world-octaves';

/** A grid of `side` x `side` points `stride` texels apart, from the tile's first texel. */
export class TileGrid {
  /** Distance between grid points, texels of the tile's mip. */
  readonly stride: number;
  /** Points per side. */
  readonly side: number;
  /** Points in the grid (`side²`): the distance between channels in {@link values}. */
  readonly points: number;
  /** `values[c * points + j * side + i]`: channel `c` at point (`i`, `j`). */
  readonly values: Float64Array;
  /** Mip-0 texel coordinate of each column / row of points in the current tile. */
  readonly xs: Float64Array;
  readonly ys: Float64Array;
  /** Octaves (packed, see packOctave) evaluated at this level's points, and their count. */
  readonly packed: Float64Array;
  count = 0;

  /**
   * @param stride distance between points, texels.
   * @param tileSize tile side, texels.
   * @param maxOctaves capacity of {@link packed}, octaves.
   * @param packedStride doubles per packed octave.
   */
  constructor(stride: number, tileSize: number, maxOctaves: number, packedStride: number) {
    this.stride = stride;
    this.side = Math.max(2, Math.ceil((tileSize - 1) / stride) + 1);
    this.points = this.side * this.side;
    this.values = new Float64Array(this.points * CHANNEL_COUNT);
    this.xs = new Float64Array(this.side);
    this.ys = new Float64Array(this.side);
    this.packed = new Float64Array(maxOctaves * packedStride);
  }

  /**
   * Places the grid at tile-local texel (0, 0) = mip texel (`x0`, `y0`); a mip texel spans
   * (`spanX`, `spanY`) mip-0 texels. Grid points are not clamped to the texture (texels are).
   */
  place(x0: number, y0: number, spanX: number, spanY: number): void {
    for (let i = 0; i < this.side; i++) {
      this.xs[i] = (x0 + i * this.stride + 0.5) * spanX;
      this.ys[i] = (y0 + i * this.stride + 0.5) * spanY;
    }
  }

  /** Adds this level's octaves at every point, row by row (octave order per point is fixed). */
  addOctaves(): void {
    const side = this.side;
    for (let j = 0; j < side; j++) {
      for (let k = 0; k < this.count; k++) {
        addOctaveRow(this.packed, k, this.xs, 0, side, this.ys, j, this.values, j * side, this.points);
      }
    }
  }

  /**
   * Fills {@link values} by bilinear interpolation of the coarser grid `from` (whose stride is a
   * multiple of this one's). Interpolating a piecewise-bilinear function at a superset of its
   * knots reproduces it, so cascading levels costs no accuracy. The cell / fraction scratch
   * holds at least `side` entries.
   */
  interpolateFrom(from: TileGrid, scratchCell: Int32Array, scratchFraction: Float64Array): void {
    if (from.stride === 2 * this.stride) {
      this.halveFrom(from);
      return;
    }
    const side = this.side;
    const fromSide = from.side;
    for (let i = 0; i < side; i++) {
      const local = i * this.stride;
      const cell = Math.min((local / from.stride) | 0, fromSide - 2);
      scratchCell[i] = cell;
      scratchFraction[i] = (local - cell * from.stride) / from.stride;
    }
    const src = from.values;
    const dst = this.values;
    for (let j = 0; j < side; j++) {
      const cellY = scratchCell[j];
      const fy = scratchFraction[j];
      const gy = 1 - fy;
      for (let c = 0; c < CHANNEL_COUNT; c++) {
        const row0 = c * from.points + cellY * fromSide;
        const row1 = row0 + fromSide;
        const out = c * this.points + j * side;
        for (let i = 0; i < side; i++) {
          const cell = scratchCell[i];
          const fx = scratchFraction[i];
          const gx = 1 - fx;
          dst[out + i] =
            (src[row0 + cell] * gx + src[row0 + cell + 1] * fx) * gy +
            (src[row1 + cell] * gx + src[row1 + cell + 1] * fx) * fy;
        }
      }
    }
  }

  /**
   * {@link interpolateFrom} for a grid of twice this stride: copies and midpoints only. Rows
   * between two coarser rows make their vertical midpoints on the fly, each once.
   */
  private halveFrom(from: TileGrid): void {
    const side = this.side;
    const fromSide = from.side;
    // side is 2·fromSide - 1 (ends on a copy) or 2·fromSide - 2 (ends on a midpoint).
    const pairs = side >> 1;
    const endsOnCopy = (side & 1) !== 0;
    for (let j = 0; j < side; j++) {
      for (let c = 0; c < CHANNEL_COUNT; c++) {
        const at = c * from.points + (j >> 1) * fromSide;
        const out = c * this.points + j * side;
        if ((j & 1) === 0) halveLine(from.values, at, this.values, out, pairs, endsOnCopy);
        else {
          halveBetweenLines(from.values, at, fromSide, this.values, out, pairs, endsOnCopy);
        }
      }
    }
  }
}
