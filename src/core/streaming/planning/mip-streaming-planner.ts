import { BudgetPriority } from '../../budget/budget-priority';
import { NO_RESERVATION, type TextureBudget } from '../../budget/texture-budget';
import { TesseraError } from '../../errors';
import { IndexedMinHeap } from '../../structures/indexed-heap';
import { wantedMipLevel } from '../need/wanted-mip';
import { MAX_LEVELS, NONE, StreamedTextureTable } from '../streamed-texture-table';
import type { StreamingBackend } from '../streaming-backend';
import { LifetimeTagWeights } from '../sweep/lifetime-tag-weights';
import type { ManagedTextureRegistry } from '../texture-registry';
import { LevelCaps } from './level-caps';
import {
  type MipStreamingPlannerOptions,
  plannerSettings,
  type StreamedTextureDescriptor,
} from './mip-streaming-options';

export { PINNED_MAX_EDGE } from '../streamed-texture-table';

/**
 * Streams the mips of ordinary textures under the {@link TextureBudget}. Each texture has a pinned
 * chain (levels whose edge <= 64 texels, loaded first and kept while the texture lives) and at most
 * one streamed chain `residentMip ..`. Finer chains are loaded in priority order (screen benefit x
 * tag weight x missing levels) while the budget has room; under pressure the least important
 * textures lose their finest mips first. Hysteresis: grow only past `growMargin`, drop surplus only
 * after `dropAfterFrames` frames of a 1+ level coarser need.
 *
 * Below the view's need the planner settles on one set of levels instead of thrashing: room is made
 * only from strictly less important textures (a strict order, so a texture shed for another can
 * never shed it back), only when shedding them would let the grower gain a level, and a texture
 * shed (or left short) for lack of room is capped until room returns (`LevelCaps`). Indexed
 * heaps, no per-frame sort, no allocation in steady state; struct-of-arrays state by registry slot.
 */
export class MipStreamingPlanner {
  private readonly budget: TextureBudget;
  private readonly registry: ManagedTextureRegistry;
  private readonly backend: StreamingBackend;
  private readonly settings: ReturnType<typeof plannerSettings>;
  private readonly tagWeights: LifetimeTagWeights;
  private readonly textures = new StreamedTextureTable();
  private readonly onLoadFailed?: (textureId: number, error: TesseraError) => void;

  private readonly loadHeap = new IndexedMinHeap();
  private readonly dropHeap = new IndexedMinHeap();
  private readonly caps = new LevelCaps(this.textures);
  private inFlight = 0;
  private registrations = 0;
  /** Frame of the latest {@link update}. */
  private frame = 0;
  /** Earliest frame a failed texture's cool-down ends (+Infinity when none failed). */
  private nextRetryFrame = Number.POSITIVE_INFINITY;

  constructor(
    budget: TextureBudget,
    registry: ManagedTextureRegistry,
    backend: StreamingBackend,
    options: MipStreamingPlannerOptions = {},
  ) {
    this.budget = budget;
    this.registry = registry;
    this.backend = backend;
    this.settings = plannerSettings(options);
    this.tagWeights = new LifetimeTagWeights(registry.tags, options.tagWeights);
    this.onLoadFailed = options.onLoadFailed;
    registry.addEvictListener((id, slot) => this.forget(id, slot));
    budget.addShedder({ priority: BudgetPriority.streamedMips, shed: (bytes) => this.shed(bytes) });
  }

  /** Chain loads/resizes currently in flight. */
  get loadsInFlight(): number {
    return this.inFlight;
  }

  /** Chain loads waiting for a start (for lack of a load slot or of room). */
  get queuedLoads(): number {
    return this.loadHeap.size;
  }

