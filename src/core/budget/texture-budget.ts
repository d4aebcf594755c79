import { TesseraConfigError, TesseraError } from '../errors';
import { grownTypedArray } from '../structures/typed-array-growth';
import { BUDGET_CATEGORIES, type BudgetCategory, budgetCategoryIndex } from './budget-category';
import { BudgetPriority } from './budget-priority';
import { BudgetRequestQueue, type PendingBudgetRequest } from './budget-request-queue';
import { ReservationTable } from './reservation-table';
import { ShedderList } from './shedder-list';
import { NO_TAG, TagRegistry } from './tag-registry';
import type { BudgetShedder, TextureBudgetOptions, TextureBudgetStats } from './texture-budget-options';

/** Returned by {@link TextureBudget.tryReserve} when no room could be made. */
export const NO_RESERVATION = -1;

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

  private readonly reservations = new ReservationTable();
  private readonly categoryBytes = new Float64Array(BUDGET_CATEGORIES.length);
  private tagBytes = new Float64Array(16);
  private readonly shedders = new ShedderList();
  private readonly queue = new BudgetRequestQueue();
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
    this.shedders.add(shedder);
  }

  /** Unregister a shedder added with {@link addShedder}. */
  removeShedder(shedder: BudgetShedder): void {
    this.shedders.remove(shedder);
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
    if (categoryIndex < 0) {
      throw new TesseraConfigError('invalid-option', `Unknown budget category '${category}'.`);
    }
    checkBytes(bytes, 'bytes');
    const waiting = this.queue.peek();
    if (waiting !== undefined && waiting.priority >= priority) return NO_RESERVATION;
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
      const request: PendingBudgetRequest = {
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
          if (!this.queue.remove(request)) return;
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
    const table = this.reservations;
    const slot = table.slotOf(handle);
    const replacement = this.tryReserve(
      BUDGET_CATEGORIES[table.categoryAt(slot)],
      bytes,
      table.tagAt(slot),
      table.isPinnedAt(slot) ? BudgetPriority.pinned : priority,
    );
    if (replacement === NO_RESERVATION) return NO_RESERVATION;
    this.release(handle);
    return replacement;
  }

  /**
   * Lowers reservation `handle` to `bytes` in place (same handle), for a GPU resource destroyed and
   * recreated smaller: no old-plus-new transient. Freed bytes go to queued requests.
   * @throws TesseraConfigError('invalid-size') unless `bytes` is an integer in 0..current bytes;
   *   like {@link release} for a bad handle.
   */
  shrink(handle: number, bytes: number): void {
    const table = this.reservations;
    const slot = table.slotOf(handle);
    const current = table.bytesAt(slot);
    checkBytes(bytes, 'bytes');
    if (bytes > current) throw new TesseraConfigError('invalid-size', `shrink: ${bytes} > ${current} bytes.`);
    table.setBytesAt(slot, bytes);
    this.account(slot, bytes - current);
    if (bytes < current) this.drain();
  }

  /**
   * Raises reservation `handle` to `bytes` in place when room can be made (shedding data below
   * `priority`), for a GPU resource freed and recreated larger; false (nothing changed) otherwise.
   * @throws TesseraConfigError('invalid-size') unless `bytes` is an integer >= current bytes.
   */
  tryGrow(handle: number, bytes: number, priority: number = BudgetPriority.normal): boolean {
    const table = this.reservations;
    const slot = table.slotOf(handle);
    const current = table.bytesAt(slot);
    checkBytes(bytes, 'bytes');
    if (bytes < current) throw new TesseraConfigError('invalid-size', `grow: ${bytes} < ${current} bytes.`);
    const extra = bytes - current;
    const waiting = this.queue.peek();
    if (extra > 0 && waiting !== undefined && waiting.priority >= priority) return false;
    if (!this.makeRoom(extra, priority)) return false;
    table.setBytesAt(slot, bytes);
    this.account(slot, extra);
    if (this.live > this.peak) this.peak = this.live;
    return true;
  }

  /** Bytes of live reservation `handle`. @throws like {@link release}. */
  bytesOf(handle: number): number {
    return this.reservations.bytesAt(this.reservations.slotOf(handle));
  }

  /**
   * Give reservation `handle` back.
   * @throws TesseraError('released-twice') for a handle already released, ('unknown-handle') for one
   *   this budget never issued.
   */
  release(handle: number): void {
    const table = this.reservations;
    const slot = table.slotOf(handle);
    this.account(slot, -table.bytesAt(slot));
    table.remove(slot);
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
    this.queue.removeLargerThan(bytes, (request) =>
      request.reject(
        new TesseraError('over-budget', `${request.bytes} bytes can never fit a ${bytes}-byte budget.`),
      ),
    );
    this.drain();
  }

  /**
   * Per-frame step: advance a budget cut's shed schedule and try to make room for the head of the
   * waiting queue. Allocation-free when nothing is pending.
   */
  update(): void {
    if (this.shedCeiling > this.budget) {
      this.shedCeiling = Math.max(this.budget, this.shedCeiling - this.shedStep);
      if (this.live > this.shedCeiling) {
        this.shedders.ask(this, this.live - this.shedCeiling, Number.POSITIVE_INFINITY);
      }
    }
    const head = this.queue.peek();
    if (head !== undefined) {
      this.makeRoom(head.bytes, head.priority);
      this.drain();
    }
  }

  /** A snapshot of use by category and by tag (allocates; for tools and tests, not per frame). */
  stats(): TextureBudgetStats {
    const byCategory = {} as Record<BudgetCategory, number>;
    for (let i = 0; i < BUDGET_CATEGORIES.length; i++) {
      byCategory[BUDGET_CATEGORIES[i]] = this.categoryBytes[i];
    }
    const byTag: Record<string, number> = {};
    for (let i = 0; i < this.tagBytes.length; i++) {
      if (this.tagBytes[i] !== 0) byTag[this.tags.name(i)] = this.tagBytes[i];
    }
    return {
      budgetBytes: this.budget,
      liveBytes: this.live,
      peakBytes: this.peak,
      pinnedBytes: this.pinned,
      pendingRequests: this.queue.size,
      pendingBytes: this.queue.pendingBytes(),
      overBudgetBytes: Math.max(0, this.live - this.budget),
      byCategory,
      byTag,
    };
  }

  /** Adds `delta` bytes of row `slot` to the live, category, tag and pinned figures. */
  private account(slot: number, delta: number): void {
    const table = this.reservations;
    this.live += delta;
    this.categoryBytes[table.categoryAt(slot)] += delta;
    this.tagBytes[table.tagAt(slot)] += delta;
    if (table.isPinnedAt(slot)) this.pinned += delta;
  }

  private admissionLimit(): number {
    return Math.min(this.budget, this.capBytes);
  }

  /** True when `bytes` fits now, after asking lower-priority shedders if it did not. */
  private makeRoom(bytes: number, priority: number): boolean {
    const limit = this.admissionLimit();
    if (bytes > limit) return false;
    if (this.live + bytes <= limit) return true;
    this.shedders.ask(this, this.live + bytes - limit, priority);
    return this.live + bytes <= this.admissionLimit();
  }

  private admit(category: number, bytes: number, tag: number, pinned: boolean): number {
    const handle = this.reservations.add(category, tag, bytes, pinned);
    if (tag >= this.tagBytes.length) {
      this.tagBytes = grownTypedArray(this.tagBytes, Math.max(tag + 1, this.tagBytes.length * 2));
    }
    this.live += bytes;
    this.categoryBytes[category] += bytes;
    this.tagBytes[tag] += bytes;
    if (pinned) this.pinned += bytes;
    if (this.live > this.peak) this.peak = this.live;
    return handle;
  }

  private drain(): void {
    if (this.draining) return;
    this.draining = true;
    try {
      for (let head = this.queue.peek(); head !== undefined; head = this.queue.peek()) {
        if (this.live + head.bytes > this.admissionLimit()) break;
        this.queue.shift();
        head.resolve(this.admit(head.category, head.bytes, head.tag, head.priority >= BudgetPriority.pinned));
      }
      this.queue.compact();
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
