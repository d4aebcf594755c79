/**
 * What a {@link ReplacementPolicy} may read of the pool's slot table: per-slot typed arrays owned
 * by the pool (a policy never writes them).
 */
export interface SlotTableView {
  /** Number of slots. */
  readonly slotCount: number;
  /** Page id held by each slot, `NO_REQUEST` when free. */
  readonly slotPages: Uint32Array;
  /** Frame each slot's page was last used. */
  readonly slotLastUse: Int32Array;
  /** Frame each slot's page was loaded. */
  readonly slotLoadFrame: Int32Array;
  /** Frames in which each slot's page was used since it was loaded. */
  readonly slotUseFrames: Int32Array;
  /** Slot holding `pageId`, or -1 when it is not resident. O(1). */
  slotOf(pageId: number): number;
}

/**
 * Victim choice of a {@link PhysicalPool}, separate from the slot table (free, active, idle, pinned,
 * locked), which stays in the pool. The pool guarantees the protection rules: it only ever offers
 * "evictable" slots (not used in the current frame, not pinned, not locked), so a policy cannot
 * break them; a policy only orders the evictable slots. Every hook is O(1) or O(log n) and
 * allocates nothing.
 *
 * Call order for one slot: `inserted`, then any number of `referenced` / `evictable` / `protect`,
 * then `removed`. `evictable` and `protect` alternate (a slot starts protected).
 */
export interface ReplacementPolicy {
  /** Short name used in options and reports (`lhd`, `lru`, or a custom policy's own). */
  readonly name: string;
  /** `pageId` was loaded into `slot` at `frame` (a miss). */
  inserted(slot: number, pageId: number, frame: number): void;
  /**
   * The page in `slot` is used in `frame` for the first time in that frame; its previous use was
   * at `lastUse` (frames). Called at most once per slot and frame.
   */
  referenced(slot: number, frame: number, lastUse: number): void;
  /** `slot` became a candidate: not used since frame `lastUse`, which is before the current one. */
  evictable(slot: number, lastUse: number): void;
  /** `slot` stopped being a candidate (used again, pinned or locked). */
  protect(slot: number): void;
  /**
   * `pageId` left `slot` (last used at `lastUse`): evicted by this policy's choice when `evicted`,
   * else released by its owner (forget it without counting a ghost).
   */
  removed(slot: number, pageId: number, lastUse: number, evicted: boolean): void;
  /** Chooses the slot to evict at `frame` among the evictable ones, or -1 when there is none. */
  victim(frame: number): number;
  /**
   * Optional: takes over what `previous` learned when the pool is rebuilt with another slot count
   * (a budget change, `compactPool`), so a resize does not start the policy afresh. Called once,
   * at `frame`, after the survivors were inserted and before any slot is offered as evictable.
   * `newSlotOf[s]` is the new slot of old slot `s` (-1: dropped or free); `previousTable` is the
   * old slot table, whose dropped pages left the pool at `frame` as if evicted.
   */
  adopt?(
    previous: ReplacementPolicy,
    previousTable: SlotTableView,
    newSlotOf: Int32Array,
    frame: number,
  ): void;
}

/**
 * Built-in policies: `lhd` (default: least hit density, learned online, {@link LhdPolicy}) and
 * `lru` (least recently used, the plain baseline, {@link LruPolicy}). Any other policy plugs in as
 * a {@link ReplacementPolicyFactory}.
 */
export type ReplacementPolicyName = 'lhd' | 'lru';

/** A policy for a pool, built from the pool's slot table. */
export type ReplacementPolicyFactory = (table: SlotTableView) => ReplacementPolicy;
