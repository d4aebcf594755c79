import { TesseraError } from '../errors';
import { grownTypedArray } from '../structures/typed-array-growth';

/** Handles are `generation * SLOT_LIMIT + slot`, so a stale handle is told apart from a live one. */
const SLOT_LIMIT = 1 << 22;

/**
 * The live reservations of a {@link TextureBudget}: struct-of-arrays rows (category index, tag
 * id, bytes, pinned) reused through a free list, addressed by integer handles that carry a
 * generation, so a released or foreign handle is detected instead of aliasing a newer row.
 */
export class ReservationTable {
  private category = new Uint8Array(64);
  private tag = new Int32Array(64);
  private bytes = new Float64Array(64);
  private generation = new Uint32Array(64);
  private live = new Uint8Array(64);
  private pinned = new Uint8Array(64);
  private freeSlots = new Int32Array(64);
  private freeCount = 0;
  private highWater = 0;

  /**
   * Adds a reservation of `bytes` bytes; returns its handle.
   * @throws TesseraError('over-budget') past 4 Mi live reservations.
   */
  add(category: number, tag: number, bytes: number, pinned: boolean): number {
    const slot = this.freeCount > 0 ? this.freeSlots[--this.freeCount] : this.newSlot();
    this.category[slot] = category;
    this.tag[slot] = tag;
    this.bytes[slot] = bytes;
    this.live[slot] = 1;
    this.pinned[slot] = pinned ? 1 : 0;
    return this.generation[slot] * SLOT_LIMIT + slot;
  }

  /** Frees row `slot` (from {@link slotOf}); its handle becomes stale. */
  remove(slot: number): void {
    this.live[slot] = 0;
    this.generation[slot]++;
    this.freeSlots[this.freeCount++] = slot;
  }

  /**
   * Row of live reservation `handle`.
   * @throws TesseraError('released-twice') for a handle already released, ('unknown-handle') for one
   *   this table never issued.
   */
  slotOf(handle: number): number {
    const slot = Number.isInteger(handle) && handle >= 0 ? handle % SLOT_LIMIT : -1;
    const generation = Math.floor(handle / SLOT_LIMIT);
    if (slot < 0 || slot >= this.highWater || generation < 1 || generation > this.generation[slot]) {
      throw new TesseraError('unknown-handle', `Budget handle ${handle} was never issued by this budget.`);
    }
    if (generation < this.generation[slot] || this.live[slot] === 0) {
      throw new TesseraError('released-twice', `Budget handle ${handle} was already released.`);
    }
    return slot;
  }

  /** Category index of row `slot`. */
  categoryAt(slot: number): number {
    return this.category[slot];
  }

  /** Tag id of row `slot`. */
  tagAt(slot: number): number {
    return this.tag[slot];
  }

  /** Bytes of row `slot`. */
  bytesAt(slot: number): number {
    return this.bytes[slot];
  }

  /** Sets the bytes of row `slot` (a reservation shrunk in place). */
  setBytesAt(slot: number, bytes: number): void {
    this.bytes[slot] = bytes;
  }

  /** True when row `slot` was reserved with pinned priority. */
  isPinnedAt(slot: number): boolean {
    return this.pinned[slot] === 1;
  }

  private newSlot(): number {
    const slot = this.highWater++;
    if (slot >= SLOT_LIMIT) throw new TesseraError('over-budget', 'Too many live budget reservations.');
    if (slot >= this.bytes.length) {
      const size = this.bytes.length * 2;
      this.category = grownTypedArray(this.category, size);
      this.tag = grownTypedArray(this.tag, size);
      this.bytes = grownTypedArray(this.bytes, size);
      this.generation = grownTypedArray(this.generation, size);
      this.live = grownTypedArray(this.live, size);
      this.pinned = grownTypedArray(this.pinned, size);
      this.freeSlots = grownTypedArray(this.freeSlots, size);
    }
    this.generation[slot] = 1;
    return slot;
  }
}
