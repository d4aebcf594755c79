import { BudgetPriority } from '../budget/budget-priority';
import { NO_RESERVATION, type TextureBudget } from '../budget/texture-budget';
import { type TextureByteDescriptor, textureLevelRangeBytes } from '../budget/texture-bytes';
import { TesseraConfigError, TesseraError } from '../errors';
import { IndexedMinHeap } from '../structures/indexed-heap';
import type { StreamingBackend } from './streaming-backend';
import type { ManagedTextureRegistry } from './texture-registry';
import { wantedMipLevel } from './wanted-mip';

/** Most levels a streamed texture may have (65536 texels on an edge). */
const MAX_LEVELS = 17;
/** Largest edge of the pinned level in texels: a texture renders at once from its pinned chain. */
export const PINNED_MAX_EDGE = 64;
const NONE = -1;

/** Describes a streamed texture to {@link MipStreamingPlanner.add}. */
export interface StreamedTextureDescriptor extends TextureByteDescriptor {
  /** The full chain length of the source (levels 0 .. n-1). Default: full chain for the size. */
  mipLevelCount?: number;
  /** UV units per world unit of the geometries using it (see computeUvDensity), computed once. */
  uvDensity: number;
  /** Multiplies the priority (importance) of this texture. Default 1. */
  priorityBias?: number;
}

/** Options of a {@link MipStreamingPlanner}. */
export interface MipStreamingPlannerOptions {
  /** Most chain loads/resizes in flight at once. Default 4. */
  maxLoadsInFlight?: number;
  /** Most textures dropped (made coarser) per {@link MipStreamingPlanner.update}. Default 8. */
  maxDropsPerFrame?: number;
  /** Frames the wanted level must stay 1+ level coarser before surplus mips are dropped. Default 30. */
  dropAfterFrames?: number;
  /** Grow only when the wanted level is this many levels finer than resident. Default 0.25. */
  growMargin?: number;
  /** Levels added to every wanted level (positive = coarser). Default 0. */
  mipBias?: number;
  /** Importance weight per lifetime tag name; defaults persistent 2, scene:* 1, transient 0.5, others 1. */
  tagWeights?: Record<string, number>;
  /** Called when a chain fails to load; the texture keeps its previous chain (or its placeholder). */
  onLoadFailed?: (textureId: number, error: TesseraError) => void;
}

/**
 * Streams the mips of ordinary textures under the {@link TextureBudget}. Each texture has a pinned
 * chain (levels whose edge <= 64 texels, loaded first and kept while the texture lives) and at most
 * one streamed chain `residentMip ..`. Finer chains are loaded in priority order (screen benefit x
 * tag weight x missing levels) while the budget has room; under pressure the least important
 * textures lose their finest mips first. Hysteresis: grow only past `growMargin`, drop surplus only
 * after `dropAfterFrames` frames of a 1+ level coarser need. Two indexed heaps, no per-frame sort,
 * no allocation in steady state. State is struct-of-arrays indexed by registry slot.
 */
export class MipStreamingPlanner {
  private readonly budget: TextureBudget;
  private readonly registry: ManagedTextureRegistry;
  private readonly backend: StreamingBackend;
  private readonly maxLoadsInFlight: number;
  private readonly maxDropsPerFrame: number;
  private readonly dropAfterFrames: number;
  private readonly growMargin: number;
  private readonly mipBias: number;
  private readonly tagWeightOverrides: Record<string, number>;
  private readonly onLoadFailed?: (textureId: number, error: TesseraError) => void;

  private managed = new Uint8Array(64);
  private fullMips = new Uint8Array(64);
  private pinnedMip = new Uint8Array(64);
  private residentMip = new Uint8Array(64);
  private pinnedReady = new Uint8Array(64);
  private failed = new Uint8Array(64);
  private loadingMip = new Int8Array(64).fill(NONE);
  private wanted = new Float32Array(64);
  private benefit = new Float32Array(64);
  private bias = new Float32Array(64);
  private texelsPerWorld = new Float32Array(64);
  private coarserSince = new Int32Array(64).fill(NONE);
  private surplus = new Uint8Array(64);
  private pinnedHandle = new Float64Array(64).fill(NONE);
  private streamHandle = new Float64Array(64).fill(NONE);
  private pendingHandle = new Float64Array(64).fill(NONE);
  /** bytes of levels `level .. full-1` at `slot * MAX_LEVELS + level`. */
  private chainBytes = new Float64Array(64 * MAX_LEVELS);
  private tagWeight = new Float32Array(16).fill(Number.NaN);
  private readonly loadHeap = new IndexedMinHeap();
  private readonly dropHeap = new IndexedMinHeap();
  private inFlight = 0;
  private registrations = 0;

