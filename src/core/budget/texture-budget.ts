import { TesseraConfigError, TesseraError } from '../errors';
import { BUDGET_CATEGORIES, type BudgetCategory, budgetCategoryIndex } from './budget-category';
import { BudgetPriority } from './budget-priority';
import { NO_TAG, TagRegistry } from './tag-registry';

/** Returned by {@link TextureBudget.tryReserve} when no room could be made. */
export const NO_RESERVATION = -1;

/** Something that can give memory back on request (a mip streamer, a cache). */
export interface BudgetShedder {
  /** Priority of the data this shedder frees: it is only asked by requests of strictly higher priority. */
  readonly priority: number;
  /**
   * Release about `bytes` bytes of reservations now (by calling {@link TextureBudget.release} or
   * `resize`), least important data first. Freeing less is allowed; the budget re-reads its total.
   */
  shed(bytes: number): void;
}

/** Options of a {@link TextureBudget}. */
export interface TextureBudgetOptions {
  /** The budget in bytes covering every category. */
  budgetBytes: number;
  /** Bytes that must always fit (pinned mips, VT structures); a smaller budget is refused. Default 0. */
  pinnedMinimumBytes?: number;
  /** Bytes shed per frame at least while a lowered budget is being reached. Default budget / 16. */
  shedBytesPerFrame?: number;
  /** A lowered budget is reached within this many {@link TextureBudget.update} frames. Default 8. */
  maxShedFrames?: number;
  /** Shared tag interning (so textures and reservations use the same tag ids). */
  tags?: TagRegistry;
}

/** A snapshot of budget use, all figures in bytes. */
export interface TextureBudgetStats {
  budgetBytes: number;
  /** Bytes currently reserved. */
  liveBytes: number;
  /** Highest `liveBytes` seen since construction or {@link TextureBudget.resetPeak}. */
  peakBytes: number;
  /** Bytes of reservations made with pinned priority (never shed). */
  pinnedBytes: number;
  /** Requests waiting in {@link TextureBudget.reserveWhenRoom}'s queue and their bytes. */
  pendingRequests: number;
  pendingBytes: number;
  /** Bytes above the budget while a lowered budget is still being shed down to (else 0). */
  overBudgetBytes: number;
  byCategory: Record<BudgetCategory, number>;
  /** Bytes per tag name; untagged reservations are under ''. Tags with 0 bytes are omitted. */
  byTag: Record<string, number>;
}

interface PendingRequest {
  category: number;
  bytes: number;
  tag: number;
  priority: number;
  resolve: (handle: number) => void;
  reject: (error: TesseraError) => void;
}

/** Handles are `generation * SLOT_LIMIT + slot`, so a stale handle is told apart from a live one. */
const SLOT_LIMIT = 1 << 22;

/**
 * One byte budget for all GPU memory Tessera owns. Reservations are integer handles carrying a
 * category and a tag. Nothing is admitted past the budget: a request that does not fit first asks
 * registered shedders of lower priority to free memory, then either fails ({@link tryReserve},
 * {@link reserve}) or waits in a FIFO queue ({@link reserveWhenRoom}). Resizes count old and new
 * at once. Lowering the budget sheds progressively, reaching the new figure within
 * `maxShedFrames` calls of {@link update}.
 */
export class TextureBudget {
  /** Tag interning shared with the users of this budget. */
  readonly tags: TagRegistry;
  private budget: number;
  private readonly pinnedMinimum: number;
  private readonly shedPerFrameMin: number;
  private readonly maxShedFrames: number;
  private capBytes = Number.POSITIVE_INFINITY;
  private live = 0;
  private peak = 0;
  private pinned = 0;
  /** Where the progressive shed schedule stands this frame (>= budget while a cut is in progress). */
  private shedCeiling: number;
  private shedStep = 0;

  private slotCategory = new Uint8Array(64);
  private slotTag = new Int32Array(64);
  private slotBytes = new Float64Array(64);
  private slotGeneration = new Uint32Array(64);
  private slotLive = new Uint8Array(64);
  private slotPinned = new Uint8Array(64);
  private freeSlots = new Int32Array(64);
  private freeCount = 0;
  private slotHighWater = 0;

  private readonly categoryBytes = new Float64Array(BUDGET_CATEGORIES.length);
  private tagBytes = new Float64Array(16);
  private readonly shedders: BudgetShedder[] = [];
  private readonly queue: PendingRequest[] = [];
  private queueHead = 0;
  private shedding = false;
  private draining = false;

