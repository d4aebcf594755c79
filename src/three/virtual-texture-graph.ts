import { RED_GREEN_RGTC2_Format, RG11_EAC_Format } from 'three';
import {
  clamp,
  dFdx,
  dFdy,
  exp2,
  float,
  floor,
  int,
  ivec2,
  length,
  log2,
  max,
  min,
  mix,
  sqrt,
  step,
  texture,
  textureLoad,
  uint,
  vec2,
  vec4,
} from 'three/tsl';
import { anisotropicTaps, BLEND_KNEE, type MipRule, mipRule } from '../core/vt/mip-rule';
import type { SamplingContext, VirtualUv } from './sampling-context';

// TSL's generic node types are not worth fighting here: every value below is a shader expression.
// biome-ignore lint/suspicious/noExplicitAny: TSL node graph values.
type Expr = any;

/** What a sampling node needs to know about one virtual texture (a {@link VirtualTexture}). */
export interface SampledVirtualTexture {
  /** Index written into page ids (0..15). */
  readonly id: number;
  readonly widthPages: number;
  readonly heightPages: number;
  readonly mipCount: number;
  readonly tileSize: number;
  readonly border: number;
  /** Texels of mip 0 holding content from the left edge (the rest is padding). */
  readonly contentWidth: number;
  /** Texels of mip 0 holding content from the top edge (the rest is padding). */
  readonly contentHeight: number;
  /** The r32uint page-table texture (one level per mip). */
  readonly pageTableTexture: import('three').DataTexture;
  /** The system's sampling context. */
  readonly context: SamplingContext;
  /** True once `VirtualTextureSystem.remove` released it: nodes draw transparent black, request nothing. */
  readonly removed: boolean;
  /** Layer index of `name`; throws a TesseraError for an unknown name. */
  layerIndex(name: string): number;
}

/**
 * What uv [0, 1] addresses in a virtual texture.
 * - `'image'` (the default): exactly the content rectangle (a baked image edge to edge, its padding
 *   never shown), v up as three's `TextureLoader` (`flipY`): uv (0, 0) is the bottom-left texel of
 *   the image, the same texel `new TextureLoader().load(sameImage)` shows there. uv outside [0, 1]
 *   clamps to the edge, like `ClampToEdgeWrapping`.
 * - `'virtual'`: the whole padded virtual texture, v down in page order: uv (0, 0) is the top-left
 *   texel of page (0, 0), uv (1, 1) the far corner of the last page.
 */
export type VirtualTextureUvSpace = 'image' | 'virtual';

/** Largest uv strictly below 1 in float32, so floor() never names page w at the far edge. */
const BELOW_ONE = 1 - 1 / (1 << 24);

/**
 * Maps `uvNode` in `space` onto the virtual texture's own uv space (see
 * {@link VirtualTextureUvSpace}); `flipY` (image space only) as three's `Texture.flipY`.
 */
export function toVirtualUv(
  vt: SampledVirtualTexture,
  uvNode: Expr,
  space: VirtualTextureUvSpace,
  flipY = true,
  lodBias = 0,
): VirtualUv {
  if (space === 'virtual') return { uv: uvNode, maxU: BELOW_ONE, maxV: BELOW_ONE, lodBias };
  const payload = vt.tileSize - 2 * vt.border;
  const su = vt.contentWidth / (vt.widthPages * payload);
  const sv = vt.contentHeight / (vt.heightPages * payload);
  return {
    uv: vec2(uvNode.x.mul(su), (flipY ? float(1).sub(uvNode.y) : uvNode.y).mul(sv)),
    maxU: Math.min(su, BELOW_ONE),
    maxV: Math.min(sv, BELOW_ONE),
    lodBias,
  };
}

/** Derivative-based inputs shared by the sampling and feedback graphs (computed before any lookup). */
export interface Footprint {
  uvc: Expr;
  /** Texel-space (mip 0 payload texels) derivatives per pixel. */
  dx: Expr;
  dy: Expr;
  /** log2 of the isotropic footprint (longer axis), in mip levels. */
  lambdaIso: Expr;
  /** log2 of the anisotropic footprint max(short, long / maxAniso), in mip levels. */
  lambdaAniso: Expr;
}

/** Footprint of `vuv` on `vt`: derivatives from the unclamped uv, lookups at the clamped one. */
export function footprint(vt: SampledVirtualTexture, vuv: VirtualUv, maxAnisotropy: number): Footprint {
  const payload = vt.tileSize - 2 * vt.border;
  const uvNode: Expr = vuv.uv;
  // Clamp to the content (or just under 1): padding is never sampled, page w never named.
  const uvc = clamp(uvNode, vec2(0), vec2(vuv.maxU, vuv.maxV));
  const texels = uvNode.mul(vec2(vt.widthPages * payload, vt.heightPages * payload));
  const dx = dFdx(texels);
  const dy = dFdy(texels);
  const lx = length(dx);
  const ly = length(dy);
  const pMax = max(max(lx, ly), float(1e-8));
  const pMin = max(min(lx, ly), float(1e-8));
  // A LOD bias moves sampling and feedback together, so what is requested is what is read.
  const bias = vuv.lodBias ?? 0;
  const lambdaIso = bias === 0 ? log2(pMax) : log2(pMax).add(bias);
  const aniso = log2(max(pMin, pMax.div(maxAnisotropy)));
  const lambdaAniso = bias === 0 ? aniso : aniso.add(bias);
  return { uvc, dx, dy, lambdaIso, lambdaAniso };
}