  /**
   * Stream the registered texture `id`. Its pinned chain starts loading at once when the budget
   * has room (else it is queued ahead of every finer mip, core textures first); it renders its
   * placeholder until that chain has loaded.
   * @throws TesseraConfigError for a bad descriptor; TesseraError('unknown-texture') for a bad id.
   */
  add(id: number, desc: StreamedTextureDescriptor): void {
    const slot = this.registry.slotOf(id);
    this.textures.start(slot, desc);
    const coreBoost = this.registry.isCoreAt(slot) ? 2e15 : 1e15;
    this.loadHeap.set(slot, -coreBoost + ++this.registrations);
    // The pinned chain (a few KiB) starts loading now, not at the next update: a scene loaded
    // before the render loop runs is textured from its first frame. Without room it waits in the
    // heap, ahead of every finer mip.
    this.switchChain(slot, this.textures.pinnedMip[slot], 0, false);
  }

  /**
   * Report the screen need of texture `id` (the largest over the meshes using it, refreshed every
   * few frames). `projectedSizePx` 0 means not visible. Also marks the texture used at `frame`.
   */
  setScreenNeed(id: number, projectedSizePx: number, worldSize: number, frame: number, nowMs = 0): void {
    const t = this.textures;
    const slot = this.registry.slotOf(id);
    if (t.managed[slot] === 0) throw new TesseraError('unknown-texture', `Texture ${id} is not streamed.`);
    if (projectedSizePx > 0) this.registry.touch(id, frame, nowMs);
    const wanted = wantedMipLevel(t.texelsPerWorld[slot], projectedSizePx, worldSize, this.settings.mipBias);
    t.wanted[slot] = Math.max(0, wanted);
    // biome-ignore lint/complexity/useMathMinMax: NaN input must become 0, which Math.max would not do
    t.benefit[slot] = projectedSizePx > 0 ? projectedSizePx : 0;
    const resident = t.residentMip[slot];
    if (Math.floor(t.wanted[slot]) >= resident + 1 && resident < t.pinnedMip[slot]) {
      if (t.coarserSince[slot] === NONE) t.coarserSince[slot] = frame;
      t.surplus[slot] = frame - t.coarserSince[slot] >= this.settings.dropAfterFrames ? 1 : 0;
    } else {
      t.coarserSince[slot] = NONE;
      t.surplus[slot] = 0;
    }
    this.rekey(slot);
  }

  /** Finest resident level of texture `id` (its pinned level until finer mips load). */
  residentMipOf(id: number): number {
    return this.textures.residentMip[this.registry.slotOf(id)];
  }

  /** Pinned level of texture `id` (edge <= 64 texels). */
  pinnedMipOf(id: number): number {
    return this.textures.pinnedMip[this.registry.slotOf(id)];
  }

  /** True once the pinned chain of `id` is on the GPU (before that, its placeholder renders). */
  isRenderable(id: number): boolean {
    return this.textures.pinnedReady[this.registry.slotOf(id)] === 1;
  }

  /** True when a chain load of `id` is in flight. */
  isLoading(id: number): boolean {
    return this.textures.loadingMip[this.registry.slotOf(id)] !== NONE;
  }

  /** Bytes texture `id` holds in the budget now (pinned + streamed + in-flight chains). */
  residentBytesOf(id: number): number {
    const t = this.textures;
    const slot = this.registry.slotOf(id);
    if (slot >= t.managed.length || t.managed[slot] === 0) return 0;
    let bytes = 0;
    if (t.pinnedHandle[slot] !== NONE) bytes += this.budget.bytesOf(t.pinnedHandle[slot]);
    if (t.streamHandle[slot] !== NONE) bytes += this.budget.bytesOf(t.streamHandle[slot]);
    if (t.pendingHandle[slot] !== NONE) bytes += this.budget.bytesOf(t.pendingHandle[slot]);
    return bytes;
  }

  /**
   * True when texture `id` has nothing left to stream: no load in flight, and it is renderable (or
   * failed) with no finer level wanted past the grow margin, or allowed (see `LevelCaps`).
   */
  isSettled(id: number): boolean {
    const t = this.textures;
    const slot = this.registry.slotOf(id);
    if (t.loadingMip[slot] !== NONE) return false;
    if (t.failed[slot] === 1) return true;
    return t.pinnedReady[slot] === 1 && this.growTarget(slot) >= t.residentMip[slot];
  }

