import type { TextureBudget } from '../../budget/texture-budget';
import { IndexedMinHeap } from '../../structures/indexed-heap';
import { MAX_LEVELS, type StreamedTextureTable } from '../streamed-texture-table';

/**
 * A texture capped for lack of room may grow again once the budget's free bytes reach this many
 * times the chain one level finer than its cap (a load reserves its whole new chain beside the old
 * one). The margin keeps a texture from relaxing into room that a load in flight is about to take
 * back and being capped again on the next frame.
 */
const RELAX_HEADROOM = 1.25;
/** A capped texture is judged again at once when its importance (the view) rises past this factor. */
const RECONSIDER_IMPORTANCE = 2;

/**
 * The hysteresis of a budget below the view's need, on the level a texture is allowed rather than
 * on each request: a texture shed, or left short, for lack of room is capped at the level it was
 * left at (`allowedMip` in the {@link StreamedTextureTable}) and not asked for finer until the free
 * bytes could hold its next level, or its importance doubles. Caps wait in a heap keyed by the free
 * bytes that relax them, so a frame with nothing to relax costs one comparison.
 */
export class LevelCaps {
  private readonly textures: StreamedTextureTable;
  private readonly heap = new IndexedMinHeap();

  constructor(textures: StreamedTextureTable) {
    this.textures = textures;
  }

  /** Caps `slot` at `level` (0: no cap), recording its `importance` then. */
  cap(slot: number, level: number, importance: number): void {
    const t = this.textures;
    t.allowedMip[slot] = level;
    t.cappedImportance[slot] = importance;
    if (level > 0) this.heap.set(slot, t.chainBytes[slot * MAX_LEVELS + level - 1] * RELAX_HEADROOM);
    else {
      this.heap.delete(slot);
    }
  }

  /** Lifts one cap that `freeBytes` of free budget relaxes: its slot, or -1 when none. */
  relaxOne(freeBytes: number): number {
    if (this.heap.size === 0 || this.heap.peekKey() > freeBytes) return -1;
    const slot = this.heap.pop();
    this.textures.allowedMip[slot] = 0;
    return slot;
  }

  /** Lifts the cap of `slot` when its importance has risen enough since it was capped. */
  reconsider(slot: number, importance: number): void {
    const t = this.textures;
    if (t.allowedMip[slot] > 0 && importance > RECONSIDER_IMPORTANCE * t.cappedImportance[slot]) {
      t.allowedMip[slot] = 0;
      this.heap.delete(slot);
    }
  }

  /**
   * Bytes the streamed chains of the textures in `dropHeap` keyed below `importance` hold (less
   * important or surplus): all that shedding could free for a texture of that importance, so that
   * nothing is shed for a load it would not let gain a level. A scan, run only when a load does
   * not fit the free bytes.
   */
  sheddableBelow(dropHeap: IndexedMinHeap, budget: TextureBudget, importance: number): number {
    const t = this.textures;
    let bytes = 0;
    for (let slot = 0; slot < t.managed.length; slot++) {
      if (dropHeap.has(slot) && dropHeap.key(slot) < importance) {
        bytes += budget.bytesOf(t.streamHandle[slot]);
      }
    }
    return bytes;
  }

  /** Forgets `slot` (its texture was evicted). */
  forget(slot: number): void {
    this.heap.delete(slot);
  }
}
