/**
 * Page-table entry format: one unsigned 32-bit value per page, uploaded as-is to an `r32uint`
 * texture (one mip level of the texture per mip level of the virtual texture).
 *
 * | bits  | field        | meaning                                                      |
 * |-------|--------------|--------------------------------------------------------------|
 * | 0-15  | slot         | physical pool slot holding the data (0..65535)               |
 * | 16-19 | residentMip  | mip level of the page actually stored in that slot           |
 * | 20-30 | reserved     | zero                                                         |
 * | 31    | empty        | set only in {@link EMPTY_ENTRY}: no data at all (before the pinned levels load) |
 *
 * The shader derives the atlas position of `slot` from the pool's slots per row (and per array
 * layer), and the offset inside the tile from `residentMip` and the requested mip.
 */

/** Entry of a page with nothing resident in it or any ancestor (only before pinned mips load). */
export const EMPTY_ENTRY = 0xffffffff;

/** Largest slot index an entry can name. */
export const MAX_SLOTS = 0x10000;

/** Packs a slot and the mip resident in it. */
export function packEntry(slot: number, residentMip: number): number {
  return (slot | (residentMip << 16)) >>> 0;
}

/** Slot of an entry (meaningless for {@link EMPTY_ENTRY}). */
export function entrySlot(entry: number): number {
  return entry & 0xffff;
}

/** Resident mip of an entry (meaningless for {@link EMPTY_ENTRY}). */
export function entryMip(entry: number): number {
  return (entry >>> 16) & 0xf;
}
