import { TesseraConfigError } from '../errors';
import { ArcPolicy } from './arc-policy';
import { LruPolicy } from './lru-policy';
import { PredictivePolicy } from './predictive-policy';
import type {
  ReplacementPolicy,
  ReplacementPolicyFactory,
  ReplacementPolicyName,
  SlotTableView,
} from './replacement-policy';

/** Every built-in policy name, the default first. */
export const REPLACEMENT_POLICIES: readonly ReplacementPolicyName[] = ['arc', 'lru', 'predictive'];

/**
 * The policy named `choice` (default `arc`, chosen on held-out camera paths) or built by a
 * factory, for the slot table `table`. Throws {@link TesseraConfigError} on an unknown name.
 */
export function createReplacementPolicy(
  table: SlotTableView,
  choice: ReplacementPolicyName | ReplacementPolicyFactory = 'arc',
): ReplacementPolicy {
  if (typeof choice === 'function') return choice(table);
  switch (choice) {
    case 'arc':
      return new ArcPolicy(table);
    case 'lru':
      return new LruPolicy(table);
    case 'predictive':
      return new PredictivePolicy(table);
    default:
      throw new TesseraConfigError('invalid-option', `unknown replacement policy ${String(choice)}`);
  }
}