/**
 * Pages of the virtual texture at mip `mipF` (a float holding an integer), as a vec2. Integer
 * shifts, not exp2: an approximate exp2 (SwiftShader's) would scale uv slightly wrong and misplace
 * texels by a fraction at high page counts.
 */
export function pagesAt(vt: SampledVirtualTexture, mipF: Expr): Expr {
  const shift: Expr = uint(mipF);
  const w = (max as Expr)(uint(vt.widthPages).shiftRight(shift), uint(1)).toFloat();
  const h = (max as Expr)(uint(vt.heightPages).shiftRight(shift), uint(1)).toFloat();
  return vec2(w, h);
}

/** Page-table entry of the page holding `uvc` at integer mip `mipF`, decoded. */
export interface PageLookup {
  /** Pool slot (uint). */
  slot: Expr;
  /** Mip actually resident for that page (the finest of itself and its ancestors), as a float. */
  residentF: Expr;
  /** 1.0 when nothing is resident yet (before the pinned mips load), else 0.0. */
  empty: Expr;
}

/** Reads and decodes the page-table entry of the page holding `uvc` at mip `mipF`. */
export function lookupPage(vt: SampledVirtualTexture, uvc: Expr, mipF: Expr): PageLookup {
  const pages = pagesAt(vt, mipF);
  const page = min(floor(uvc.mul(pages)), pages.sub(1));
  const entry = (textureLoad as Expr)(vt.pageTableTexture, (ivec2 as Expr)(page), int(mipF)).x.toUint();
  return {
    slot: entry.bitAnd(uint(0xffff)),
    residentF: entry.shiftRight(uint(16)).bitAnd(uint(0xf)).toFloat(),
    empty: entry.shiftRight(uint(31)).toFloat(),
  };
}

/**
 * One bilinear sample of layer `layer` at integer mip `mipF` through the page table: the entry
 * names the slot and the (possibly coarser) resident mip; the offset inside the tile comes from
 * uv at that resident mip.
 */
function sampleAtMip(
  vt: SampledVirtualTexture,
  layer: number,
  fp: Footprint,
  mipF: Expr,
  taps: number,
): Expr {
  const ctx = vt.context;
  const payload = vt.tileSize - 2 * vt.border;
  const { slot, residentF, empty } = lookupPage(vt, fp.uvc, mipF);
  const shape = ctx.poolShape;
  const perRow = uint(shape.slotsPerRow);
  // Array pools: slot -> (array layer, slot in that layer's grid) with integer division (exact),
  // never through float math.
  const arrayLayer: Expr = shape.arrayLayers > 1 ? slot.div(uint(shape.slotsPerRow * shape.slotRows)) : null;
  const inGrid: Expr =
    arrayLayer === null ? slot : slot.sub(arrayLayer.mul(uint(shape.slotsPerRow * shape.slotRows)));
  const slotY = inGrid.div(perRow);
  const slotX = inGrid.sub(slotY.mul(perRow));
  const residentPages = pagesAt(vt, residentF);
  const pc = fp.uvc.mul(residentPages);
  const local = pc.sub(floor(pc));
  const texel = vec2(slotX.toFloat(), slotY.toFloat())
    .mul(vt.tileSize)
    .add(vt.border)
    .add(local.mul(payload));
  const poolSize = vec2(ctx.poolWidth, ctx.poolHeight);
  const poolTexture = ctx.poolTextures[layer];
  const poolSample = (at: Expr): Expr => {
    const sample: Expr = texture(poolTexture, at.div(poolSize));
    return (arrayLayer === null ? sample : sample.depth(int(arrayLayer))).level(int(0));
  };
  let colour: Expr;
  if (taps > 1) {
    // Explicit anisotropy (the pool has no mips, so the GPU sampler cannot): `taps` bilinear taps
    // spread along the footprint's major axis, in texels of the resident mip, each kept inside
    // this tile (its border holds the neighbours' texels, so any point of the tile is right).
    const scale = exp2(residentF.negate());
    const gx = fp.dx.mul(scale);
    const gy = fp.dy.mul(scale);
    const major: Expr = mix(gy, gx, step(length(gy), length(gx)));
    const origin: Expr = vec2(slotX.toFloat(), slotY.toFloat()).mul(vt.tileSize);
    const lo: Expr = origin.add(0.5);
    const hi: Expr = origin.add(vt.tileSize - 0.5);
    let sum: Expr = vec4(0);
    for (let i = 0; i < taps; i++) {
      sum = sum.add(poolSample(clamp(texel.add(major.mul((i + 0.5) / taps - 0.5)), lo, hi)));
    }
    colour = sum.div(taps);
  } else {
    colour = poolSample(texel);
  }
  // An empty entry (nothing resident yet, before the pinned mips load) shows transparent black.
  return mix(colour, vec4(0), empty);
}