  /** True when the load of `id`'s chain failed (it keeps its placeholder or previous chain). */
  hasFailed(id: number): boolean {
    return this.textures.failed[this.registry.slotOf(id)] === 1;
  }

  /** Bytes of the pinned chain of texture `id`, for computing a budget's pinned minimum. */
  pinnedBytesOf(id: number): number {
    const slot = this.registry.slotOf(id);
    return this.textures.chainBytes[slot * MAX_LEVELS + this.textures.pinnedMip[slot]];
  }

  /**
   * Per-frame step: relax the caps the free bytes now allow, drop sustained surplus mips, then start
   * the most important loads while there is room (making room from less important textures when
   * that lets the load gain a level; capping the texture at what fits when it does not).
   */
  update(frame: number): void {
    const t = this.textures;
    this.frame = frame;
    if (frame >= this.nextRetryFrame) this.endCooldowns(frame);
    const free = this.budget.freeBytes;
    for (let slot = this.caps.relaxOne(free); slot >= 0; slot = this.caps.relaxOne(free)) this.rekey(slot);
    let drops = 0;
    while (drops < this.settings.maxDropsPerFrame && this.dropHeap.size > 0 && this.dropHeap.peekKey() < 0) {
      const slot = this.dropHeap.pop();
      const target = Math.min(Math.floor(t.wanted[slot]), t.pinnedMip[slot]);
      this.switchChain(slot, target, frame, true);
      drops++;
    }
    while (this.inFlight < this.settings.maxLoadsInFlight && this.loadHeap.size > 0) {
      const slot = this.loadHeap.peek();
      if (t.pinnedReady[slot] === 0) {
        if (!this.switchChain(slot, t.pinnedMip[slot], frame, false)) break;
        continue;
      }
      const resident = t.residentMip[slot];
      const wanted = this.growTarget(slot);
      if (wanted >= resident) {
        this.loadHeap.pop();
        continue;
      }
      const base = slot * MAX_LEVELS;
      let target = wanted;
      if (t.chainBytes[base + target] > this.budget.freeBytes) {
        const importance = this.importance(slot);
        const room = this.budget.freeBytes + this.caps.sheddableBelow(this.dropHeap, this.budget, importance);
        while (target < resident && t.chainBytes[base + target] > room) target++;
        if (target === resident) {
          this.cap(slot, resident, importance);
          continue;
        }
        // One-level drops free their bytes when their smaller chain lands: count them as freed.
        let freeing = 0;
        while (
          t.chainBytes[base + target] > this.budget.freeBytes + freeing &&
          drops < this.settings.maxDropsPerFrame &&
          this.dropHeap.size > 0 &&
          this.dropHeap.peekKey() < importance
        ) {
          freeing += this.dropOneLevel(this.dropHeap.pop(), frame);
          drops++;
        }
        // Room is still being made (drops in flight, or this frame's drops used): try next frame.
        if (t.chainBytes[base + target] > this.budget.freeBytes) break;
        if (target > wanted) this.cap(slot, target, importance);
      }
      if (!this.switchChain(slot, target, frame, false)) break;
    }
  }

