import type { ReplacementPolicy } from '../../src/core/vt/residency/replacement-policy';

/**
 * The feedback coverage (pixels; 0 for a fallback ancestor) of the request a pool call is about to
 * serve. The product's `PhysicalPool` does not pass coverage to its policy (neither `lhd` nor `lru`
 * uses it), so a lab replay that has it (a {@link CoverageTrace}) sets `coverage` before each
 * `touch` / `allocate`, and a coverage-aware lab policy reads it in `inserted` / `referenced`.
 */
export interface CoverageFeed {
  coverage: number;
}

/**
 * A policy whose `inserted` / `referenced` may be told the request's coverage directly (as a
 * {@link ShadowPool} does): the coverage-aware lab policies read it, any other policy ignores the
 * extra argument.
 */
export interface CoverageAwarePolicy extends ReplacementPolicy {
  inserted(slot: number, pageId: number, frame: number, coverage?: number): void;
  referenced(slot: number, frame: number, lastUse: number, coverage?: number): void;
}
