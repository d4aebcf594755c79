import {
  LEFT_VIEW_FRAMES,
  MIN_FLICKER_FRAMES,
  NEW_DEPARTURE_FRAMES,
  TYPICAL_GAP_WINDOW,
} from './eviction-tuning';
import { ReuseGhostTable } from './reuse-ghost-table';

/**
 * What the {@link PhysicalPool} knows of each page's absences, per slot: its last two reuse gaps
 * (absences longer than {@link LEFT_VIEW_FRAMES}) and its longest flicker (shorter ones), kept
 * across evictions in a {@link ReuseGhostTable}, plus the running mean of all reuse gaps. From
 * these it tells when an idle page has left the view and when it is expected back. All figures
 * in frames; typed arrays only.
 */
export class ReuseHistory {
  private readonly flicker: Uint8Array;
  private readonly gap: Int32Array;
  private readonly gapBefore: Int32Array;
  private readonly ghosts: ReuseGhostTable;
  /** Running mean of the reuse gaps observed on every page, in frames (0 before the first). */
  private typical = 0;
  private typicalSamples = 0;

  constructor(slotCount: number) {
    this.flicker = new Uint8Array(slotCount);
    this.gap = new Int32Array(slotCount);
    this.gapBefore = new Int32Array(slotCount);
    this.ghosts = new ReuseGhostTable(slotCount);
  }

  /** Running mean of the reuse gaps of every page, over about {@link TYPICAL_GAP_WINDOW} gaps. */
  get typicalGap(): number {
    return this.typical;
  }

  /** Records that the page in `slot` was used again after `absence` frames. */
  noteAbsence(slot: number, absence: number): void {
    if (absence > LEFT_VIEW_FRAMES) {
      this.gapBefore[slot] = this.gap[slot];
      this.gap[slot] = absence;
      this.noteGap(absence);
    } else if (absence > 1 && absence > this.flicker[slot]) {
      this.flicker[slot] = absence;
    }
  }

  /**
   * First frame at which the page in `slot`, last used at `lastUse`, counts as having left the
   * view: idle for longer than the longest flicker it has shown, plus one frame, and at most
   * {@link LEFT_VIEW_FRAMES}.
   */
  departureFrame(slot: number, lastUse: number): number {
    const wait = Math.min(LEFT_VIEW_FRAMES, Math.max(MIN_FLICKER_FRAMES, this.flicker[slot]) + 1);
    return lastUse + wait + 1;
  }

  /**
   * Frames after its last use at which the departed page in `slot` is expected back: the gap
   * before the latest one (exact for loops, with equal gaps, and for views that alternate between
   * two rhythms: ping-pong, an orbit seeing a place near then far), else the latest, else
   * {@link NEW_DEPARTURE_FRAMES}.
   */
  expectedGap(slot: number): number {
    const gap = this.gapBefore[slot] > 0 ? this.gapBefore[slot] : this.gap[slot];
    return gap === 0 ? NEW_DEPARTURE_FRAMES : gap;
  }

  /** Keeps the history of `pageId`, leaving `slot` after its last use at `lastUse`, in the ghosts. */
  remember(slot: number, pageId: number, lastUse: number): void {
    this.ghosts.remember(pageId, lastUse, this.gap[slot], this.gapBefore[slot], this.flicker[slot]);
  }

  /**
   * Starts the history of `pageId`, loaded into `slot` at `frame`: empty, or restored from the
   * ghosts with the absence just ended added.
   */
  recall(slot: number, pageId: number, frame: number): void {
    this.gap[slot] = 0;
    this.gapBefore[slot] = 0;
    this.flicker[slot] = 0;
    const ghosts = this.ghosts;
    const i = ghosts.find(pageId);
    if (i < 0) return;
    const gap = frame - ghosts.lastUse[i];
    this.flicker[slot] = ghosts.flicker[i];
    if (gap > LEFT_VIEW_FRAMES) {
      this.gap[slot] = gap;
      this.gapBefore[slot] = ghosts.gap[i];
      this.noteGap(gap);
    } else {
      this.gap[slot] = ghosts.gap[i];
      this.gapBefore[slot] = ghosts.gapBefore[i];
      // Evicted during a flicker: it was longer than any seen before, so wait longer next time.
      if (gap > this.flicker[slot]) this.flicker[slot] = gap;
    }
  }

  private noteGap(gap: number): void {
    if (this.typicalSamples < TYPICAL_GAP_WINDOW) this.typicalSamples++;
    this.typical += (gap - this.typical) / this.typicalSamples;
  }
}
