import { TesseraConfigError } from '../errors';
import { AdaptivePolicy } from './adaptive-policy';
import { ArcPolicy } from './arc-policy';
import { LhdPolicy } from './lhd-policy';
import { LirsPolicy } from './lirs-policy';
import { LruPolicy } from './lru-policy';
import { PredictivePolicy } from './predictive-policy';
import type {
  ReplacementPolicy,
  ReplacementPolicyFactory,
  ReplacementPolicyName,
  SlotTableView,
} from './replacement-policy';

/** Every built-in policy name, the default first. */
export const REPLACEMENT_POLICIES: readonly ReplacementPolicyName[] = [
  'lhd',
  'adaptive',
  'predictive',
  'lirs',
  'arc',
  'lru',
];

/**
 * The policy named `choice` or built by a factory, for the slot table `table`. The default is
 * `lhd` (least hit density, learned online): on the nine held-out camera paths of
 * `bench/sim.bench.ts` its worst ratio to Belady's optimum is 1.25 (predictive 1.32, ARC 1.38,
 * LIRS 1.46, LRU 1.40), and it never needs more loads than LRU there (on the tuning paths at most
 * 0.03% more). `adaptive` (lhd or the predictor, by a duel of shadow pools) is 1.195 at worst
 * there, but 0.06% over LRU on one path and about 4x lhd's time per frame, so it is an option,
 * not the default.
 * Throws {@link TesseraConfigError} on an unknown name.
 */
export function createReplacementPolicy(
  table: SlotTableView,
  choice: ReplacementPolicyName | ReplacementPolicyFactory = 'lhd',
): ReplacementPolicy {
  if (typeof choice === 'function') return choice(table);
  switch (choice) {
    case 'adaptive':
      return new AdaptivePolicy(table);
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
      throw new TesseraConfigError('invalid-option', `unknown replacement policy ${String(choice)}`);
  }
}