  constructor(
    budget: TextureBudget,
    registry: ManagedTextureRegistry,
    backend: StreamingBackend,
    options: MipStreamingPlannerOptions = {},
  ) {
    this.budget = budget;
    this.registry = registry;
    this.backend = backend;
    this.maxLoadsInFlight = positiveInteger(options.maxLoadsInFlight ?? 4, 'maxLoadsInFlight');
    this.maxDropsPerFrame = positiveInteger(options.maxDropsPerFrame ?? 8, 'maxDropsPerFrame');
    this.dropAfterFrames = options.dropAfterFrames ?? 30;
    if (!Number.isInteger(this.dropAfterFrames) || this.dropAfterFrames < 0) {
      throw new TesseraConfigError('invalid-option', 'dropAfterFrames must be an integer >= 0.');
    }
    this.growMargin = options.growMargin ?? 0.25;
    this.mipBias = options.mipBias ?? 0;
    this.tagWeightOverrides = options.tagWeights ?? {};
    this.onLoadFailed = options.onLoadFailed;
    registry.addEvictListener((id, slot) => this.forget(id, slot));
    budget.addShedder({ priority: BudgetPriority.streamedMips, shed: (bytes) => this.shed(bytes) });
  }

  /** Chain loads/resizes currently in flight. */
  get loadsInFlight(): number {
    return this.inFlight;
  }

  /**
   * Stream the registered texture `id`. Its pinned chain is queued at once, ahead of every finer
   * mip (core textures first); it renders its placeholder until that chain has loaded.
   * @throws TesseraConfigError for a bad descriptor; TesseraError('unknown-texture') for a bad id.
   */
  add(id: number, desc: StreamedTextureDescriptor): void {
    const slot = this.registry.slotOf(id);
    const full = desc.mipLevelCount ?? 32 - Math.clz32(Math.max(desc.width, desc.height));
    if (!(desc.uvDensity >= 0) || !Number.isFinite(desc.uvDensity)) {
      throw new TesseraConfigError('invalid-option', `uvDensity must be a finite number >= 0.`);
    }
    const sized = { ...desc, mipLevelCount: full };
    textureLevelRangeBytes(sized, 0, full);
    if (full > MAX_LEVELS) throw new TesseraConfigError('too-large', `At most ${MAX_LEVELS} mip levels.`);
    this.ensureSlot(slot);
    let pinned = 0;
    while (pinned < full - 1 && Math.max(desc.width >>> pinned, desc.height >>> pinned) > PINNED_MAX_EDGE)
      pinned++;
    for (let level = 0; level < full; level++) {
      this.chainBytes[slot * MAX_LEVELS + level] = textureLevelRangeBytes(sized, level, full - level);
    }
    this.managed[slot] = 1;
    this.fullMips[slot] = full;
    this.pinnedMip[slot] = pinned;
    this.residentMip[slot] = pinned;
    this.pinnedReady[slot] = 0;
    this.failed[slot] = 0;
    this.loadingMip[slot] = NONE;
    this.wanted[slot] = Number.POSITIVE_INFINITY;
    this.benefit[slot] = 0;
    this.bias[slot] = desc.priorityBias ?? 1;
    this.texelsPerWorld[slot] = desc.uvDensity * Math.sqrt(desc.width * desc.height);
    this.coarserSince[slot] = NONE;
    this.surplus[slot] = 0;
    this.pinnedHandle[slot] = NONE;
    this.streamHandle[slot] = NONE;
    this.pendingHandle[slot] = NONE;
    const coreBoost = this.registry.isCoreAt(slot) ? 2e15 : 1e15;
    this.loadHeap.set(slot, -coreBoost + ++this.registrations);
  }

