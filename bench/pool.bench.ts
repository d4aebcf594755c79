import { NO_REQUEST, packPageId, parentPageId } from '../src/core/vt/page-id';
import { REPLACEMENT_POLICIES } from '../src/core/vt/residency/create-replacement-policy';
import { PhysicalPool } from '../src/core/vt/residency/physical-pool';
import type {
  ReplacementPolicyFactory,
  ReplacementPolicyName,
} from '../src/core/vt/residency/replacement-policy';
import { dependentReadNs, poolStateBytes } from './dependent-read';
import { RandomVictimPolicy } from './random-victim-policy';

/**
 * Cost of one eviction by pool size and policy, in nanoseconds: a full pool where every frame
 * uses a window of 256 resident pages, then loads `LOADS_PER_FRAME` new ones, each evicting.
 * `pool.eviction_ns` times the loads (victim choice, unmapping, mapping), `pool.touch_ns` the
 * uses, per use. Flat figures across sizes mean no per-eviction sweep over the pool. Each figure
 * is the median over frames of one run, the fastest of `ROUNDS` runs, sizes interleaved, so other
 * work on a shared machine disturbs it less; `pool.eviction_growth.<policy>` is the 64K eviction
 * figure over the 1K one, and `pool.eviction_growth_vs_lru.<policy>` that growth over LRU's (an
 * intrusive list: O(1) by construction, so its growth is the machine's caches, not the algorithm;
 * a policy at <= 1 grows no faster than O(1)). LRU's victims here run through the slots in order,
 * which the caches favour; `random` ({@link RandomVictimPolicy}: a uniformly random evictable
 * slot, nothing learned) is the floor for victims spread over the pool, as every policy's are on
 * a real trace, and `pool.eviction_growth_vs_random.<policy>` each policy's growth over that
 * floor's: what the policy adds to the growth, beyond the pool's own cache misses.
 * `<policy>_parents` (lhd and LRU) is the same stream with each page's parent (one mip coarser)
 * loaded with it and used with it, as feedback requests fallback ancestors: lhd then finds the
 * parents of the candidates its signal could make the victim resident, and reads their use, which
 * the stream above never gives it.
 *
 * What the machine charges for the pool's size: `pool.state_bytes.lhd.<size>` is the typed-array
 * memory of a pool with the default policy, `pool.dependent_read_ns.<size>` one dependent
 * read (a pointer chase) in a buffer as large as lhd's, and `pool.eviction_growth_in_reads.<policy>` the time an eviction gains from
 * 1K to 64K slots counted in the dependent reads gained over the same range: an eviction must read
 * its victim's page id and then that page's map cell, at least two dependent reads at a random
 * slot, so no pool can be flat once its state leaves the core's cache.
 */
const LOADS_PER_FRAME = 64;
const SIZES = [1024, 4096, 16384, 65536];
const ROUNDS = 5;

function median(values: Float64Array): number {
  const sorted = Float64Array.from(values).sort();
  return sorted[sorted.length >> 1];
}

/**
 * Nanoseconds per eviction (the loads of a frame) and per touch (its uses), each the median over
 * frames of that frame's figure: a frame takes well under a millisecond, so few frames are
 * interrupted by other processes and the median is what the pool costs when it runs.
 */
export function measure(
  slots: number,
  policy: ReplacementPolicyName | ReplacementPolicyFactory,
  withParents: boolean,
): [number, number] {
  const pool = new PhysicalPool({ slotCount: slots, replacementPolicy: policy });
  const page = (i: number) => packPageId(0, 0, i & 0xfff, (i >>> 12) & 0xfff);
  /** Uses (or loads) `id`, and its parent too `withParents`; evictions it caused. */
  const use = (id: number): number => {
    let evictions = 0;
    for (let p = id, n = withParents ? 2 : 1; n > 0; n--, p = parentPageId(p)) {
      const s = pool.slotOf(p);
      if (s >= 0) pool.touch(s, frame);
      else if (pool.allocate(p, frame) >= 0 && pool.lastEvictedPage !== NO_REQUEST) evictions++;
    }
    return evictions;
  };
  let next = 0;
  let frame = 0;
  while (pool.freeCount > 0) use(page(next++));
  // A view of 256 pages sliding over recent loads, so pages get reused.
  const frames = 400;
  const evictNs = new Float64Array(frames);
  const touchNs = new Float64Array(frames);
  for (let f = 0; f < frames; f++) {
    frame++;
    let touches = 0;
    let evictions = 0;
    const t0 = process.hrtime.bigint();
    for (let k = 0; k < 256; k++) {
      const id = page(next - 1 - ((k * 7) % (slots >> 1)));
      const s = pool.slotOf(id);
      if (s >= 0) {
        pool.touch(s, frame);
        touches++;
        if (withParents) {
          const ps = pool.slotOf(parentPageId(id));
          if (ps >= 0) pool.touch(ps, frame);
        }
      }
    }
    const t1 = process.hrtime.bigint();
    for (let k = 0; k < LOADS_PER_FRAME; k++) evictions += use(page(next++));
    const t2 = process.hrtime.bigint();
    touchNs[f] = Number(t1 - t0) / Math.max(1, touches);
    evictNs[f] = Number(t2 - t1) / Math.max(1, evictions);
  }
  return [median(evictNs), median(touchNs)];
}

