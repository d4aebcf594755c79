/**
 * The priority of a missing page, one rule for the order loads start in and the order loaded tiles
 * are uploaded in. Packed in one double (exact below 2^53): fallback distance (mips, up to 31) >>
 * coverage (pixels, up to 2^24 - 1) >> age (frames waited, up to 2^20 - 1); the upload order adds
 * a demand class above all three (see `ReadyTileQueue`).
 */
const FALLBACK_WEIGHT = 2 ** 44;
const COVERAGE_WEIGHT = 2 ** 20;
const MAX_COVERAGE = 2 ** 24 - 1;
const MAX_AGE = 2 ** 20 - 1;

/** Weight of one step of a class ranked above every {@link requestPriority} (which stays below it). */
export const PRIORITY_CLASS_WEIGHT = 2 ** 49;

/**
 * Priority key of a request (larger first): `fallbackMips` = how many mips coarser the page shown
 * instead is (16 and up when nothing is, see `NOTHING_RESIDENT_MIPS`), `coverage` = pixels
 * requesting it, `ageFrames` = frames since it was first requested.
 */
export function requestPriority(fallbackMips: number, coverage: number, ageFrames: number): number {
  return (
    Math.min(fallbackMips, 31) * FALLBACK_WEIGHT +
    Math.min(coverage, MAX_COVERAGE) * COVERAGE_WEIGHT +
    Math.min(ageFrames, MAX_AGE)
  );
}
