import { REPLACEMENT_POLICIES } from '../src/core/vt/create-replacement-policy';
import { packPageId } from '../src/core/vt/page-id';
import { PhysicalPool } from '../src/core/vt/physical-pool';

/**
 * Cost of one eviction by pool size and policy, in nanoseconds: a full pool where every frame
 * requests a window of resident pages and loads `LOADS_PER_FRAME` new ones, each evicting. Flat
 * figures across sizes mean no per-eviction sweep over the pool. Each figure is the fastest of
 * `ROUNDS` runs, sizes interleaved, so other work on a shared machine disturbs it less;
 * `pool.eviction_growth.<policy>` is the 64K figure over the 1K one.
 */
const LOADS_PER_FRAME = 64;
const SIZES = [1024, 4096, 16384, 65536];
const ROUNDS = 5;

function measure(slots: number, policy: (typeof REPLACEMENT_POLICIES)[number]): number {
  const pool = new PhysicalPool({ slotCount: slots, replacementPolicy: policy });
  const page = (i: number) => packPageId(0, 0, i & 0xfff, (i >>> 12) & 0xfff);
  let next = 0;
  let frame = 0;
  for (; next < slots; next++) pool.allocate(page(next), frame);
  // A view of 256 pages sliding over recent loads, so pages get reused and some come back.
  const frames = 400;
  const start = process.hrtime.bigint();
  let evictions = 0;
  for (let f = 0; f < frames; f++) {
    frame++;
    for (let k = 0; k < 256; k++) {
      const s = pool.slotOf(page(next - 1 - ((k * 7) % (slots >> 1))));
      if (s >= 0) pool.touch(s, frame);
    }
    for (let k = 0; k < LOADS_PER_FRAME; k++) {
      if (pool.allocate(page(next++), frame) >= 0 && pool.lastEvictedPage !== 0xffffffff) evictions++;
    }
  }
  const ns = Number(process.hrtime.bigint() - start);
  return ns / Math.max(1, evictions);
}

export default {
  name: 'pool',
  async run(): Promise<Record<string, number>> {
    const out: Record<string, number> = {};
    for (const policy of REPLACEMENT_POLICIES) {
      for (const slots of SIZES) measure(slots, policy); // warm-up
      const best = SIZES.map(() => Number.POSITIVE_INFINITY);
      for (let round = 0; round < ROUNDS; round++) {
        SIZES.forEach((slots, i) => {
          best[i] = Math.min(best[i], measure(slots, policy));
        });
      }
      SIZES.forEach((slots, i) => {
        out[`pool.eviction_ns.${policy}.${slots / 1024}K`] = best[i];
      });
      out[`pool.eviction_growth.${policy}`] = best[SIZES.length - 1] / best[0];
    }
    return out;
  },
};
