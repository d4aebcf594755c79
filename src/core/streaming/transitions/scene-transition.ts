import type { TextureBudget } from '../../budget/texture-budget';
import { TesseraConfigError } from '../../errors';
import type { MipStreamingPlanner } from '../planning/mip-streaming-planner';
import type { ManagedTextureRegistry } from '../texture-registry';

/** One side of a transition: a scene's textures (registry ids) and its virtual textures. */
export interface SceneTextureSet {
  /** Textures of the scene; those also in the other set, or retained, are kept. */
  readonly textures: readonly number[];
  /** Opaque virtual-texture handles, given to `onVtEvictable` when the old scene is left. */
  readonly vtHandles?: readonly number[];
}

/** Order in which a transition loads and releases. */
export type TransitionOrder =
  /** Core coarse mips first, ready, then release the old scene progressively while the new one streams. */
  | 'load-while-release'
  /** For comparison: stream all of the new scene, then release the old scene at once. */
  | 'naive';

/** Options of a {@link SceneTransition}. */
export interface SceneTransitionOptions {
  /** Default 'load-while-release'. */
  order?: TransitionOrder;
  /** Bytes of old textures released per frame. Default budget / 32. */
  releaseBytesPerFrame?: number;
  /** Headroom above the resident bytes at the start, as a fraction of the budget. Default 0.1. */
  headroomFraction?: number;
  /** The new scene's core textures are renderable: the app may switch to it. */
  onReady?: () => void;
  /** A virtual texture of the old scene: make its pages evictable now. */
  onVtEvictable?: (vtHandle: number) => void;
}

/** Where a {@link SceneTransition} stands. */
export type TransitionPhase = 'loading' | 'releasing' | 'done';

/**
 * Moves from one scene's textures to another's under the budget. With 'load-while-release' the
 * budget is capped at (resident bytes at the start + headroom) until the old scene is gone, so the
 * peak stays <= max(old resident, new resident) + headroom and never above the budget. The new
 * scene's textures must already be registered and added to the planner (core ones with `core`);
 * the planner loads pinned (coarse) chains first, core textures ahead of the rest.
 * Call {@link update} once per frame before the planner's update.
 */
export class SceneTransition {
  /** Current phase. */
  phase: TransitionPhase = 'loading';
  /** Live budget bytes when the transition started (the old scene's resident figure), bytes. */
  readonly residentAtStart: number;
  /** Frames from start to ready. */
  framesToReady = -1;
  /** Frames from start to done. */
  framesToDone = -1;
  private readonly budget: TextureBudget;
  private readonly registry: ManagedTextureRegistry;
  private readonly planner: MipStreamingPlanner;
  private readonly from: SceneTextureSet;
  private readonly to: SceneTextureSet;
  private readonly order: TransitionOrder;
  private readonly releasePerFrame: number;
  private readonly onReady?: () => void;
  private readonly onVtEvictable?: (vtHandle: number) => void;
  private readonly keep = new Set<number>();
  private releaseCursor = 0;
  private frames = 0;

  /** @throws TesseraConfigError('invalid-option') for a bad release rate or headroom. */
  constructor(
    budget: TextureBudget,
    registry: ManagedTextureRegistry,
    planner: MipStreamingPlanner,
    from: SceneTextureSet,
    to: SceneTextureSet,
    options: SceneTransitionOptions = {},
  ) {
    this.budget = budget;
    this.registry = registry;
    this.planner = planner;
    this.from = from;
    this.to = to;
    this.order = options.order ?? 'load-while-release';
    this.releasePerFrame = options.releaseBytesPerFrame ?? Math.ceil(budget.budgetBytes / 32);
    const headroom = options.headroomFraction ?? 0.1;
    if (!(this.releasePerFrame > 0) || !(headroom >= 0 && headroom <= 1)) {
      throw new TesseraConfigError(
        'invalid-option',
        'releaseBytesPerFrame must be > 0 and headroomFraction in [0, 1].',
      );
    }
    this.onReady = options.onReady;
    this.onVtEvictable = options.onVtEvictable;
    for (const id of to.textures) this.keep.add(id);
    this.residentAtStart = budget.liveBytes;
    if (this.order === 'load-while-release') {
      budget.setCap(
        Math.max(this.residentAtStart, this.residentAtStart + Math.floor(headroom * budget.budgetBytes)),
      );
    }
  }

  /** Advance one frame. Returns the phase after the step. */
  update(): TransitionPhase {
    if (this.phase === 'done') return this.phase;
    this.frames++;
    if (this.phase === 'loading') {
      const ready = this.order === 'naive' ? this.allSettled() : this.coreRenderable();
      if (!ready) return this.phase;
      this.framesToReady = this.frames;
      this.phase = 'releasing';
      for (const handle of this.from.vtHandles ?? []) this.onVtEvictable?.(handle);
      this.onReady?.();
    }
    this.releaseSome(this.order === 'naive' ? Number.POSITIVE_INFINITY : this.releasePerFrame);
    if (this.releaseCursor >= this.from.textures.length) {
      this.phase = 'done';
      this.framesToDone = this.frames;
      this.budget.setCap(Number.POSITIVE_INFINITY);
    }
    return this.phase;
  }

  private coreRenderable(): boolean {
    for (const id of this.to.textures) {
      if (!this.registry.has(id)) continue;
      const slot = this.registry.slotOf(id);
      if (this.registry.isCoreAt(slot) && !this.planner.isRenderable(id) && !this.planner.hasFailed(id)) {
        return false;
      }
    }
    return true;
  }

  private allSettled(): boolean {
    for (const id of this.to.textures) if (this.registry.has(id) && !this.planner.isSettled(id)) return false;
    return true;
  }

  private releaseSome(bytesAllowed: number): void {
    let released = 0;
    const textures = this.from.textures;
    while (this.releaseCursor < textures.length && released < bytesAllowed) {
      const id = textures[this.releaseCursor++];
      if (this.keep.has(id) || !this.registry.has(id)) continue;
      if (this.registry.refCountAt(this.registry.slotOf(id)) > 0) continue;
      released += this.planner.residentBytesOf(id);
      this.registry.evict(id);
    }
  }
}