  /**
   * The binding reports the outcome of `StreamingBackend.allocate(textureId, firstMip, ...)`.
   * Reports for evicted textures or superseded loads are ignored.
   */
  completeLoad(textureId: number, firstMip: number, error?: unknown): void {
    const t = this.textures;
    if (!this.registry.has(textureId)) return;
    const slot = this.registry.slotOf(textureId);
    if (t.managed[slot] === 0 || t.loadingMip[slot] !== firstMip) return;
    t.loadingMip[slot] = NONE;
    this.inFlight--;
    const pending = t.pendingHandle[slot];
    t.pendingHandle[slot] = NONE;
    const full = t.fullMips[slot];
    if (error !== undefined) {
      this.budget.release(pending);
      t.failed[slot] = 1;
      t.failedAt[slot] = this.frame;
      this.nextRetryFrame = Math.min(this.nextRetryFrame, this.frame + this.settings.failedCooldownFrames);
      this.loadHeap.delete(slot);
      this.rekey(slot);
      this.onLoadFailed?.(
        textureId,
        new TesseraError(
          'texture-load-failed',
          `Levels ${firstMip}.. of texture ${textureId} failed to load.`,
          {
            cause: error,
          },
        ),
      );
      return;
    }
    if (t.pinnedReady[slot] === 0) {
      t.pinnedReady[slot] = 1;
      t.pinnedHandle[slot] = pending;
    } else {
      if (t.streamHandle[slot] !== NONE) {
        const old = t.residentMip[slot];
        this.backend.free(textureId, old, full - old);
        this.budget.release(t.streamHandle[slot]);
      }
      t.streamHandle[slot] = firstMip < t.pinnedMip[slot] ? pending : NONE;
      t.residentMip[slot] = firstMip;
    }
    t.coarserSince[slot] = NONE;
    t.surplus[slot] = 0;
    this.rekey(slot);
  }

  /** Free streamed chains, least important first, until `bytes` are freed (budget shedder), capped. */
  private shed(bytes: number): void {
    let freed = 0;
    while (freed < bytes && this.dropHeap.size > 0) {
      const slot = this.dropHeap.pop();
      freed += this.budget.bytesOf(this.textures.streamHandle[slot]);
      this.freeStream(slot);
      this.cap(slot, this.textures.pinnedMip[slot], this.importance(slot));
    }
  }

  /**
   * Sheds `slot` for lack of room, capped where it is left: one level coarser when the smaller chain
   * fits beside the old one, else down to the pinned chain. Returns the bytes freed once it lands.
   */
  private dropOneLevel(slot: number, frame: number): number {
    const t = this.textures;
    const base = slot * MAX_LEVELS;
    const resident = t.residentMip[slot];
    const target = resident + 1;
    const importance = this.importance(slot);
    if (target >= t.pinnedMip[slot] || t.chainBytes[base + target] > this.budget.freeBytes) {
      this.freeStream(slot);
      this.cap(slot, t.pinnedMip[slot], importance);
      return 0;
    }
    this.cap(slot, target, importance);
    if (!this.switchChain(slot, target, frame, true)) return 0;
    return t.chainBytes[base + resident] - t.chainBytes[base + target];
  }

  /** Caps `slot` at `level` until room returns (see `LevelCaps`). */
  private cap(slot: number, level: number, importance: number): void {
    this.caps.cap(slot, level, importance);
    this.rekey(slot);
  }

  /** Start replacing the streamed chain of `slot` by `target ..`; false when the budget refused. */
  private switchChain(slot: number, target: number, _frame: number, dropping: boolean): boolean {
    const t = this.textures;
    if (t.pinnedReady[slot] === 1 && target >= t.pinnedMip[slot]) {
      this.freeStream(slot);
      return true;
    }
    const tag = this.registry.tagAt(slot);
    const priority = t.pinnedReady[slot] === 0 ? BudgetPriority.pinned : BudgetPriority.streamedMips;
    const handle = this.budget.tryReserve(
      'streamed',
      t.chainBytes[slot * MAX_LEVELS + target],
      tag,
      priority,
    );
    if (handle === NO_RESERVATION) {
      if (dropping) this.freeStream(slot);
      return false;
    }
    this.loadHeap.delete(slot);
    this.dropHeap.delete(slot);
    t.pendingHandle[slot] = handle;
    t.loadingMip[slot] = target;
    this.inFlight++;
    const full = t.fullMips[slot];
    this.backend.allocate(this.registry.idAt(slot), target, full - target);
    return true;
  }

