/**
 * 32-bit page ids, the currency of the whole system (feedback pixels, queues, pool slots).
 *
 * Bit layout, least significant first (as Unreal packs its feedback requests):
 *
 * | bits  | field | range      |
 * |-------|-------|------------|
 * | 0-11  | x     | 0..4095    |
 * | 12-23 | y     | 0..4095    |
 * | 24-27 | mip   | 0..14      |
 * | 28-31 | vt    | 0..15      |
 *
 * {@link NO_REQUEST} (all ones) means "nothing here": it would decode to mip 15, which no virtual
 * texture has (4096 pages need 13 levels), so it never collides with a real page.
 */

/** Sentinel feedback value: this pixel requests no page. */
export const NO_REQUEST = 0xffffffff;

/** Largest virtual texture side, in pages. */
export const MAX_PAGES_PER_SIDE = 4096;
/** Number of virtual textures one page id can address. */
export const MAX_VIRTUAL_TEXTURES = 16;
/** Largest valid mip index (mip 15 is reserved so that {@link NO_REQUEST} is never a page). */
export const MAX_MIP = 14;

/** Packs a page address into an unsigned 32-bit integer. Arguments are not range-checked. */
export function packPageId(vt: number, mip: number, x: number, y: number): number {
  return ((vt << 28) | (mip << 24) | (y << 12) | x) >>> 0;
}

/** Virtual texture index of a packed page id. */
export function pageVt(id: number): number {
  return id >>> 28;
}

/** Mip level of a packed page id. */
export function pageMip(id: number): number {
  return (id >>> 24) & 0xf;
}

/** Page column (at the page's own mip) of a packed page id. */
export function pageX(id: number): number {
  return id & 0xfff;
}

/** Page row (at the page's own mip) of a packed page id. */
export function pageY(id: number): number {
  return (id >>> 12) & 0xfff;
}

/** Decoded page address; reuse one instance with {@link unpackPageId} on hot paths. */
export interface PageAddress {
  /** Virtual texture index (0-15). */
  vt: number;
  /** Mip level of the page (0 is the finest). */
  mip: number;
  /** Page column at the page's own mip. */
  x: number;
  /** Page row at the page's own mip. */
  y: number;
}

/** Decodes `id` into `out` (no allocation) and returns `out`. */
export function unpackPageId(id: number, out: PageAddress = { vt: 0, mip: 0, x: 0, y: 0 }): PageAddress {
  out.vt = id >>> 28;
  out.mip = (id >>> 24) & 0xf;
  out.x = id & 0xfff;
  out.y = (id >>> 12) & 0xfff;
  return out;
}

/** Id of the page one mip coarser that covers `id` (undefined behaviour at the coarsest mip). */
export function parentPageId(id: number): number {
  const mip = (id >>> 24) & 0xf;
  const x = (id & 0xfff) >>> 1;
  const y = ((id >>> 12) & 0xfff) >>> 1;
  return ((id & 0xf0000000) | ((mip + 1) << 24) | (y << 12) | x) >>> 0;
}
