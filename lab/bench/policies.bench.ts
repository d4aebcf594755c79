import { CACHE_RUN, cachePaths, PATH_KEYS, SHAPE, TERRAIN, WORLD } from '../../bench/sim.bench';
import { LAB_POLICIES } from '../policies/lab-policies';
import { heldOutCases } from '../sim/heldout-paths';
import type { HeldOutCase } from '../sim/path-cases';
import { tuningCases } from '../sim/tuning-paths';
import { evaluatePolicies, evaluateResizes, recordTrace } from './policy-eval';

/*
 * Replacement policies compared on recorded request traces (the runs of the product bench's cache
 * figures, `bench/sim.bench.ts`): every lab policy on the product's three cache paths, on the
 * held-out paths (never tuned on) and on the tuning paths (the paths constants were chosen on),
 * and lhd across pool resizes. All figures are load counts and their ratios (deterministic).
 */

/**
 * Frames between two pool resizes in the resize replays (`evaluateResizes`): a budget change
 * every second and every 4 seconds at 60 Hz.
 */
const RESIZE_PERIODS = [60, 240];

/**
 * Replays each case's trace at its pool fraction of the union with every policy. Per policy and
 * case `<prefix>.<case>.<policy>.ratio` (loads / Belady); per policy the worst loads / Belady and
 * the worst loads / LRU on the same trace; `<prefix>.best_of_policies.worst_ratio` is the worst
 * over cases of the best policy per case (what choosing the right policy per path would reach).
 * With `resizes`, also lhd's loads across pool resizes adopting its learning / starting afresh
 * (`<prefix>.<case>.resize_<period>.adopting_vs_afresh`, worst and mean over cases) and / LRU.
 */
async function measureCases(
  prefix: string,
  cases: HeldOutCase[],
  resizes = false,
): Promise<Record<string, number>> {
  const out: Record<string, number> = {};
  const worst: Record<string, number> = {};
  const worstVsLru: Record<string, number> = {};
  let bestOfPolicies = 0;
  const resizeWorst: Record<number, number> = {};
  const resizeSum: Record<number, number> = {};
  for (const c of cases) {
    const trace = await recordTrace(c.path, { ...CACHE_RUN, terrain: TERRAIN });
    const r = evaluatePolicies(trace, c.poolFraction);
    for (const period of resizes ? RESIZE_PERIODS : []) {
      const z = evaluateResizes(trace, r.capacity, period);
      out[`${prefix}.${c.key}.resize_${period}.adopting_vs_afresh`] = z.adopting / z.afresh;
      out[`${prefix}.${c.key}.resize_${period}.adopting_vs_lru`] = z.adopting / z.lru;
      resizeWorst[period] = Math.max(resizeWorst[period] ?? 0, z.adopting / z.afresh);
      resizeSum[period] = (resizeSum[period] ?? 0) + z.adopting / z.afresh;
    }
    out[`${prefix}.${c.key}.pool_pages`] = r.capacity;
    out[`${prefix}.${c.key}.union_pages`] = r.union;
    let best = Number.POSITIVE_INFINITY;
    for (const policy of LAB_POLICIES) {
      const p = r.byPolicy[policy];
      out[`${prefix}.${c.key}.${policy}.ratio`] = p.loads / p.optLoads;
      worst[policy] = Math.max(worst[policy] ?? 0, p.loads / p.optLoads);
      worstVsLru[policy] = Math.max(worstVsLru[policy] ?? 0, p.loads / p.lruLoads);
      best = Math.min(best, p.loads / p.optLoads);
    }
    bestOfPolicies = Math.max(bestOfPolicies, best);
  }
  for (const policy of LAB_POLICIES) {
    out[`${prefix}.${policy}.worst_ratio`] = worst[policy];
    out[`${prefix}.${policy}.vs_lru`] = worstVsLru[policy];
  }
  out[`${prefix}.best_of_policies.worst_ratio`] = bestOfPolicies;
  for (const period of resizes ? RESIZE_PERIODS : []) {
    out[`${prefix}.resize_${period}.adopting_vs_afresh.worst`] = resizeWorst[period];
    out[`${prefix}.resize_${period}.adopting_vs_afresh.mean`] = resizeSum[period] / cases.length;
  }
  return out;
}

/**
 * Held-out evaluation: paths no policy was tuned on ({@link heldOutCases}); the default policy's
 * figures are `cache.heldout.worst_ratio` and `cache.heldout.vs_lru`. The tuning set
 * ({@link tuningCases}, the paths constants were chosen on) is reported beside it as
 * `cache.tuning.*`, so the gap between the two shows any overfitting.
 */
export async function measureHeldOut(): Promise<Record<string, number>> {
  const shape = { world: WORLD, altitude: SHAPE.altitude };
  const out = await measureCases('cache.heldout', heldOutCases(shape), true);
  Object.assign(out, await measureCases('cache.tuning', tuningCases(shape)));
  out['cache.heldout.worst_ratio'] = out[`cache.heldout.${LAB_POLICIES[0]}.worst_ratio`];
  out['cache.heldout.vs_lru'] = out[`cache.heldout.${LAB_POLICIES[0]}.vs_lru`];
  return out;
}

export default {
  name: 'policies',
  async run(): Promise<Record<string, number>> {
    const out: Record<string, number> = {};
    // The product's three cache paths replayed by every policy (pool at 1/2 of the union).
    for (const path of cachePaths()) {
      const r = evaluatePolicies(await recordTrace(path, { ...CACHE_RUN, terrain: TERRAIN }), 1 / 2);
      for (const policy of LAB_POLICIES) {
        const p = r.byPolicy[policy];
        out[`cache.${PATH_KEYS[path.name]}.${policy}.ratio`] = p.loads / p.optLoads;
        out[`cache.${PATH_KEYS[path.name]}.${policy}.vs_lru`] = p.loads / p.lruLoads;
      }
    }
    Object.assign(out, await measureHeldOut());
    return out;
  },
};
