import { TesseraConfigError } from '../errors';
import type { VirtualTextureLayout } from './vt-layout';

/**
 * An axis-aligned rectangle in a virtual texture's uv space: the whole padded texture in page
 * order, u to the right and v down, [0, 1] on both axes (`uvSpace: 'virtual'`).
 */
export interface UvRect {
  /** Left edge, in uv. */
  minU: number;
  /** Top edge, in uv. */
  minV: number;
  /** Right edge, in uv. */
  maxU: number;
  /** Bottom edge, in uv. */
  maxV: number;
}

/** An inclusive range of page coordinates at one mip (empty when `x1 < x0` or `y1 < y0`). */
export interface PageRange {
  x0: number;
  y0: number;
  x1: number;
  y1: number;
}

/**
 * The uv rectangle a tile of page (`x`, `y`) at `mip` covers, its border included: the payload is
 * `1 / mipWidths[mip]` of uv wide, and the border adds `border / payloadSize` of that on each side.
 * A renderer producing the tile and an invalidation finding the pages of a rectangle both use
 * this, so a page is re-rendered exactly when something its texels show (borders too) changed.
 */
export function tileUvRect(
  layout: VirtualTextureLayout,
  mip: number,
  x: number,
  y: number,
  out: UvRect,
): UvRect {
  const w = layout.mipWidths[mip];
  const h = layout.mipHeights[mip];
  const pad = layout.border / layout.payloadSize;
  out.minU = (x - pad) / w;
  out.maxU = (x + 1 + pad) / w;
  out.minV = (y - pad) / h;
  out.maxV = (y + 1 + pad) / h;
  return out;
}

/**
 * The pages at `mip` whose tiles (border included, see {@link tileUvRect}) overlap `rect`, clamped
 * to the mip's pages. A rectangle touching a tile only along an edge does not overlap it.
 * @throws TesseraConfigError('invalid-option') for a mip outside the layout or a rect with a
 *   non-finite edge or `max < min`.
 */
export function pagesOverlappingRect(
  layout: VirtualTextureLayout,
  mip: number,
  rect: UvRect,
  out: PageRange,
): PageRange {
  checkUvRect(rect);
  if (!Number.isInteger(mip) || mip < 0 || mip >= layout.mipCount) {
    throw new TesseraConfigError('invalid-option', `mip ${mip} is outside 0..${layout.mipCount - 1}`);
  }
  const w = layout.mipWidths[mip];
  const h = layout.mipHeights[mip];
  const pad = layout.border / layout.payloadSize;
  // Tile x covers (x - pad, x + 1 + pad) in pages: it overlaps (a, b) when x - pad < b and x + 1 + pad > a.
  out.x0 = Math.max(0, Math.floor(rect.minU * w - pad));
  out.x1 = Math.min(w - 1, Math.ceil(rect.maxU * w + pad) - 1);
  out.y0 = Math.max(0, Math.floor(rect.minV * h - pad));
  out.y1 = Math.min(h - 1, Math.ceil(rect.maxV * h + pad) - 1);
  // A rectangle of no area overlaps nothing (one outside [0, 1] is already empty).
  if (rect.maxU <= rect.minU || rect.maxV <= rect.minV) out.x1 = out.x0 - 1;
  return out;
}

/** @throws TesseraConfigError('invalid-option') unless every edge is finite and max >= min. */
export function checkUvRect(rect: UvRect): void {
  const { minU, minV, maxU, maxV } = rect;
  if (![minU, minV, maxU, maxV].every(Number.isFinite) || maxU < minU || maxV < minV) {
    throw new TesseraConfigError(
      'invalid-option',
      `invalid rectangle (${minU}, ${minV})..(${maxU}, ${maxV}): edges must be finite, max >= min`,
    );
  }
}
