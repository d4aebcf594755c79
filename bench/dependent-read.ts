import { PhysicalPool } from '../src/core/vt/residency/physical-pool';
import type {
  ReplacementPolicyFactory,
  ReplacementPolicyName,
} from '../src/core/vt/residency/replacement-policy';
import { SeededRandom } from '../src/sim/seeded-random';

/** Ints per cache line (64 bytes): the chase visits one int per line. */
const LINE_INTS = 16;
/** Reads timed per measurement. */
const READS = 1 << 21;

/**
 * Bytes of typed arrays a pool of `slots` slots with `policy` holds (its slot table, page map,
 * lists and the policy's state), measured as the growth of the process's ArrayBuffer memory while
 * constructing it.
 */
export function poolStateBytes(
  slots: number,
  policy: ReplacementPolicyName | ReplacementPolicyFactory,
): number {
  const before = process.memoryUsage().arrayBuffers;
  const pool = new PhysicalPool({ slotCount: slots, replacementPolicy: policy });
  const bytes = process.memoryUsage().arrayBuffers - before;
  pool.slotOf(0); // the pool stays reachable until measured
  return bytes;
}

/**
 * Nanoseconds per dependent read in a buffer of `bytes`: a pointer chase through every cache line
 * of the buffer in a seeded random cyclic order, so each read waits for the one before, as an
 * eviction's chain does (victim slot, then its page id, then that page's map cell). Below the
 * core's cache size this is a cache hit; above it, a miss (and a TLB miss) the CPU cannot overlap.
 * The fastest of `rounds` measurements.
 */
export function dependentReadNs(bytes: number, rounds = 5): number {
  const lines = Math.max(2, Math.floor(bytes / (4 * LINE_INTS)));
  const cells = new Int32Array(lines * LINE_INTS);
  const order = new Int32Array(lines);
  for (let i = 0; i < lines; i++) order[i] = i;
  const random = new SeededRandom(7);
  for (let i = lines - 1; i > 0; i--) {
    const j = random.int(i + 1);
    const t = order[i];
    order[i] = order[j];
    order[j] = t;
  }
  for (let i = 0; i < lines; i++) cells[order[i] * LINE_INTS] = order[(i + 1) % lines] * LINE_INTS;
  let best = Number.POSITIVE_INFINITY;
  let p = 0;
  for (let round = 0; round <= rounds; round++) {
    const t0 = process.hrtime.bigint();
    for (let i = 0; i < READS; i++) p = cells[p];
    const ns = Number(process.hrtime.bigint() - t0) / READS;
    if (round > 0) best = Math.min(best, ns); // round 0 warms the caches and the JIT
  }
  if (p < 0) throw new Error('unreachable: the chase only holds cell indices');
  return best;
}
