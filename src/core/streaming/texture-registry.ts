import { TagRegistry } from '../budget/tag-registry';
import { TesseraError } from '../errors';

/** Ids are `generation * TEXTURE_SLOT_LIMIT + slot`, so a stale id is told apart from a live one. */
export const TEXTURE_SLOT_LIMIT = 1 << 22;

/** The typed-array slot of texture id `id` (for side tables indexed by slot). */
export function textureSlot(id: number): number {
  return id % TEXTURE_SLOT_LIMIT;
}

/** Called when a texture leaves the registry: free its memory, swap a placeholder into materials. */
export type TextureEvictListener = (id: number, slot: number) => void;

/** Options of {@link ManagedTextureRegistry.register}. */
export interface RegisterTextureOptions {
  /** Lifetime tag: 'persistent', 'scene:<id>', 'transient' or a custom name. Default 'persistent'. */
  tag?: string;
  /** Part of its scene's core set, loaded first by scene transitions. */
  core?: boolean;
}

/**
 * Every managed texture: an integer id, one lifetime tag (interned), a `core` flag, a reference
 * count and the last frame / time it was used. Members of each tag form an intrusive list, so a
 * sweep or a transition walks one tag without touching the others. Struct-of-arrays storage.
 */
export class ManagedTextureRegistry {
  /** Tag interning (shared with the budget when given). */
  readonly tags: TagRegistry;
  private generation = new Uint32Array(256);
  private alive = new Uint8Array(256);
  private tagOf = new Int32Array(256);
  private coreFlag = new Uint8Array(256);
  private refs = new Int32Array(256);
  private usedFrame = new Int32Array(256);
  private usedMs = new Float64Array(256);
  private next = new Int32Array(256);
  private prev = new Int32Array(256);
  private tagHead = new Int32Array(16).fill(-1);
  private tagCount = new Int32Array(16);
  private freeSlots = new Int32Array(256);
  private freeCount = 0;
  private highWater = 0;
  private liveCount = 0;
  private readonly listeners: TextureEvictListener[] = [];

  constructor(tags: TagRegistry = new TagRegistry()) {
    this.tags = tags;
  }

  /** Number of live textures. */
  get size(): number {
    return this.liveCount;
  }

  /** One past the highest slot ever used (bound for slot-indexed loops and side tables). */
  get slotCount(): number {
    return this.highWater;
  }

  /** Call `listener` for every eviction (sweep, transition, {@link evict}). */
  addEvictListener(listener: TextureEvictListener): void {
    this.listeners.push(listener);
  }

  /** Add a texture; its last use is `frame` / `nowMs` (so it is not idle at birth). */
  register(options: RegisterTextureOptions = {}, frame = 0, nowMs = 0): number {
    const tag = this.tags.intern(options.tag ?? 'persistent');
    const slot = this.freeCount > 0 ? this.freeSlots[--this.freeCount] : this.newSlot();
    if (tag >= this.tagHead.length) this.growTags(tag + 1);
    this.alive[slot] = 1;
    this.tagOf[slot] = tag;
    this.coreFlag[slot] = options.core ? 1 : 0;
    this.refs[slot] = 0;
    this.usedFrame[slot] = frame;
    this.usedMs[slot] = nowMs;
    const head = this.tagHead[tag];
    this.prev[slot] = -1;
    this.next[slot] = head;
    if (head >= 0) this.prev[head] = slot;
    this.tagHead[tag] = slot;
    this.tagCount[tag]++;
    this.liveCount++;
    return this.generation[slot] * TEXTURE_SLOT_LIMIT + slot;
  }

  /** True when `id` names a live texture. */
  has(id: number): boolean {
    if (!Number.isInteger(id) || id < 0) return false;
    const slot = id % TEXTURE_SLOT_LIMIT;
    return (
      slot < this.highWater &&
      this.alive[slot] === 1 &&
      Math.floor(id / TEXTURE_SLOT_LIMIT) === this.generation[slot]
    );
  }

  /**
   * The slot of live texture `id`.
   * @throws TesseraError('released-twice') for an evicted texture, ('unknown-texture') for an id never issued.
   */
  slotOf(id: number): number {
    const slot = Number.isInteger(id) && id >= 0 ? id % TEXTURE_SLOT_LIMIT : -1;
    const generation = Math.floor(id / TEXTURE_SLOT_LIMIT);
    if (slot < 0 || slot >= this.highWater || generation < 1 || generation > this.generation[slot]) {
      throw new TesseraError('unknown-texture', `Texture ${id} is not managed here.`);
    }
    if (generation < this.generation[slot] || this.alive[slot] === 0) {
      throw new TesseraError('released-twice', `Texture ${id} was already released.`);
    }
    return slot;
  }

