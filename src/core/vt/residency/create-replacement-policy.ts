import { TesseraConfigError } from '../../errors';
import { LhdPolicy } from './lhd-policy';
import { LruPolicy } from './lru-policy';
import type {
  ReplacementPolicy,
  ReplacementPolicyFactory,
  ReplacementPolicyName,
  SlotTableView,
} from './replacement-policy';

/** Every built-in policy name, the default first. */
export const REPLACEMENT_POLICIES: readonly ReplacementPolicyName[] = ['lhd', 'lru'];

/**
 * The policy named `choice` or built by a factory, for the slot table `table`. The default is
 * `lhd` (least hit density, learned online: {@link LhdPolicy}); `lru` is the plain baseline.
 * Other policies plug in as a factory.
 * @throws TesseraConfigError `invalid-option` on an unknown name.
 */
export function createReplacementPolicy(
  table: SlotTableView,
  choice: ReplacementPolicyName | ReplacementPolicyFactory = 'lhd',
): ReplacementPolicy {
  if (typeof choice === 'function') return choice(table);
  switch (choice) {
    case 'lhd':
      return new LhdPolicy(table);
    case 'lru':
      return new LruPolicy(table);
    default:
      throw new TesseraConfigError('invalid-option', `unknown replacement policy ${String(choice)}`);
  }
}
