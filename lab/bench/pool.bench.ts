import { dependentReadNs, poolStateBytes } from '../../bench/dependent-read';
import { type BenchedPolicy, measureEvictions, RANDOM_VICTIMS } from '../../bench/pool.bench';
import { LAB_POLICIES, labPolicy } from '../policies/lab-policies';

/**
 * The product pool bench (`bench/pool.bench.ts`: cost of one eviction and one use by pool size)
 * run with every lab policy, beside LRU and the random-victim floor measured in the same process:
 * `pool.eviction_ns.<policy>.<size>`, `pool.touch_ns.<policy>.<size>`, the growth from 1K to 64K
 * slots and that growth over LRU's and the floor's, and `pool.state_bytes.<policy>.<size>`, the
 * typed-array memory of a pool with that policy, with one dependent read in a buffer that large.
 */
export default {
  name: 'lab-pool',
  async run(): Promise<Record<string, number>> {
    const out: Record<string, number> = {};
    const policies: BenchedPolicy[] = [
      ...LAB_POLICIES.map((name): BenchedPolicy => [name, labPolicy(name), false]),
      RANDOM_VICTIMS,
    ];
    measureEvictions(policies, out);
    for (const policy of LAB_POLICIES) {
      const growth = out[`pool.eviction_growth.${policy}`];
      out[`pool.eviction_growth_vs_lru.${policy}`] = growth / out['pool.eviction_growth.lru'];
      out[`pool.eviction_growth_vs_random.${policy}`] = growth / out['pool.eviction_growth.random'];
      for (const slots of [1024, 65536]) {
        // Collected first, so that the pools of the timing runs are not freed during the count.
        (globalThis as { gc?: () => void }).gc?.();
        const bytes = poolStateBytes(slots, labPolicy(policy));
        out[`pool.state_bytes.${policy}.${slots / 1024}K`] = bytes;
        if (policy === 'lhd') out[`pool.dependent_read_ns.${slots / 1024}K`] = dependentReadNs(bytes);
      }
    }
    return out;
  },
};