  /**
   * Report the screen need of texture `id` (the largest over the meshes using it, refreshed every
   * few frames). `projectedSizePx` 0 means not visible. Also marks the texture used at `frame`.
   */
  setScreenNeed(id: number, projectedSizePx: number, worldSize: number, frame: number, nowMs = 0): void {
    const slot = this.registry.slotOf(id);
    if (this.managed[slot] === 0) throw new TesseraError('unknown-texture', `Texture ${id} is not streamed.`);
    if (projectedSizePx > 0) this.registry.touch(id, frame, nowMs);
    const wanted = wantedMipLevel(this.texelsPerWorld[slot], projectedSizePx, worldSize, this.mipBias);
    this.wanted[slot] = Math.max(0, wanted);
    // biome-ignore lint/complexity/useMathMinMax: NaN input must become 0, which Math.max would not do
    this.benefit[slot] = projectedSizePx > 0 ? projectedSizePx : 0;
    const resident = this.residentMip[slot];
    if (Math.floor(this.wanted[slot]) >= resident + 1 && resident < this.pinnedMip[slot]) {
      if (this.coarserSince[slot] === NONE) this.coarserSince[slot] = frame;
      this.surplus[slot] = frame - this.coarserSince[slot] >= this.dropAfterFrames ? 1 : 0;
    } else {
      this.coarserSince[slot] = NONE;
      this.surplus[slot] = 0;
    }
    this.rekey(slot);
  }

  /** Finest resident level of texture `id` (its pinned level until finer mips load). */
  residentMipOf(id: number): number {
    return this.residentMip[this.registry.slotOf(id)];
  }

  /** Pinned level of texture `id` (edge <= 64 texels). */
  pinnedMipOf(id: number): number {
    return this.pinnedMip[this.registry.slotOf(id)];
  }

  /** True once the pinned chain of `id` is on the GPU (before that, its placeholder renders). */
  isRenderable(id: number): boolean {
    return this.pinnedReady[this.registry.slotOf(id)] === 1;
  }

  /** True when a chain load of `id` is in flight. */
  isLoading(id: number): boolean {
    return this.loadingMip[this.registry.slotOf(id)] !== NONE;
  }

  /** Bytes texture `id` holds in the budget now (pinned + streamed + in-flight chains). */
  residentBytesOf(id: number): number {
    const slot = this.registry.slotOf(id);
    if (slot >= this.managed.length || this.managed[slot] === 0) return 0;
    let bytes = 0;
    if (this.pinnedHandle[slot] !== NONE) bytes += this.budget.bytesOf(this.pinnedHandle[slot]);
    if (this.streamHandle[slot] !== NONE) bytes += this.budget.bytesOf(this.streamHandle[slot]);
    if (this.pendingHandle[slot] !== NONE) bytes += this.budget.bytesOf(this.pendingHandle[slot]);
    return bytes;
  }

  /**
   * True when texture `id` has nothing left to stream: no load in flight, and it is renderable (or
   * failed) with no finer level wanted past the grow margin.
   */
  isSettled(id: number): boolean {
    const slot = this.registry.slotOf(id);
    if (this.loadingMip[slot] !== NONE) return false;
    if (this.failed[slot] === 1) return true;
    return this.pinnedReady[slot] === 1 && this.growTarget(slot) >= this.residentMip[slot];
  }

  /** True when the load of `id`'s chain failed (it keeps its placeholder or previous chain). */
  hasFailed(id: number): boolean {
    return this.failed[this.registry.slotOf(id)] === 1;
  }

  /** Bytes of the pinned chain of texture `id`, for computing a budget's pinned minimum. */
  pinnedBytesOf(id: number): number {
    const slot = this.registry.slotOf(id);
    return this.chainBytes[slot * MAX_LEVELS + this.pinnedMip[slot]];
  }

  /**
   * Per-frame step: drop sustained surplus mips, then start the most important loads while there is
   * room (making room from less important textures when needed).
   */
  update(frame: number): void {
    let drops = 0;
    while (drops < this.maxDropsPerFrame && this.dropHeap.size > 0 && this.dropHeap.peekKey() < 0) {
      const slot = this.dropHeap.pop();
      const target = Math.min(Math.floor(this.wanted[slot]), this.pinnedMip[slot]);
      this.switchChain(slot, target, frame, true);
      drops++;
    }
    while (this.inFlight < this.maxLoadsInFlight && this.loadHeap.size > 0) {
      const slot = this.loadHeap.peek();
      const priority = -this.loadHeap.peekKey();
      const target = this.pinnedReady[slot] === 0 ? this.pinnedMip[slot] : this.growTarget(slot);
      if (this.pinnedReady[slot] === 1 && target >= this.residentMip[slot]) {
        this.loadHeap.pop();
        continue;
      }
      const bytes = this.chainBytes[slot * MAX_LEVELS + target];
      while (bytes > this.budget.freeBytes && drops < this.maxDropsPerFrame && this.dropHeap.size > 0) {
        if (this.dropHeap.peek() === slot || this.dropHeap.peekKey() >= priority) break;
        this.dropOneLevel(this.dropHeap.pop(), frame);
        drops++;
      }
      if (!this.switchChain(slot, target, frame, false)) break;
    }
  }

