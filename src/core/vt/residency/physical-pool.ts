import { TesseraConfigError } from '../../errors';
import { IntrusiveList } from '../../structures/intrusive-list';
import { PageIndexMap } from '../../structures/page-index-map';
import { NO_REQUEST } from '../page-id';
import { MAX_SLOTS } from '../page-table/page-table-entry';
import { createReplacementPolicy } from './create-replacement-policy';
import { RecentUseCounter } from './recent-use-counter';
import type {
  ReplacementPolicy,
  ReplacementPolicyFactory,
  ReplacementPolicyName,
} from './replacement-policy';

const STATE_FREE = 0;
const STATE_ACTIVE = 1;
const STATE_IDLE = 2;
const STATE_PINNED = 3;
const STATE_LOCKED = 4;

/**
 * Fixed set of physical tile slots shared by several virtual textures and by every layer of each:
 * the slot table. Each slot is free, active (used in the current frame), idle (resident, not used
 * in the current frame: an eviction candidate), pinned or locked (upload in flight).
 *
 * Never evicted: pages used in the current frame, pinned pages, locked pages. The pool enforces
 * this; which idle page goes is the choice of its {@link ReplacementPolicy} (option
 * `replacementPolicy`: default `lhd`, or `lru`, or any {@link ReplacementPolicyFactory}). Active
 * slots sit in a list in last-use order, so marking the pages left behind by a frame idle costs
 * O(1) per page, amortised, not a sweep over every active page on each allocation.
 */
export class PhysicalPool {
  /** Number of slots. */
  readonly slotCount: number;
  /** Page id held by each slot, {@link NO_REQUEST} when free. */
  readonly slotPages: Uint32Array;
  /** Frame each slot's page was last used. */
  readonly slotLastUse: Int32Array;
  /** Frame each slot's page was loaded. */
  readonly slotLoadFrame: Int32Array;
  /** Frames in which each slot's page was used since it was loaded. */
  readonly slotUseFrames: Int32Array;
  /** The replacement policy choosing victims among idle slots. */
  readonly policy: ReplacementPolicy;
  /** Pages evicted so far. */
  evictionCount = 0;
  /** Slots handed out by {@link allocate} so far. */
  allocationCount = 0;
  /** Page evicted by the latest {@link allocate}, or {@link NO_REQUEST} when it took a free slot. */
  lastEvictedPage = NO_REQUEST;

  private readonly state: Uint8Array;
  private readonly lockCount: Uint16Array;
  private readonly pageToSlot: PageIndexMap;
  private readonly free: IntrusiveList;
  /** Active slots, oldest last use first. */
  private readonly active: IntrusiveList;
  /** Last uses of unpinned resident pages. */
  private readonly recentUse = new RecentUseCounter();
  /** Last uses of pinned pages, counted apart: the working set leaves them out, pool efficiency does not. */
  private readonly pinnedRecentUse = new RecentUseCounter();
  private pinned = 0;
  private locked = 0;
  private idle = 0;
  /** Latest frame seen (the current one), in frames. */
  private frame = -0x80000000;

  constructor(options: PhysicalPoolOptions) {
    const count = options.slotCount ?? slotCountForBudget(options);
    if (!Number.isInteger(count) || count < 1 || count > MAX_SLOTS) {
      throw new TesseraConfigError(
        'invalid-option',
        `slotCount must be an integer in 1..${MAX_SLOTS}, got ${count}`,
      );
    }
    this.slotCount = count;
    this.slotPages = new Uint32Array(count).fill(NO_REQUEST);
    this.slotLastUse = new Int32Array(count);
    this.slotLoadFrame = new Int32Array(count);
    this.slotUseFrames = new Int32Array(count);
    this.state = new Uint8Array(count);
    this.lockCount = new Uint16Array(count);
    this.pageToSlot = new PageIndexMap(count);
    this.free = new IntrusiveList(count);
    this.active = new IntrusiveList(count);
    for (let s = 0; s < count; s++) this.free.pushBack(s);
    this.policy = createReplacementPolicy(this, options.replacementPolicy);
  }

  /**
   * Slots that fit `budgetBytes` at the given tile format, capped at 65536. Throws
   * {@link TesseraConfigError} `budget-too-small` when not even one tile fits.
   */
  static slotCountForBudget(options: PhysicalPoolOptions): number {
    return slotCountForBudget(options);
  }

  /** Slots holding no page. */
  get freeCount(): number {
    return this.free.size;
  }
  /** Slots holding a page. */
  get residentCount(): number {
    return this.slotCount - this.free.size;
  }
  /** Slots holding a pinned page. */
  get pinnedCount(): number {
    return this.pinned;
  }
  /** Slots locked by an upload in flight. */
  get lockedCount(): number {
    return this.locked;
  }