  /** @throws TesseraConfigError('invalid-size' | 'budget-too-small' | 'invalid-option') */
  constructor(options: TextureBudgetOptions) {
    checkBytes(options.budgetBytes, 'budgetBytes');
    this.pinnedMinimum = options.pinnedMinimumBytes ?? 0;
    checkBytes(this.pinnedMinimum, 'pinnedMinimumBytes');
    if (options.budgetBytes < this.pinnedMinimum) {
      throw new TesseraConfigError(
        'budget-too-small',
        `Budget of ${options.budgetBytes} bytes is below the pinned minimum of ${this.pinnedMinimum} bytes.`,
      );
    }
    this.budget = options.budgetBytes;
    this.shedCeiling = this.budget;
    this.shedPerFrameMin = options.shedBytesPerFrame ?? Math.ceil(this.budget / 16);
    checkBytes(this.shedPerFrameMin, 'shedBytesPerFrame');
    this.maxShedFrames = options.maxShedFrames ?? 8;
    if (!Number.isInteger(this.maxShedFrames) || this.maxShedFrames < 1) {
      throw new TesseraConfigError('invalid-option', `maxShedFrames must be an integer >= 1.`);
    }
    this.tags = options.tags ?? new TagRegistry();
  }

  /** The budget in bytes. */
  get budgetBytes(): number {
    return this.budget;
  }

  /** Bytes currently reserved (including transients of resizes in progress). */
  get liveBytes(): number {
    return this.live;
  }

  /** Highest {@link liveBytes} since construction or {@link resetPeak}. */
  get peakBytes(): number {
    return this.peak;
  }

  /** Bytes a new request may still take: min(budget, cap) - live, never negative. */
  get freeBytes(): number {
    return Math.max(0, this.admissionLimit() - this.live);
  }

  /** Bytes reserved with pinned priority. */
  get pinnedBytes(): number {
    return this.pinned;
  }

  /** Restart peak tracking from the current live figure. */
  resetPeak(): void {
    this.peak = this.live;
  }

  /**
   * A temporary admission cap below the budget (bytes), e.g. a scene transition's peak rule;
   * `Infinity` removes it. Existing reservations are kept; only new ones are limited.
   */
  setCap(bytes: number): void {
    this.capBytes = bytes;
    this.drain();
  }

  /** Register a shedder; shedders are asked lowest priority first. */
  addShedder(shedder: BudgetShedder): void {
    let at = this.shedders.length;
    while (at > 0 && this.shedders[at - 1].priority > shedder.priority) at--;
    this.shedders.splice(at, 0, shedder);
  }

  /** Unregister a shedder added with {@link addShedder}. */
  removeShedder(shedder: BudgetShedder): void {
    const at = this.shedders.indexOf(shedder);
    if (at >= 0) this.shedders.splice(at, 1);
  }

  /**
   * Reserve `bytes` now, shedding lower-priority data if needed.
   * @returns a handle, or {@link NO_RESERVATION} when room could not be made (or requests are queued
   *   ahead with at least this priority).
   */
  tryReserve(
    category: BudgetCategory,
    bytes: number,
    tag = NO_TAG,
    priority: number = BudgetPriority.normal,
  ): number {
    const categoryIndex = budgetCategoryIndex(category);
    if (categoryIndex < 0)
      throw new TesseraConfigError('invalid-option', `Unknown budget category '${category}'.`);
    checkBytes(bytes, 'bytes');
    if (this.queueHead < this.queue.length && this.queue[this.queueHead].priority >= priority) {
      return NO_RESERVATION;
    }
    if (!this.makeRoom(bytes, priority)) return NO_RESERVATION;
    return this.admit(categoryIndex, bytes, tag, priority >= BudgetPriority.pinned);
  }

  /**
   * Like {@link tryReserve} but refusal is an error.
   * @throws TesseraError('over-budget') when room could not be made.
   */
  reserve(
    category: BudgetCategory,
    bytes: number,
    tag = NO_TAG,
    priority: number = BudgetPriority.normal,
  ): number {
    const handle = this.tryReserve(category, bytes, tag, priority);
    if (handle === NO_RESERVATION) {
      throw new TesseraError(
        'over-budget',
        `Cannot reserve ${bytes} bytes of '${category}': ${this.live} of ${this.admissionLimit()} bytes in use.`,
      );
    }
    return handle;
  }

  /**
   * Reserve `bytes`, waiting in a FIFO queue until room appears (a release, a shed, a raised budget).
   * Rejects with TesseraError('over-budget') at once when `bytes` exceeds the whole budget, or later
   * if the budget is lowered below it; with 'aborted' when `signal` aborts.
   */
  reserveWhenRoom(
    category: BudgetCategory,
    bytes: number,
    tag = NO_TAG,
    priority: number = BudgetPriority.normal,
    signal?: AbortSignal,
  ): Promise<number> {
    const handle = this.tryReserve(category, bytes, tag, priority);
    if (handle !== NO_RESERVATION) return Promise.resolve(handle);
    if (bytes > this.budget) {
      return Promise.reject(
        new TesseraError('over-budget', `${bytes} bytes can never fit a ${this.budget}-byte budget.`),
      );
    }
    return new Promise<number>((resolve, reject) => {
      const request: PendingRequest = {
        category: budgetCategoryIndex(category),
        bytes,
        tag,
        priority,
        resolve,
        reject,
      };
      this.queue.push(request);
      signal?.addEventListener(
        'abort',
        () => {
          const at = this.queue.indexOf(request, this.queueHead);
          if (at < 0) return;
          this.queue.splice(at, 1);
          reject(new TesseraError('aborted', 'Budget request aborted.'));
          this.drain();
        },
        { once: true },
      );
    });
  }

