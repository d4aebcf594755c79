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
  select,
  sqrt,
  step,
  texture,
  textureLoad,
  uint,
  vec2,
  vec4,
} from 'three/tsl';
import { anisotropicTaps, BLEND_KNEE, type MipRule, mipRule } from '../../core/vt/feedback/mip-rule';
import type { PageTableGeometry } from '../../core/vt/page-table/page-table-blocks';
import type { SamplingContext, VirtualUv } from './sampling-context';

// TSL's generic node types are not worth fighting here: every value below is a shader expression.
// biome-ignore lint/suspicious/noExplicitAny: TSL node graph values.
type Expr = any;

/** What a sampling node needs to know about one virtual texture (a {@link VirtualTexture}). */
export interface SampledVirtualTexture {
  /** Index written into page ids (0..15). */
  readonly id: number;
  /** Width of mip 0, in pages. */
  readonly widthPages: number;
  /** Height of mip 0, in pages. */
  readonly heightPages: number;
  /** Number of mip levels. */
  readonly mipCount: number;
  /** Side of a page in the pool, border included, in texels. */
  readonly tileSize: number;
  /** Border texels on each side of a page. */
  readonly border: number;
  /** Texels of mip 0 holding content from the left edge (the rest is padding). */
  readonly contentWidth: number;
  /** Texels of mip 0 holding content from the top edge (the rest is padding). */
  readonly contentHeight: number;
  /** The page table's indirection (r32uint, one level per mip below the tail; see page-table-blocks.ts). */
  readonly pageTableIndirection: import('three').DataTexture;
  /** The page table's block atlas (rg32uint: each entry and its parent's entry). */
  readonly pageTableAtlas: import('three').DataTexture;
  /** Block geometry of the page table (tail mip; dense tables' fixed block placement). */
  readonly pageTableGeometry: PageTableGeometry;
  /** @internal the system's sampling context. */
  readonly context: SamplingContext;
  /** True once `VirtualTextureSystem.remove` released it: nodes draw transparent black, request nothing. */
  readonly removed: boolean;
  /** Layer index of `name`; throws a TesseraError for an unknown name. */
  layerIndex(name: string): number;
  /** True when pool layer `layer` holds a normal map with y in alpha (`NormalChannels` 'red-alpha'). */
  normalYInAlpha(layer: number): boolean;
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
  // Clamp to the content (or just under 1): padding is never sampled, page w never named. A
  // repeating texture wraps u first (u - floor(u / period) * period: WGSL's % truncates).
  const period = vuv.wrapU;
  const wrapped: Expr =
    period === undefined ? uvNode : vec2(uvNode.x.sub(floor(uvNode.x.div(period)).mul(period)), uvNode.y);
  const uvc = clamp(wrapped, vec2(0), vec2(vuv.maxU, vuv.maxV));
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

/** Both entries one page-table fetch gives: the page's and its parent's (trilinear's coarser mip). */
export interface PageLookupPair {
  fine: PageLookup;
  /** Entry of the parent page at `mipF + 1` (the page's own at the coarsest mip). */
  coarse: PageLookup;
}

function decodeEntry(entry: Expr): PageLookup {
  return {
    slot: entry.bitAnd(uint(0xffff)),
    residentF: entry.shiftRight(uint(16)).bitAnd(uint(0xf)).toFloat(),
    empty: entry.shiftRight(uint(31)).toFloat(),
  };
}

/**
 * Reads the sparse page table (src/core/vt/page-table/page-table.ts) for the page holding `uvc` at mip
 * `mipF`: the indirection cell of its 16 x 16-page block (none for tail mips, whose blocks are
 * fixed) points at the finest stored block covering it, at mip k >= mipF; one atlas fetch there
 * gives the entry and its parent's. When k > mipF the page's block is not stored, so its entry and
 * its parent's are both the entry at k.
 */
export function lookupPage(vt: SampledVirtualTexture, uvc: Expr, mipF: Expr): PageLookupPair {
  const pages = pagesAt(vt, mipF);
  const page: Expr = min(floor(uvc.mul(pages)), pages.sub(1));
  const px: Expr = page.x.toUint();
  const py: Expr = page.y.toUint();
  const m: Expr = uint(mipF);
  const geometry = vt.pageTableGeometry;
  const tail = geometry.tailMip;
  let block: Expr;
  let k: Expr;
  if (tail === 0) {
    block = m;
    k = m;
  } else if (geometry.dense) {
    // Every block stored at a fixed place: computed, no indirection fetch (one texture read).
    let base: Expr = uint(geometry.denseBase[tail - 1]);
    for (let j = tail - 2; j >= 0; j--) {
      base = (select as Expr)(m.equal(uint(j)), uint(geometry.denseBase[j]), base);
    }
    // A variable: three's GLSL writes nested selects as unparenthesised ternaries, `a ? b : c + d`.
    base = base.toVar();
    const cellsPerRow: Expr = (max as Expr)(uint(geometry.indirectionWidth).shiftRight(m), uint(1));
    const own: Expr = base.add(py.shiftRight(uint(4)).mul(cellsPerRow)).add(px.shiftRight(uint(4)));
    block = (select as Expr)(m.greaterThanEqual(uint(tail)), m.sub(uint(tail)), own)
      .uniformFlow()
      .toVar();
    k = m;
  } else {
    const level: Expr = (min as Expr)(m, uint(tail - 1));
    // A tail mip's page is < 16: cell (0, 0) of the last level, in range, and not used.
    const cell: Expr = (ivec2 as Expr)(px.shiftRight(uint(4)), py.shiftRight(uint(4)));
    // Fetched for every pixel (a tail mip reads a valid, unused cell) and chosen between with
    // WGSL/GLSL select (uniformFlow), not if/else: branches made the backend fetch it once per
    // branch, and a branch-free pixel costs less on every GPU.
    const pointer: Expr = (textureLoad as Expr)(vt.pageTableIndirection, cell, level).x.toUint().toVar();
    const inTail: Expr = m.greaterThanEqual(uint(tail));
    block = (select as Expr)(inTail, m.sub(uint(tail)), pointer.bitAnd(uint(0xfffff)))
      .uniformFlow()
      .toVar();
    k = (select as Expr)(inTail, m, pointer.shiftRight(uint(20)))
      .uniformFlow()
      .toVar();
  }
  const shift: Expr = k.sub(m);
  const lx: Expr = px.shiftRight(shift).bitAnd(uint(15));
  const ly: Expr = py.shiftRight(shift).bitAnd(uint(15));
  const ax: Expr = block.bitAnd(uint(15)).shiftLeft(uint(4)).add(lx);
  const ay: Expr = block.shiftRight(uint(4)).shiftLeft(uint(4)).add(ly);
  const pair: Expr = (textureLoad as Expr)(vt.pageTableAtlas, (ivec2 as Expr)(ax, ay), int(0));
  const entry: Expr = pair.x.toUint();
  const parent: Expr = (select as Expr)(k.equal(m), pair.y.toUint(), entry).uniformFlow().toVar();
  return { fine: decodeEntry(entry), coarse: decodeEntry(parent) };
}

/**
 * One sample of layer `layer` through page-table entry `lookup`: the entry names the slot and the
 * (possibly coarser than asked) resident mip; the offset inside the tile comes from uv at that
 * resident mip.
 */
function sampleEntry(
  vt: SampledVirtualTexture,
  layer: number,
  fp: Footprint,
  lookup: PageLookup,
  taps: number,
): Expr {
  const ctx = vt.context;
  const payload = vt.tileSize - 2 * vt.border;
  const { slot, residentF, empty } = lookup;
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
  // An empty entry (nothing resident: before the pinned mips load, or when they failed, e.g. with
  // no transcoder) shows the mid-grey placeholder streamed textures bind, not black that reads as
  // content; a normal map stored with y in alpha gets alpha 0.5 too, so it decodes as flat.
  const placeholder = vec4(0.5, 0.5, 0.5, vt.normalYInAlpha(layer) ? 0.5 : 1);
  return mix(colour, placeholder, empty);
}

/** The mip rule of `vt`'s system (see src/core/vt/feedback/mip-rule.ts). */
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
 * Shader expression of the filtered colour of one layer of `vt` at `uvNode`. A normal map stored
 * as two channels gets its z rebuilt, `sqrt(1 - x² - y²)` in the [-1, 1] encoding, so it reads as
 * the rgb normal map `normalMap()` expects, alpha 1: a two-channel pool layer (BC5, EAC RG11) holds
 * x and y in red and green; a four-channel one holding a normal map with y in alpha (BC7, ASTC,
 * rgba8 of a 'red-alpha' layer) in red and alpha.
 */
export function buildSampleGraph(
  vt: SampledVirtualTexture,
  layer: number,
  vuv: VirtualUv,
  fp: Footprint = footprint(vt, vuv, ruleOf(vt).anisotropy),
): Expr {
  const filtered = filteredSample(vt, layer, fp);
  const format = (vt.context.poolTextures[layer] as { format: number }).format;
  const twoChannel = format === RED_GREEN_RGTC2_Format || format === RG11_EAC_Format;
  if (!twoChannel && !vt.normalYInAlpha(layer)) return filtered;
  const stored: Expr = twoChannel ? filtered.xy : vec2(filtered.x, filtered.w);
  const xy: Expr = stored.mul(2).sub(1);
  const z: Expr = sqrt(max(float(1).sub(xy.dot(xy)), 0));
  return vec4(stored.x, stored.y, z.mul(0.5).add(0.5), 1);
}

function filteredSample(vt: SampledVirtualTexture, layer: number, fp: Footprint): Expr {
  const rule = ruleOf(vt);
  const maxMip = vt.mipCount - 1;
  const taps = anisotropicTaps(rule);
  if (!rule.blends) {
    return sampleEntry(
      vt,
      layer,
      fp,
      lookupPage(vt, fp.uvc, requestedMipNode(rule, fp.lambdaIso, maxMip)).fine,
      1,
    );
  }
  const lambda = clamp(ruleLambda(rule, fp), 0, maxMip);
  const fine = floor(lambda);
  // trilinearBlend: the fine mip weighs nothing within FINE_MIP_SLACK of the coarser one.
  const fraction = lambda.sub(fine);
  const blend = min(max(fraction, fraction.mul(2).sub(BLEND_KNEE)), 1);
  // One page-table fetch serves both mips: the entry carries its parent's (the coarser mip's).
  const pair = lookupPage(vt, fp.uvc, fine);
  return mix(
    sampleEntry(vt, layer, fp, pair.fine, taps),
    sampleEntry(vt, layer, fp, pair.coarse, taps),
    blend,
  );
}

/**
 * Shader expression (uint) of the packed page id (x:12 | y:12 | mip:4 | vt:4) the pixel at `fp`
 * requests: the mip rule's mip for the footprint, less `lodOffset` (mips: the separate pass's
 * derivatives are per feedback pixel, so larger than the screen's), plus the residency mip bias.
 */
export function requestedPageId(vt: SampledVirtualTexture, fp: Footprint, lodOffset: Expr): Expr {
  const ctx = vt.context;
  const rule = ruleOf(vt);
  const lambda = ruleLambda(rule, fp).sub(lodOffset).add(ctx.mipBias);
  const mipF = requestedMipNode(rule, lambda, vt.mipCount - 1);
  const pages = pagesAt(vt, mipF);
  const page: Expr = min(floor(fp.uvc.mul(pages)), pages.sub(1));
  return page.x
    .toUint()
    .bitOr(page.y.toUint().shiftLeft(uint(12)))
    .bitOr(mipF.toUint().shiftLeft(uint(24)))
    .bitOr(uint(vt.id << 28));
}

/**
 * Shader expression of the page request of one pixel, as RGBA8 bytes of the packed page id
 * (little-endian: red = bits 0-7). Used by the separate feedback pass, which renders at
 * 1/feedbackScale of the screen: its derivatives are feedbackScale times too large.
 */
export function buildFeedbackGraph(vt: SampledVirtualTexture, vuv: VirtualUv): Expr {
  // A removed texture requests nothing (white = NO_REQUEST): its page table is gone.
  if (vt.removed) return vec4(1);
  const fp = footprint(vt, vuv, ruleOf(vt).anisotropy);
  const id: Expr = requestedPageId(vt, fp, vt.context.feedbackLodOffset);
  const r = id.bitAnd(uint(255));
  const g = id.shiftRight(uint(8)).bitAnd(uint(255));
  const b = id.shiftRight(uint(16)).bitAnd(uint(255));
  const a = id.shiftRight(uint(24));
  const request = vec4(r.toFloat(), g.toFloat(), b.toFloat(), a.toFloat()).div(255);
  return vuv.requestMask === undefined ? request : select(vuv.requestMask as Expr, request, vec4(1));
}