  /**
   * Unpinned slots whose page was used at or after `sinceFrame`: the resident part of the working
   * set over a window of frames. O(window) for windows up to 64 frames (a running count per
   * frame), O(slots) beyond; allocates nothing.
   */
  usedSinceCount(sinceFrame: number): number {
    return this.countUsedSince(this.recentUse, sinceFrame, false);
  }

  /** Pinned slots whose page was used at or after `sinceFrame`; costs as {@link usedSinceCount}. */
  pinnedUsedSinceCount(sinceFrame: number): number {
    return this.countUsedSince(this.pinnedRecentUse, sinceFrame, true);
  }

  private countUsedSince(counter: RecentUseCounter, sinceFrame: number, pinned: boolean): number {
    const counted = counter.countSince(sinceFrame, this.frame);
    if (counted >= 0) return counted;
    let count = 0;
    for (let s = 0; s < this.slotCount; s++) {
      const st = this.state[s];
      if (this.slotLastUse[s] >= sinceFrame && st !== STATE_FREE && (st === STATE_PINNED) === pinned) count++;
    }
    return count;
  }

  /** Slot holding `pageId`, or -1. */
  slotOf(pageId: number): number {
    return this.pageToSlot.get(pageId);
  }

  /** True when `slot` holds a pinned page. */
  isPinned(slot: number): boolean {
    return this.state[slot] === STATE_PINNED;
  }

  /** True when `slot` is locked by an upload in flight. */
  isLocked(slot: number): boolean {
    return this.state[slot] === STATE_LOCKED;
  }

  /**
   * Gives `pageId` a slot at `frame`: a free one, else the victim of the replacement policy (its
   * page id left in {@link lastEvictedPage}; the caller unmaps it). Returns -1 when every slot is
   * pinned, locked or used in `frame`. A page already resident keeps its slot (and is touched).
   */
  allocate(pageId: number, frame: number, pinned = false): number {
    this.lastEvictedPage = NO_REQUEST;
    if (frame > this.frame) this.frame = frame;
    const existing = this.pageToSlot.get(pageId);
    if (existing >= 0) {
      if (pinned) this.setPinned(existing, true);
      this.touch(existing, frame);
      return existing;
    }
    let slot = this.free.popFront();
    if (slot < 0) {
      this.sweep(frame);
      slot = this.idle > 0 ? this.policy.victim(frame) : -1;
      if (slot < 0 || this.state[slot] !== STATE_IDLE) return -1;
      this.lastEvictedPage = this.slotPages[slot];
      this.evictionCount++;
      this.vacate(slot, true);
      this.free.remove(slot);
    }
    this.allocationCount++;
    this.slotPages[slot] = pageId;
    this.pageToSlot.set(pageId, slot);
    this.slotLastUse[slot] = frame;
    this.slotLoadFrame[slot] = frame;
    this.slotUseFrames[slot] = 1;
    this.policy.inserted(slot, pageId, frame);
    if (pinned) {
      this.state[slot] = STATE_PINNED;
      this.pinned++;
      this.pinnedRecentUse.add(frame);
    } else {
      this.state[slot] = STATE_ACTIVE;
      this.active.pushBack(slot);
      this.recentUse.add(frame);
    }
    return slot;
  }

  /** Records that `slot`'s page is used in `frame` (protects it from eviction during that frame). */
  touch(slot: number, frame: number): void {
    const st = this.state[slot];
    if (st === STATE_FREE) return;
    if (frame > this.frame) this.frame = frame;
    const last = this.slotLastUse[slot];
    if (st === STATE_IDLE) {
      this.idle--;
      this.policy.protect(slot);
      this.state[slot] = STATE_ACTIVE;
      this.active.pushBack(slot);
    } else if (st === STATE_ACTIVE && frame > last) {
      this.active.pushBack(slot); // keeps the list in last-use order
    }
    if (frame > last) {
      this.policy.referenced(slot, frame, last);
      const counter = st === STATE_PINNED ? this.pinnedRecentUse : this.recentUse;
      counter.remove(last);
      counter.add(frame);
      this.slotLastUse[slot] = frame;
      this.slotUseFrames[slot]++;
    }
  }

  /** Pins or unpins `slot` (pinned pages are never evicted). */
  setPinned(slot: number, pinned: boolean): void {
    const st = this.state[slot];
    if (st === STATE_FREE || st === STATE_LOCKED) return;
    if (pinned && st !== STATE_PINNED) {
      this.detach(slot);
      this.recentUse.remove(this.slotLastUse[slot]);
      this.pinnedRecentUse.add(this.slotLastUse[slot]);
      this.state[slot] = STATE_PINNED;
      this.pinned++;
    } else if (!pinned && st === STATE_PINNED) {
      this.pinned--;
      this.pinnedRecentUse.remove(this.slotLastUse[slot]);
      this.recentUse.add(this.slotLastUse[slot]);
      this.reactivate(slot);
    }
  }

