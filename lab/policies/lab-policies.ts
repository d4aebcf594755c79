import { TesseraConfigError } from '../../src/core/errors';
import { LhdPolicy } from '../../src/core/vt/residency/lhd-policy';
import { LruPolicy } from '../../src/core/vt/residency/lru-policy';
import type {
  ReplacementPolicy,
  ReplacementPolicyFactory,
  SlotTableView,
} from '../../src/core/vt/residency/replacement-policy';
import { AdaptivePolicy } from './adaptive-policy';
import { ArcPolicy } from './arc-policy';
import type { CoverageFeed } from './coverage-feed';
import { LirsPolicy } from './lirs-policy';
import { PredictivePolicy } from './predictive-policy';

/**
 * Policies the lab compares: the product's two (`lhd`, the default, and `lru`, the baseline) and
 * the experiments kept here: `adaptive` (lhd or the predictor, by a duel of shadow pools),
 * `predictive` (the reuse-gap predictor tuned on the tuning paths), `lirs` and `arc` (LIRS and ARC
 * adapted to frames).
 */
export type LabPolicyName = 'adaptive' | 'arc' | 'lhd' | 'lirs' | 'lru' | 'predictive';

/** Every lab policy name, the product's default first. */
export const LAB_POLICIES: readonly LabPolicyName[] = ['lhd', 'adaptive', 'predictive', 'lirs', 'arc', 'lru'];

/**
 * A policy for a pool, built from the pool's slot table and the replay's {@link CoverageFeed} (a
 * product {@link ReplacementPolicyFactory} is one too: it ignores the feed).
 */
export type LabPolicyFactory = (table: SlotTableView, feed: CoverageFeed) => ReplacementPolicy;

/**
 * The policy named `choice` or built by a factory, for the slot table `table`; the coverage-aware
 * ones (`adaptive`) read `feed`.
 * @throws TesseraConfigError `invalid-option` on an unknown name.
 */
export function createLabPolicy(
  table: SlotTableView,
  choice: LabPolicyName | LabPolicyFactory,
  feed: CoverageFeed = { coverage: 0 },
): ReplacementPolicy {
  if (typeof choice === 'function') return choice(table, feed);
  switch (choice) {
    case 'adaptive':
      return new AdaptivePolicy(table, { feed });
    case 'arc':
      return new ArcPolicy(table);
    case 'lhd':
      return new LhdPolicy(table);
    case 'lirs':
      return new LirsPolicy(table);
    case 'lru':
      return new LruPolicy(table);
    case 'predictive':
      return new PredictivePolicy(table);
    default:
      throw new TesseraConfigError('invalid-option', `unknown lab policy ${String(choice)}`);
  }
}

/** `choice` as a product {@link ReplacementPolicyFactory} (for a `PhysicalPool`), reading `feed`. */
export function labPolicy(
  choice: LabPolicyName | LabPolicyFactory,
  feed: CoverageFeed = { coverage: 0 },
): ReplacementPolicyFactory {
  return (table) => createLabPolicy(table, choice, feed);
}