  /**
   * Replace reservation `handle` by one of `bytes` with the same category and tag. Both count while
   * the new one is admitted (a GPU resize holds old and new textures at once).
   * @returns the new handle, or {@link NO_RESERVATION} (the old one is then kept).
   */
  resize(handle: number, bytes: number, priority: number = BudgetPriority.normal): number {
    const slot = this.liveSlot(handle);
    const replacement = this.tryReserve(
      BUDGET_CATEGORIES[this.slotCategory[slot]],
      bytes,
      this.slotTag[slot],
      this.slotPinned[slot] === 1 ? BudgetPriority.pinned : priority,
    );
    if (replacement === NO_RESERVATION) return NO_RESERVATION;
    this.release(handle);
    return replacement;
  }

  /** Bytes of live reservation `handle`. @throws like {@link release}. */
  bytesOf(handle: number): number {
    return this.slotBytes[this.liveSlot(handle)];
  }

  /**
   * Give reservation `handle` back.
   * @throws TesseraError('released-twice') for a handle already released, ('unknown-handle') for one
   *   this budget never issued.
   */
  release(handle: number): void {
    const slot = this.liveSlot(handle);
    const bytes = this.slotBytes[slot];
    this.live -= bytes;
    this.categoryBytes[this.slotCategory[slot]] -= bytes;
    this.tagBytes[this.slotTag[slot]] -= bytes;
    if (this.slotPinned[slot] === 1) this.pinned -= bytes;
    this.slotLive[slot] = 0;
    this.slotGeneration[slot]++;
    this.freeSlots[this.freeCount++] = slot;
    this.drain();
  }

  /**
   * Change the budget at run time. Raising it admits queued requests. Lowering it below the live
   * figure starts a progressive shed: each {@link update} lowers the shed ceiling by at least
   * `shedBytesPerFrame` (more if needed to finish within `maxShedFrames`) and asks every shedder for
   * the excess. New requests are admitted against the new figure at once.
   * @throws TesseraConfigError('budget-too-small') below the pinned minimum or the pinned live bytes.
   */
  setBudget(bytes: number): void {
    checkBytes(bytes, 'budgetBytes');
    if (bytes < this.pinnedMinimum || bytes < this.pinned) {
      throw new TesseraConfigError(
        'budget-too-small',
        `Budget of ${bytes} bytes is below the pinned minimum (${Math.max(this.pinnedMinimum, this.pinned)} bytes).`,
      );
    }
    this.budget = bytes;
    if (this.live > bytes) {
      this.shedCeiling = this.live;
      this.shedStep = Math.max(this.shedPerFrameMin, Math.ceil((this.live - bytes) / this.maxShedFrames));
    } else {
      this.shedCeiling = bytes;
    }
    for (let i = this.queue.length - 1; i >= this.queueHead; i--) {
      const request = this.queue[i];
      if (request.bytes <= bytes) continue;
      this.queue.splice(i, 1);
      request.reject(
        new TesseraError('over-budget', `${request.bytes} bytes can never fit a ${bytes}-byte budget.`),
      );
    }
    this.drain();
  }

  /**
   * Per-frame step: advance a budget cut's shed schedule and try to make room for the head of the
   * waiting queue. Allocation-free when nothing is pending.
   */
  update(): void {
    if (this.shedCeiling > this.budget) {
      this.shedCeiling = Math.max(this.budget, this.shedCeiling - this.shedStep);
      if (this.live > this.shedCeiling)
        this.askShedders(this.live - this.shedCeiling, Number.POSITIVE_INFINITY);
    }
    if (this.queueHead < this.queue.length) {
      const head = this.queue[this.queueHead];
      this.makeRoom(head.bytes, head.priority);
      this.drain();
    }
  }