  /** Protects `slot` from eviction while an upload into it is in flight (nestable). */
  lock(slot: number): void {
    if (this.state[slot] === STATE_FREE) return;
    if (this.lockCount[slot]++ === 0) {
      if (this.state[slot] === STATE_PINNED) return; // pinned already protects it
      this.detach(slot);
      this.state[slot] = STATE_LOCKED;
      this.locked++;
    }
  }

  /** Ends one {@link lock}. */
  unlock(slot: number): void {
    if (this.lockCount[slot] === 0) return;
    if (--this.lockCount[slot] === 0 && this.state[slot] === STATE_LOCKED) {
      this.locked--;
      this.reactivate(slot);
    }
  }

  /** Frees `slot` without counting an eviction (its page is forgotten by the pool). No-op if free. */
  release(slot: number): void {
    if (this.state[slot] === STATE_FREE) return;
    this.vacate(slot, false);
  }

  /**
   * Marks the pages not used in `frame` idle (eviction candidates). Only pages used before
   * `frame` are visited: the active list is in last-use order, so this is O(1) amortised.
   */
  sweep(frame: number): void {
    if (frame > this.frame) this.frame = frame;
    const active = this.active;
    const lastUse = this.slotLastUse;
    for (let s = active.head; s >= 0 && lastUse[s] < frame; s = active.head) {
      active.remove(s);
      this.state[s] = STATE_IDLE;
      this.idle++;
      this.policy.evictable(s, lastUse[s]);
    }
  }

  /** Slots that could be evicted at `frame` right now (idle, plus active ones not used in `frame`). */
  evictableCount(frame: number): number {
    this.sweep(frame);
    return this.idle;
  }

  /** Returns an unpinned, unlocked slot to the active set, or straight to idle if used before now. */
  private reactivate(slot: number): void {
    const last = this.slotLastUse[slot];
    if (last < this.frame) {
      this.state[slot] = STATE_IDLE;
      this.idle++;
      this.policy.evictable(slot, last);
    } else {
      this.state[slot] = STATE_ACTIVE;
      this.active.pushBack(slot);
    }
  }

  private detach(slot: number): void {
    const st = this.state[slot];
    if (st === STATE_ACTIVE) this.active.remove(slot);
    else if (st === STATE_IDLE) {
      this.idle--;
      this.policy.protect(slot);
    }
  }

  private vacate(slot: number, evicted: boolean): void {
    const st = this.state[slot];
    this.detach(slot);
    if (st === STATE_PINNED) {
      this.pinned--;
      this.pinnedRecentUse.remove(this.slotLastUse[slot]);
    } else this.recentUse.remove(this.slotLastUse[slot]);
    if (st === STATE_LOCKED) this.locked--;
    this.lockCount[slot] = 0;
    const page = this.slotPages[slot];
    this.policy.removed(slot, page, this.slotLastUse[slot], evicted);
    this.pageToSlot.delete(page);
    this.slotPages[slot] = NO_REQUEST;
    this.state[slot] = STATE_FREE;
    this.free.pushBack(slot);
  }
}

/** Options of a {@link PhysicalPool}: either `slotCount`, or `budgetBytes` with the tile format. */
export interface PhysicalPoolOptions {
  /** Number of slots (1..65536). Takes precedence over `budgetBytes`. */
  slotCount?: number;
  /** Byte budget of the pool texture(s), all layers together, in bytes. */
  budgetBytes?: number;
  /** Tile side including border, in texels. Default 128. */
  tileSize?: number;
  /** Bytes per texel of the pool format (4 for rgba8). Default 4. */
  bytesPerTexel?: number;
  /** Layers stored per slot (a slot holds the same page in every layer). Default 1. */
  layers?: number;
  /**
   * Which idle page is evicted: `lhd` (default: least hit density, learned online), `lru` (the
   * plain baseline), or a factory for a custom policy.
   */
  replacementPolicy?: ReplacementPolicyName | ReplacementPolicyFactory;
}

/**
 * Slots that fit `budgetBytes` at the given tile format, capped at 65536. Throws
 * {@link TesseraConfigError} `budget-too-small` when not even one tile fits.
 */
export function slotCountForBudget(options: PhysicalPoolOptions): number {
  const { budgetBytes } = options;
  const tileSize = options.tileSize ?? 128;
  const bpt = options.bytesPerTexel ?? 4;
  const layers = options.layers ?? 1;
  if (budgetBytes === undefined || !(budgetBytes >= 0)) {
    throw new TesseraConfigError(
      'invalid-option',
      'PhysicalPool needs slotCount or a non-negative budgetBytes',
    );
  }
  if (!(tileSize > 0 && bpt > 0 && layers > 0)) {
    throw new TesseraConfigError('invalid-tile', 'tileSize, bytesPerTexel and layers must be positive');
  }
  const slots = Math.floor(budgetBytes / (tileSize * tileSize * bpt * layers));
  if (slots < 1) {
    throw new TesseraConfigError('budget-too-small', `budget of ${budgetBytes} bytes holds no tile`);
  }
  return Math.min(slots, MAX_SLOTS);
}