  /** Drop the streamed chain of `slot` at once: the pinned chain renders, nothing new is allocated. */
  private freeStream(slot: number): void {
    const t = this.textures;
    this.dropHeap.delete(slot);
    if (t.streamHandle[slot] === NONE) return;
    const old = t.residentMip[slot];
    this.backend.free(this.registry.idAt(slot), old, t.fullMips[slot] - old);
    this.budget.release(t.streamHandle[slot]);
    t.streamHandle[slot] = NONE;
    t.residentMip[slot] = t.pinnedMip[slot];
    t.coarserSince[slot] = NONE;
    t.surplus[slot] = 0;
    this.rekey(slot);
  }

  /** The level to grow to (no finer than its cap), or the resident level when the need does not pass the grow margin. */
  private growTarget(slot: number): number {
    const resident = this.textures.residentMip[slot];
    const wanted = this.textures.wanted[slot];
    if (!(wanted <= resident - this.settings.growMargin)) return resident;
    return Math.max(this.textures.allowedMip[slot], Math.floor(wanted));
  }

  private importance(slot: number): number {
    return (
      this.tagWeights.weightOf(this.registry.tagAt(slot)) *
      this.textures.bias[slot] *
      this.textures.benefit[slot]
    );
  }

  /** Re-place `slot` in the load and drop heaps after its need or residency changed. */
  private rekey(slot: number): void {
    const t = this.textures;
    if (t.loadingMip[slot] !== NONE || t.failed[slot] === 1) {
      this.loadHeap.delete(slot);
      this.dropHeap.delete(slot);
      return;
    }
    if (t.pinnedReady[slot] === 0) return;
    const importance = this.importance(slot);
    this.caps.reconsider(slot, importance);
    const resident = t.residentMip[slot];
    const target = this.growTarget(slot);
    if (target < resident) this.loadHeap.set(slot, -importance * (resident - t.wanted[slot]) - 1e-9);
    else {
      this.loadHeap.delete(slot);
    }
    if (t.streamHandle[slot] === NONE) this.dropHeap.delete(slot);
    else if (t.surplus[slot] === 1) this.dropHeap.set(slot, -1 - (Math.floor(t.wanted[slot]) - resident));
    else {
      this.dropHeap.set(slot, importance);
    }
  }

  /**
   * Lets textures whose cool-down after a failed load ended load again (a pinned chain first, as
   * at `add`); a scan of the slots, only on frames when a cool-down ends.
   */
  private endCooldowns(frame: number): void {
    const t = this.textures;
    const cooldown = this.settings.failedCooldownFrames;
    let next = Number.POSITIVE_INFINITY;
    for (let slot = 0; slot < t.managed.length; slot++) {
      if (t.managed[slot] === 0 || t.failed[slot] === 0) continue;
      if (frame - t.failedAt[slot] < cooldown) {
        next = Math.min(next, t.failedAt[slot] + cooldown);
        continue;
      }
      t.failed[slot] = 0;
      if (t.pinnedReady[slot] === 0) this.loadHeap.set(slot, -1e15 + ++this.registrations);
      else this.rekey(slot);
    }
    this.nextRetryFrame = next;
  }

  private forget(id: number, slot: number): void {
    const t = this.textures;
    if (slot >= t.managed.length || t.managed[slot] === 0) return;
    t.managed[slot] = 0;
    this.loadHeap.delete(slot);
    this.dropHeap.delete(slot);
    this.caps.forget(slot);
    if (t.loadingMip[slot] !== NONE) this.inFlight--;
    t.loadingMip[slot] = NONE;
    this.backend.release(id);
    if (t.pinnedHandle[slot] !== NONE) this.budget.release(t.pinnedHandle[slot]);
    if (t.streamHandle[slot] !== NONE) this.budget.release(t.streamHandle[slot]);
    if (t.pendingHandle[slot] !== NONE) this.budget.release(t.pendingHandle[slot]);
    t.pinnedHandle[slot] = NONE;
    t.streamHandle[slot] = NONE;
    t.pendingHandle[slot] = NONE;
  }
}