  /** A snapshot of use by category and by tag (allocates; for tools and tests, not per frame). */
  stats(): TextureBudgetStats {
    const byCategory = {} as Record<BudgetCategory, number>;
    for (let i = 0; i < BUDGET_CATEGORIES.length; i++)
      byCategory[BUDGET_CATEGORIES[i]] = this.categoryBytes[i];
    const byTag: Record<string, number> = {};
    for (let i = 0; i < this.tagBytes.length; i++) {
      if (this.tagBytes[i] !== 0) byTag[this.tags.name(i)] = this.tagBytes[i];
    }
    let pendingBytes = 0;
    for (let i = this.queueHead; i < this.queue.length; i++) pendingBytes += this.queue[i].bytes;
    return {
      budgetBytes: this.budget,
      liveBytes: this.live,
      peakBytes: this.peak,
      pinnedBytes: this.pinned,
      pendingRequests: this.queue.length - this.queueHead,
      pendingBytes,
      overBudgetBytes: Math.max(0, this.live - this.budget),
      byCategory,
      byTag,
    };
  }

  private admissionLimit(): number {
    return Math.min(this.budget, this.capBytes);
  }

  /** True when `bytes` fits now, after asking lower-priority shedders if it did not. */
  private makeRoom(bytes: number, priority: number): boolean {
    const limit = this.admissionLimit();
    if (bytes > limit) return false;
    if (this.live + bytes <= limit) return true;
    this.askShedders(this.live + bytes - limit, priority);
    return this.live + bytes <= this.admissionLimit();
  }

  private askShedders(bytes: number, belowPriority: number): void {
    if (this.shedding) return;
    this.shedding = true;
    try {
      const target = this.live - bytes;
      for (let i = 0; i < this.shedders.length && this.live > target; i++) {
        const shedder = this.shedders[i];
        if (shedder.priority >= belowPriority) break;
        shedder.shed(this.live - target);
      }
    } finally {
      this.shedding = false;
    }
  }

  private admit(category: number, bytes: number, tag: number, pinned: boolean): number {
    const slot = this.freeCount > 0 ? this.freeSlots[--this.freeCount] : this.newSlot();
    this.slotCategory[slot] = category;
    this.slotTag[slot] = tag;
    this.slotBytes[slot] = bytes;
    this.slotLive[slot] = 1;
    this.slotPinned[slot] = pinned ? 1 : 0;
    if (tag >= this.tagBytes.length) this.tagBytes = grow(this.tagBytes, tag + 1);
    this.live += bytes;
    this.categoryBytes[category] += bytes;
    this.tagBytes[tag] += bytes;
    if (pinned) this.pinned += bytes;
    if (this.live > this.peak) this.peak = this.live;
    return this.slotGeneration[slot] * SLOT_LIMIT + slot;
  }

  private newSlot(): number {
    const slot = this.slotHighWater++;
    if (slot >= SLOT_LIMIT) throw new TesseraError('over-budget', 'Too many live budget reservations.');
    if (slot >= this.slotBytes.length) {
      const size = this.slotBytes.length * 2;
      this.slotCategory = grow(this.slotCategory, size);
      this.slotTag = grow(this.slotTag, size);
      this.slotBytes = grow(this.slotBytes, size);
      this.slotGeneration = grow(this.slotGeneration, size);
      this.slotLive = grow(this.slotLive, size);
      this.slotPinned = grow(this.slotPinned, size);
      this.freeSlots = grow(this.freeSlots, size);
    }
    this.slotGeneration[slot] = 1;
    return slot;
  }

  private liveSlot(handle: number): number {
    const slot = Number.isInteger(handle) && handle >= 0 ? handle % SLOT_LIMIT : -1;
    const generation = Math.floor(handle / SLOT_LIMIT);
    if (slot < 0 || slot >= this.slotHighWater || generation < 1 || generation > this.slotGeneration[slot]) {
      throw new TesseraError('unknown-handle', `Budget handle ${handle} was never issued by this budget.`);
    }
    if (generation < this.slotGeneration[slot] || this.slotLive[slot] === 0) {
      throw new TesseraError('released-twice', `Budget handle ${handle} was already released.`);
    }
    return slot;
  }

  private drain(): void {
    if (this.draining) return;
    this.draining = true;
    try {
      while (this.queueHead < this.queue.length) {
        const head = this.queue[this.queueHead];
        if (this.live + head.bytes > this.admissionLimit()) break;
        this.queueHead++;
        head.resolve(this.admit(head.category, head.bytes, head.tag, head.priority >= BudgetPriority.pinned));
      }
      if (this.queueHead === this.queue.length && this.queueHead > 0) {
        this.queue.length = 0;
        this.queueHead = 0;
      }
    } finally {
      this.draining = false;
    }
  }
}

function checkBytes(value: number, what: string): void {
  if (!Number.isFinite(value) || value < 0 || !Number.isInteger(value)) {
    throw new TesseraConfigError(
      'invalid-size',
      `${what} must be a non-negative integer of bytes, got ${value}.`,
    );
  }
}

function grow<T extends Uint8Array | Int32Array | Uint32Array | Float64Array>(array: T, size: number): T {
  const next = new (array.constructor as new (length: number) => T)(Math.max(size, array.length * 2));
  next.set(array);
  return next;
}
