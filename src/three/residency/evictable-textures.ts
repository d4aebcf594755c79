import type { VirtualTextureStreamer } from '../../core/vt/virtual-texture-streamer';

/**
 * An evictable texture's page counts as out of view once unused for this many frames, in frames:
 * longer than the feedback latency (3 readbacks in flight), so pages still on screen stay.
 */
const EVICTABLE_IDLE_FRAMES = 8;

/**
 * Slots examined per frame for every page freed at most, a count: the scan goes on where the last
 * frame's stopped, so its cost per frame does not grow with the pool (65536 slots are all visited
 * within 16 frames at the default budget of 64 pages) while a draining scene is still found fast.
 */
const SLOTS_EXAMINED_PER_PAGE = 64;

/**
 * The virtual textures of a scene being left (`setEvictable`): each frame their resident,
 * unpinned pages out of view for a few frames are freed, up to a page budget per frame, so new
 * pages take their slots first and the old scene's memory drains while it still renders.
 */
export class EvictableTextures {
  /** Bit `vt` set: texture `vt` is evictable. */
  private mask = 0;

  constructor(
    private readonly streamer: VirtualTextureStreamer,
    private readonly pagesPerFrame: number,
  ) {}

  /** Marks texture `vt` (0..15) as evictable, or not. */
  mark(vt: number, evictable: boolean): void {
    if (evictable) this.mask |= 1 << vt;
    else {
      this.mask &= ~(1 << vt);
    }
  }

  /** True when texture `vt` is marked. */
  has(vt: number): boolean {
    return (this.mask & (1 << vt)) !== 0;
  }

  /** Frees up to the per-frame page budget of the marked textures' idle pages, at frame `frame`. */
  release(frame: number): void {
    if (this.mask === 0) return;
    let budget = this.pagesPerFrame;
    const slots = this.pagesPerFrame * SLOTS_EXAMINED_PER_PAGE;
    for (let vt = 0; vt < 16 && budget > 0; vt++) {
      if ((this.mask & (1 << vt)) === 0) continue;
      budget -= this.streamer.releaseTexturePages(vt, budget, frame - EVICTABLE_IDLE_FRAMES, slots);
    }
  }

  /** Unmarks every texture. */
  clear(): void {
    this.mask = 0;
  }
}