  /** The id currently living in `slot`, or -1. */
  idAt(slot: number): number {
    return slot < this.highWater && this.alive[slot] === 1
      ? this.generation[slot] * TEXTURE_SLOT_LIMIT + slot
      : -1;
  }

  /** Record that something using texture `id` was rendered at `frame` / `nowMs`. */
  touch(id: number, frame: number, nowMs = 0): void {
    const slot = this.slotOf(id);
    this.usedFrame[slot] = frame;
    this.usedMs[slot] = nowMs;
  }

  /** Add a holder: a retained texture is never swept. Returns the new count. */
  retain(id: number): number {
    return ++this.refs[this.slotOf(id)];
  }

  /**
   * Drop a holder taken with {@link retain}; at 0 the texture is again subject to its tag's policy.
   * @throws TesseraError('released-twice') when the count is already 0 or the texture is gone.
   */
  release(id: number): number {
    const slot = this.slotOf(id);
    if (this.refs[slot] === 0) {
      throw new TesseraError('released-twice', `Texture ${id} has no holder to release.`);
    }
    return --this.refs[slot];
  }

  /**
   * Remove texture `id` now and notify evict listeners (which free its GPU memory and swap a
   * placeholder into its materials).
   * @throws TesseraError('released-twice' | 'unknown-texture') as {@link slotOf}.
   */
  evict(id: number): void {
    this.evictSlot(this.slotOf(id));
  }

  /** Evict the texture in live `slot` (sweep and transition hot path; no id validation). */
  evictSlot(slot: number): void {
    const id = this.generation[slot] * TEXTURE_SLOT_LIMIT + slot;
    const tag = this.tagOf[slot];
    const before = this.prev[slot];
    const after = this.next[slot];
    if (before >= 0) this.next[before] = after;
    else {
      this.tagHead[tag] = after;
    }
    if (after >= 0) this.prev[after] = before;
    this.tagCount[tag]--;
    this.alive[slot] = 0;
    this.generation[slot]++;
    this.freeSlots[this.freeCount++] = slot;
    this.liveCount--;
    for (let i = 0; i < this.listeners.length; i++) this.listeners[i](id, slot);
  }

  /** Lifetime tag id of the texture in `slot`. */
  tagAt(slot: number): number {
    return this.tagOf[slot];
  }

  /** True when the texture in `slot` is in its scene's core set. */
  isCoreAt(slot: number): boolean {
    return this.coreFlag[slot] === 1;
  }

  /** Holders of the texture in `slot`. */
  refCountAt(slot: number): number {
    return this.refs[slot];
  }

  /** Last frame the texture in `slot` was used. */
  lastUsedFrameAt(slot: number): number {
    return this.usedFrame[slot];
  }

  /** Last time (ms, injected clock) the texture in `slot` was used. */
  lastUsedMsAt(slot: number): number {
    return this.usedMs[slot];
  }

  /** First member slot of tag `tag` (-1 when none); continue with {@link nextInTag}. */
  firstInTag(tag: number): number {
    return tag < this.tagHead.length ? this.tagHead[tag] : -1;
  }

  /** The member after `slot` in its tag's list, or -1. */
  nextInTag(slot: number): number {
    return this.next[slot];
  }

  /** Live textures carrying tag `tag`. */
  countInTag(tag: number): number {
    return tag < this.tagCount.length ? this.tagCount[tag] : 0;
  }

  private newSlot(): number {
    const slot = this.highWater++;
    if (slot >= TEXTURE_SLOT_LIMIT) throw new TesseraError('over-budget', 'Too many managed textures.');
    if (slot >= this.alive.length) {
      const size = this.alive.length * 2;
      this.generation = grow(this.generation, size);
      this.alive = grow(this.alive, size);
      this.tagOf = grow(this.tagOf, size);
      this.coreFlag = grow(this.coreFlag, size);
      this.refs = grow(this.refs, size);
      this.usedFrame = grow(this.usedFrame, size);
      this.usedMs = grow(this.usedMs, size);
      this.next = grow(this.next, size);
      this.prev = grow(this.prev, size);
      this.freeSlots = grow(this.freeSlots, size);
    }
    this.generation[slot] = 1;
    return slot;
  }

  private growTags(count: number): void {
    const size = Math.max(count, this.tagHead.length * 2);
    const heads = new Int32Array(size).fill(-1);
    heads.set(this.tagHead);
    this.tagHead = heads;
    this.tagCount = grow(this.tagCount, size);
  }
}

function grow<T extends Uint8Array | Int32Array | Uint32Array | Float64Array>(array: T, size: number): T {
  const next = new (array.constructor as new (length: number) => T)(size);
  next.set(array);
  return next;
}