/** The mip rule of `vt`'s system (see src/core/vt/mip-rule.ts). */
export function ruleOf(vt: SampledVirtualTexture): MipRule {
  return mipRule(vt.context.filtering, vt.context.maxAnisotropy);
}

/** The footprint's lambda the rule reads: isotropic or anisotropic, in mips (no bias). */
function ruleLambda(rule: MipRule, fp: Footprint): Expr {
  return rule.anisotropy > 1 ? fp.lambdaAniso : fp.lambdaIso;
}

/** The mip `rule` requests for `lambda` (bias included), as a float holding an integer. */
export function requestedMipNode(rule: MipRule, lambda: Expr, maxMip: number): Expr {
  return clamp(floor(lambda.add(rule.requestOffset)), 0, maxMip);
}

/**
 * Shader expression of the filtered colour of one layer of `vt` at `uvNode`. A two-channel pool
 * layer (BC5, EAC RG11: a normal map's x and y) gets its z rebuilt, `sqrt(1 - x² - y²)` in the
 * [-1, 1] encoding, so it reads as the rgb normal map `normalMap()` expects; alpha reads 1.
 */
export function buildSampleGraph(vt: SampledVirtualTexture, layer: number, vuv: VirtualUv): Expr {
  const filtered = filteredSample(vt, layer, vuv);
  const format = (vt.context.poolTextures[layer] as { format: number }).format;
  if (format !== RED_GREEN_RGTC2_Format && format !== RG11_EAC_Format) return filtered;
  const xy: Expr = filtered.xy.mul(2).sub(1);
  const z: Expr = sqrt(max(float(1).sub(xy.dot(xy)), 0));
  return vec4(filtered.x, filtered.y, z.mul(0.5).add(0.5), 1);
}

function filteredSample(vt: SampledVirtualTexture, layer: number, vuv: VirtualUv): Expr {
  const rule = ruleOf(vt);
  const maxMip = vt.mipCount - 1;
  const fp = footprint(vt, vuv, rule.anisotropy);
  const taps = anisotropicTaps(rule);
  if (!rule.blends) return sampleAtMip(vt, layer, fp, requestedMipNode(rule, fp.lambdaIso, maxMip), 1);
  const lambda = clamp(ruleLambda(rule, fp), 0, maxMip);
  const fine = floor(lambda);
  const coarse = min(fine.add(1), maxMip);
  // trilinearBlend: the fine mip weighs nothing within FINE_MIP_SLACK of the coarser one.
  const fraction = lambda.sub(fine);
  const blend = min(max(fraction, fraction.mul(2).sub(BLEND_KNEE)), 1);
  return mix(sampleAtMip(vt, layer, fp, fine, taps), sampleAtMip(vt, layer, fp, coarse, taps), blend);
}

/**
 * Shader expression of the page request of one pixel, as RGBA8 bytes of the packed page id
 * (x:12 | y:12 | mip:4 | vt:4, little-endian: red = bits 0-7). Used by the feedback pass, which
 * renders at 1/feedbackScale of the screen: its derivatives are feedbackScale times too large.
 */
export function buildFeedbackGraph(vt: SampledVirtualTexture, vuv: VirtualUv): Expr {
  // A removed texture requests nothing (white = NO_REQUEST): its page table is gone.
  if (vt.removed) return vec4(1);
  const ctx = vt.context;
  const rule = ruleOf(vt);
  const fp = footprint(vt, vuv, rule.anisotropy);
  const lambda = ruleLambda(rule, fp).sub(ctx.feedbackLodOffset).add(ctx.mipBias);
  const mipF = requestedMipNode(rule, lambda, vt.mipCount - 1);
  const pages = pagesAt(vt, mipF);
  const page: Expr = min(floor(fp.uvc.mul(pages)), pages.sub(1));
  const x = page.x.toUint();
  const y = page.y.toUint();
  const mip = mipF.toUint();
  const r = x.bitAnd(uint(255));
  const g = x.shiftRight(uint(8)).bitOr(y.bitAnd(uint(15)).shiftLeft(uint(4)));
  const b = y.shiftRight(uint(4));
  const a = mip.bitOr(uint(vt.id << 4));
  return vec4(r.toFloat(), g.toFloat(), b.toFloat(), a.toFloat()).div(255);
}