/** A policy of the bench: report name, the policy, whether each page's parent is used with it. */
export type BenchedPolicy = [string, ReplacementPolicyName | ReplacementPolicyFactory, boolean];

/** The floor of victims spread over the pool ({@link RandomVictimPolicy}). */
export const RANDOM_VICTIMS: BenchedPolicy = ['random', (table) => new RandomVictimPolicy(table), false];

/**
 * Adds `pool.eviction_ns.<name>.<size>`, `pool.touch_ns.<name>.<size>` and
 * `pool.eviction_growth.<name>` of each of `policies` to `out` (fastest of {@link ROUNDS} runs).
 */
export function measureEvictions(policies: readonly BenchedPolicy[], out: Record<string, number>): void {
  for (const [name, policy, withParents] of policies) {
    for (const slots of SIZES) measure(slots, policy, withParents); // warm-up
    const evict = SIZES.map(() => Number.POSITIVE_INFINITY);
    const touch = SIZES.map(() => Number.POSITIVE_INFINITY);
    for (let round = 0; round < ROUNDS; round++) {
      SIZES.forEach((slots, i) => {
        const [e, t] = measure(slots, policy, withParents);
        evict[i] = Math.min(evict[i], e);
        touch[i] = Math.min(touch[i], t);
      });
    }
    SIZES.forEach((slots, i) => {
      out[`pool.eviction_ns.${name}.${slots / 1024}K`] = evict[i];
      out[`pool.touch_ns.${name}.${slots / 1024}K`] = touch[i];
    });
    out[`pool.eviction_growth.${name}`] = evict[SIZES.length - 1] / evict[0];
  }
}

export default {
  name: 'pool',
  async run(): Promise<Record<string, number>> {
    const out: Record<string, number> = {};
    const policies: BenchedPolicy[] = [
      ...REPLACEMENT_POLICIES.map((name): BenchedPolicy => [name, name, false]),
      RANDOM_VICTIMS,
      ['lhd_parents', 'lhd', true],
      ['lru_parents', 'lru', true],
    ];
    measureEvictions(policies, out);
    for (const slots of [SIZES[0], SIZES[SIZES.length - 1]]) {
      const bytes = poolStateBytes(slots, 'lhd');
      out[`pool.state_bytes.lhd.${slots / 1024}K`] = bytes;
      out[`pool.dependent_read_ns.${slots / 1024}K`] = dependentReadNs(bytes);
    }
    const last = `${SIZES[SIZES.length - 1] / 1024}K`;
    const first = `${SIZES[0] / 1024}K`;
    const readGain = out[`pool.dependent_read_ns.${last}`] - out[`pool.dependent_read_ns.${first}`];
    for (const [name] of policies) {
      const gain = out[`pool.eviction_ns.${name}.${last}`] - out[`pool.eviction_ns.${name}.${first}`];
      out[`pool.eviction_growth_in_reads.${name}`] = gain / readGain;
    }
    for (const policy of REPLACEMENT_POLICIES) {
      const growth = out[`pool.eviction_growth.${policy}`];
      out[`pool.eviction_growth_vs_lru.${policy}`] = growth / out['pool.eviction_growth.lru'];
      out[`pool.eviction_growth_vs_random.${policy}`] = growth / out['pool.eviction_growth.random'];
    }
    return out;
  },
};
