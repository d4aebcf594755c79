/**
 * The one rule, per filtering mode, for which mips a pixel reads and which page it requests. The
 * TSL sampler and feedback graphs (src/three/sampling/virtual-texture-graph.ts), the debug view and the
 * simulator (src/sim/terrain-feedback-generator.ts) all derive from these numbers, so the feedback
 * asks for exactly what the sampler reads.
 *
 * With `lambda` the footprint's log2 in mip-0 texels per screen pixel (isotropic: the longer axis;
 * anisotropic: max(short, long / maxAnisotropy)):
 * - `bilinear` reads one mip, `round(lambda)`, and requests it.
 * - `trilinear` / `anisotropic` read `floor(lambda)` and the next coarser mip, blended by the
 *   fraction; the fine mip's weight ramps to 0 at a fraction of `1 - FINE_MIP_SLACK` (see
 *   {@link trilinearBlend}), and the request is `floor(lambda + FINE_MIP_SLACK)`: where the fine
 *   mip weighs nothing it is not requested, so float noise at integer lambdas (a pixel at 1.9999
 *   instead of 2) never fills the pool with pages the sampler barely weighs, and every page the
 *   sampler reads is the request or its parent.
 */

/** How pool samples are filtered. */
export type FilterMode = 'bilinear' | 'trilinear' | 'anisotropic';

/** Fraction of a mip below 1 within which the fine mip of a blend weighs nothing, in mips. */
export const FINE_MIP_SLACK = 1 / 16;

/** What a mode needs from the footprint, and how its request is offset. */
export interface MipRule {
  /** Anisotropy ratio of the footprint (1 = isotropic: the longer axis). */
  readonly anisotropy: number;
  /** Added to lambda before the floor that names the requested mip, in mips. */
  readonly requestOffset: number;
  /** True when the sampler blends two mips. */
  readonly blends: boolean;
}

/**
 * Most taps the anisotropic sampler takes along a footprint, per mip: the ratio it resolves is
 * capped here (as hardware caps at 16), since the footprint's mip must match what the taps cover.
 */
export const MAX_ANISOTROPIC_TAPS = 8;

/** The rule of `mode` (`maxAnisotropy` only matters for `anisotropic`, capped at 8). */
export function mipRule(mode: FilterMode, maxAnisotropy: number): MipRule {
  if (mode === 'bilinear') return { anisotropy: 1, requestOffset: 0.5, blends: false };
  const anisotropy = mode === 'anisotropic' ? Math.min(maxAnisotropy, MAX_ANISOTROPIC_TAPS) : 1;
  return { anisotropy, requestOffset: FINE_MIP_SLACK, blends: true };
}

/** Bilinear taps per mip the sampler of `rule` takes: enough to cover its anisotropy ratio. */
export function anisotropicTaps(rule: MipRule): number {
  return Math.ceil(rule.anisotropy);
}

/** The mip a pixel with footprint `lambda` (bias included) requests, clamped to 0..maxMip. */
export function requestedMip(rule: MipRule, lambda: number, maxMip: number): number {
  const mip = Math.floor(lambda + rule.requestOffset);
  return Math.max(0, Math.min(mip, maxMip));
}

/**
 * Weight of the coarser mip of a blend at fraction `fraction` (0..1) of the way to it: the plain
 * fraction up to `1 - 2 FINE_MIP_SLACK`, then a steeper ramp reaching 1 at `1 - FINE_MIP_SLACK`
 * (continuous: no visible band), so the fine mip weighs exactly nothing where it is not requested.
 */
export function trilinearBlend(fraction: number): number {
  // max(f, 2f - knee) is f below the knee and the twice-as-steep ramp above it.
  return Math.min(1, Math.max(fraction, 2 * fraction - BLEND_KNEE));
}

/** Where {@link trilinearBlend} leaves the plain fraction: 1 - 2 {@link FINE_MIP_SLACK}. */
export const BLEND_KNEE = 1 - 2 * FINE_MIP_SLACK;