  /**
   * The binding reports the outcome of `StreamingBackend.allocate(textureId, firstMip, ...)`.
   * Reports for evicted textures or superseded loads are ignored.
   */
  completeLoad(textureId: number, firstMip: number, error?: unknown): void {
    if (!this.registry.has(textureId)) return;
    const slot = this.registry.slotOf(textureId);
    if (this.managed[slot] === 0 || this.loadingMip[slot] !== firstMip) return;
    this.loadingMip[slot] = NONE;
    this.inFlight--;
    const pending = this.pendingHandle[slot];
    this.pendingHandle[slot] = NONE;
    const full = this.fullMips[slot];
    if (error !== undefined) {
      this.budget.release(pending);
      this.failed[slot] = 1;
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
    if (this.pinnedReady[slot] === 0) {
      this.pinnedReady[slot] = 1;
      this.pinnedHandle[slot] = pending;
    } else {
      if (this.streamHandle[slot] !== NONE) {
        const old = this.residentMip[slot];
        this.backend.free(textureId, old, full - old);
        this.budget.release(this.streamHandle[slot]);
      }
      this.streamHandle[slot] = firstMip < this.pinnedMip[slot] ? pending : NONE;
      this.residentMip[slot] = firstMip;
    }
    this.coarserSince[slot] = NONE;
    this.surplus[slot] = 0;
    this.rekey(slot);
  }

  /** Free streamed chains, least important first, until `bytes` are freed (budget shedder). */
  private shed(bytes: number): void {
    let freed = 0;
    while (freed < bytes && this.dropHeap.size > 0) {
      const slot = this.dropHeap.pop();
      freed += this.budget.bytesOf(this.streamHandle[slot]);
      this.freeStream(slot);
    }
  }

  /** One level coarser when the smaller chain fits beside the old one, else down to the pinned chain. */
  private dropOneLevel(slot: number, frame: number): void {
    const target = this.residentMip[slot] + 1;
    const bytes = this.chainBytes[slot * MAX_LEVELS + target];
    if (target >= this.pinnedMip[slot] || bytes > this.budget.freeBytes) this.freeStream(slot);
    else this.switchChain(slot, target, frame, true);
  }

  /** Start replacing the streamed chain of `slot` by `target ..`; false when the budget refused. */
  private switchChain(slot: number, target: number, _frame: number, dropping: boolean): boolean {
    if (this.pinnedReady[slot] === 1 && target >= this.pinnedMip[slot]) {
      this.freeStream(slot);
      return true;
    }
    const tag = this.registry.tagAt(slot);
    const priority = this.pinnedReady[slot] === 0 ? BudgetPriority.pinned : BudgetPriority.streamedMips;
    const handle = this.budget.tryReserve(
      'streamed',
      this.chainBytes[slot * MAX_LEVELS + target],
      tag,
      priority,
    );
    if (handle === NO_RESERVATION) {
      if (dropping) this.freeStream(slot);
      return false;
    }
    this.loadHeap.delete(slot);
    this.dropHeap.delete(slot);
    this.pendingHandle[slot] = handle;
    this.loadingMip[slot] = target;
    this.inFlight++;
    const full = this.fullMips[slot];
    this.backend.allocate(this.registry.idAt(slot), target, full - target);
    return true;
  }

  /** Drop the streamed chain of `slot` at once: the pinned chain renders, nothing new is allocated. */
  private freeStream(slot: number): void {
    this.dropHeap.delete(slot);
    if (this.streamHandle[slot] === NONE) return;
    const old = this.residentMip[slot];
    this.backend.free(this.registry.idAt(slot), old, this.fullMips[slot] - old);
    this.budget.release(this.streamHandle[slot]);
    this.streamHandle[slot] = NONE;
    this.residentMip[slot] = this.pinnedMip[slot];
    this.coarserSince[slot] = NONE;
    this.surplus[slot] = 0;
    this.rekey(slot);
  }

  /** The level to grow to, or the resident level when the need does not pass the grow margin. */
  private growTarget(slot: number): number {
    const resident = this.residentMip[slot];
    const wanted = this.wanted[slot];
    if (!(wanted <= resident - this.growMargin)) return resident;
    return Math.max(0, Math.floor(wanted));
  }

  private importance(slot: number): number {
    return this.weightOfTag(this.registry.tagAt(slot)) * this.bias[slot] * this.benefit[slot];
  }

  /** Re-place `slot` in the load and drop heaps after its need or residency changed. */
  private rekey(slot: number): void {
    if (this.loadingMip[slot] !== NONE || this.failed[slot] === 1) {
      this.loadHeap.delete(slot);
      this.dropHeap.delete(slot);
      return;
    }
    if (this.pinnedReady[slot] === 0) return;
    const importance = this.importance(slot);
    const resident = this.residentMip[slot];
    const target = this.growTarget(slot);
    if (target < resident) this.loadHeap.set(slot, -importance * (resident - this.wanted[slot]) - 1e-9);
    else this.loadHeap.delete(slot);
    if (this.streamHandle[slot] === NONE) this.dropHeap.delete(slot);
    else if (this.surplus[slot] === 1)
      this.dropHeap.set(slot, -1 - (Math.floor(this.wanted[slot]) - resident));
    else this.dropHeap.set(slot, importance);
  }

  private forget(id: number, slot: number): void {
    if (slot >= this.managed.length || this.managed[slot] === 0) return;
    this.managed[slot] = 0;
    this.loadHeap.delete(slot);
    this.dropHeap.delete(slot);
    if (this.loadingMip[slot] !== NONE) this.inFlight--;
    this.loadingMip[slot] = NONE;
    this.backend.release(id);
    if (this.pinnedHandle[slot] !== NONE) this.budget.release(this.pinnedHandle[slot]);
    if (this.streamHandle[slot] !== NONE) this.budget.release(this.streamHandle[slot]);
    if (this.pendingHandle[slot] !== NONE) this.budget.release(this.pendingHandle[slot]);
    this.pinnedHandle[slot] = NONE;
    this.streamHandle[slot] = NONE;
    this.pendingHandle[slot] = NONE;
  }

  private weightOfTag(tag: number): number {
    if (tag >= this.tagWeight.length) {
      const weights = new Float32Array(Math.max(tag + 1, this.tagWeight.length * 2)).fill(Number.NaN);
      weights.set(this.tagWeight);
      this.tagWeight = weights;
    }
    let weight = this.tagWeight[tag];
    if (Number.isNaN(weight)) {
      const name = this.registry.tags.name(tag);
      weight =
        this.tagWeightOverrides[name] ??
        (name === 'persistent' ? 2 : name === 'transient' ? 0.5 : name.startsWith('scene:') ? 1 : 1);
      this.tagWeight[tag] = weight;
    }
    return weight;
  }

  private ensureSlot(slot: number): void {
    if (slot < this.managed.length) return;
    const size = Math.max(slot + 1, this.managed.length * 2);
    this.managed = grow(this.managed, size, 0);
    this.fullMips = grow(this.fullMips, size, 0);
    this.pinnedMip = grow(this.pinnedMip, size, 0);
    this.residentMip = grow(this.residentMip, size, 0);
    this.pinnedReady = grow(this.pinnedReady, size, 0);
    this.failed = grow(this.failed, size, 0);
    this.loadingMip = grow(this.loadingMip, size, NONE);
    this.wanted = grow(this.wanted, size, 0);
    this.benefit = grow(this.benefit, size, 0);
    this.bias = grow(this.bias, size, 0);
    this.texelsPerWorld = grow(this.texelsPerWorld, size, 0);
    this.coarserSince = grow(this.coarserSince, size, NONE);
    this.surplus = grow(this.surplus, size, 0);
    this.pinnedHandle = grow(this.pinnedHandle, size, NONE);
    this.streamHandle = grow(this.streamHandle, size, NONE);
    this.pendingHandle = grow(this.pendingHandle, size, NONE);
    this.chainBytes = grow(this.chainBytes, size * MAX_LEVELS, 0);
  }
}

function positiveInteger(value: number, what: string): number {
  if (!Number.isInteger(value) || value < 1) {
    throw new TesseraConfigError('invalid-option', `${what} must be an integer >= 1, got ${value}.`);
  }
  return value;
}

function grow<T extends Uint8Array | Int8Array | Int32Array | Float32Array | Float64Array>(
  array: T,
  size: number,
  fill: number,
): T {
  const next = new (array.constructor as new (length: number) => T)(size);
  next.fill(fill);
  next.set(array);
  return next;
}
