import { NO_REQUEST } from '../../src/core/vt/page-id';

/** Ways per set: a page id may sit in any of 4 entries of the set its hash picks. */
const WAYS = 4;

/**
 * The reuse history of evicted pages, so a page keeps its gaps and flicker across evictions: a
 * small 4-way set-associative table keyed by page id, of at least as many sets as pool slots (a
 * power of two, at least 16). A full set forgets its entry used longest ago. Typed arrays only;
 * nothing is allocated after construction.
 */
export class ReuseGhostTable {
  /** Frame the page of each entry was last used, before its eviction. */
  readonly lastUse: Int32Array;
  /** Latest reuse gap of each entry's page, in frames (0 for none). */
  readonly gap: Int32Array;
  /** Reuse gap before the latest, in frames (0 for none). */
  readonly gapBefore: Int32Array;
  /** Longest flicker (short absence) of each entry's page, in frames. */
  readonly flicker: Uint8Array;

  private readonly keys: Uint32Array;
  private readonly setMask: number;

  /** A table for a pool of `slotCount` slots. */
  constructor(slotCount: number) {
    let sets = 16;
    while (sets < slotCount) sets <<= 1;
    this.keys = new Uint32Array(sets * WAYS).fill(NO_REQUEST);
    this.lastUse = new Int32Array(sets * WAYS);
    this.gap = new Int32Array(sets * WAYS);
    this.gapBefore = new Int32Array(sets * WAYS);
    this.flicker = new Uint8Array(sets * WAYS);
    this.setMask = sets - 1;
  }

  /** Records the history of `pageId` as it leaves the pool (replaces an older record of it). */
  remember(pageId: number, lastUse: number, gap: number, gapBefore: number, flicker: number): void {
    const b = this.setStart(pageId);
    let t = b;
    for (let i = b; i < b + WAYS; i++) {
      if (this.keys[i] === pageId || this.keys[i] === NO_REQUEST) {
        t = i;
        break;
      }
      if (this.lastUse[i] < this.lastUse[t]) t = i;
    }
    this.keys[t] = pageId;
    this.lastUse[t] = lastUse;
    this.gap[t] = gap;
    this.gapBefore[t] = gapBefore;
    this.flicker[t] = flicker;
  }

  /** Entry holding `pageId`'s history (an index into the arrays above), or -1. */
  find(pageId: number): number {
    const b = this.setStart(pageId);
    for (let i = b; i < b + WAYS; i++) if (this.keys[i] === pageId) return i;
    return -1;
  }

  private setStart(pageId: number): number {
    return ((Math.imul(pageId, 0x85ebca6b) >>> 9) & this.setMask) * WAYS;
  }
}
