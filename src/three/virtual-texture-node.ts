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
  nodeObject,
  texture,
  textureLoad,
  uint,
  uv,
  vec2,
  vec4,
} from 'three/tsl';
import { Node, type NodeBuilder } from 'three/webgpu';
import type { SamplingContext } from './sampling-context';
import { materialOfBuilder } from './three-internals';
import { buildDebugGraph, type VirtualTextureDebugOptions } from './virtual-texture-debug';

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
  /** The r32uint page-table texture (one level per mip). */
  readonly pageTableTexture: import('three').DataTexture;
  /** The system's sampling context. */
  readonly context: SamplingContext;
  /** Layer index of `name`; throws a TesseraError for an unknown name. */
  layerIndex(name: string): number;
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

export function footprint(vt: SampledVirtualTexture, uvNode: Expr, maxAnisotropy: number): Footprint {
  const payload = vt.tileSize - 2 * vt.border;
  // Keep uv inside [0, 1) so floor() never names page w (uv = 1 exactly at the far edge).
  const uvc = clamp(uvNode, vec2(0), vec2(1 - 1 / (1 << 24)));
  const texels = uvNode.mul(vec2(vt.widthPages * payload, vt.heightPages * payload));
  const dx = dFdx(texels);
  const dy = dFdy(texels);
  const lx = length(dx);
  const ly = length(dy);
  const pMax = max(max(lx, ly), float(1e-8));
  const pMin = max(min(lx, ly), float(1e-8));
  const lambdaIso = log2(pMax);
  const lambdaAniso = log2(max(pMin, pMax.div(maxAnisotropy)));
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
  anisotropic: boolean,
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
  const atlasUv = texel.div(poolSize);
  const poolTexture = ctx.poolTextures[layer];
  const pool: Expr =
    arrayLayer === null
      ? texture(poolTexture, atlasUv)
      : texture(poolTexture, atlasUv).depth(int(arrayLayer));
  let colour: Expr;
  if (anisotropic) {
    // Gradients in pool uv at the resident mip, capped so the footprint stays inside the border.
    const scale = exp2(residentF.negate());
    const limit = float(Math.max(1, 2 * vt.border));
    const gx = fp.dx.mul(scale);
    const gy = fp.dy.mul(scale);
    const gxc = gx.mul(min(float(1), limit.div(max(length(gx), float(1e-8)))));
    const gyc = gy.mul(min(float(1), limit.div(max(length(gy), float(1e-8)))));
    colour = pool.grad(gxc.div(poolSize), gyc.div(poolSize));
  } else {
    colour = pool.level(int(0));
  }
  // An empty entry (nothing resident yet, before the pinned mips load) shows transparent black.
  return mix(colour, vec4(0), empty);
}

/** Shader expression of the filtered colour of one layer of `vt` at `uvNode`. */
export function buildSampleGraph(vt: SampledVirtualTexture, layer: number, uvNode: Expr): Expr {
  const ctx = vt.context;
  const maxMip = vt.mipCount - 1;
  const mode = ctx.filtering;
  const fp = footprint(vt, uvNode, mode === 'anisotropic' ? ctx.maxAnisotropy : 1);
  if (mode === 'bilinear') {
    const mipF = clamp(floor(fp.lambdaIso.add(0.5)), 0, maxMip);
    return sampleAtMip(vt, layer, fp, mipF, false);
  }
  const lambda = clamp(mode === 'anisotropic' ? fp.lambdaAniso : fp.lambdaIso, 0, maxMip);
  const fine = floor(lambda);
  const coarse = min(fine.add(1), maxMip);
  const blend = lambda.sub(fine);
  const anisotropic = mode === 'anisotropic';
  return mix(
    sampleAtMip(vt, layer, fp, fine, anisotropic),
    sampleAtMip(vt, layer, fp, coarse, anisotropic),
    blend,
  );
}

/**
 * Shader expression of the page request of one pixel, as RGBA8 bytes of the packed page id
 * (x:12 | y:12 | mip:4 | vt:4, little-endian: red = bits 0-7). Used by the feedback pass, which
 * renders at 1/feedbackScale of the screen: its derivatives are feedbackScale times too large.
 */
export function buildFeedbackGraph(vt: SampledVirtualTexture, uvNode: Expr): Expr {
  const ctx = vt.context;
  const maxMip = vt.mipCount - 1;
  const fp = footprint(vt, uvNode, ctx.maxAnisotropy);
  const lambda = fp.lambdaAniso.sub(Math.log2(ctx.feedbackScale)).add(ctx.mipBias);
  const mipF = clamp(floor(lambda), 0, maxMip);
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

/**
 * TSL node sampling one layer of a virtual texture. Usable wherever a colour node is (colorNode,
 * normalNode through a normal-map node, roughnessNode via `.g`, ...). Compiling it registers its
 * material with the feedback pass, so page requests follow whatever the material draws.
 */
export class VirtualTextureNode extends Node {
  static get type(): string {
    return 'VirtualTextureNode';
  }

  /** The sampled virtual texture. */
  readonly vt: SampledVirtualTexture;
  /** Texture coordinates (vec2) in [0, 1] over the whole virtual texture. */
  readonly uvNode: Expr;
  /** Layer index sampled. */
  readonly layerIndex: number;
  /** Debug overlays drawn over the colour, or null. */
  readonly debugOptions: VirtualTextureDebugOptions | null;

  constructor(
    vt: SampledVirtualTexture,
    uvNode: Expr,
    layerIndex = 0,
    debugOptions: VirtualTextureDebugOptions | null = null,
  ) {
    super('vec4');
    this.vt = vt;
    this.uvNode = uvNode;
    this.layerIndex = layerIndex;
    this.debugOptions = debugOptions;
  }

  /** A node sampling the layer called `name` of the same virtual texture at the same uv. */
  layer(name: string): Expr {
    return nodeObject(
      new VirtualTextureNode(this.vt, this.uvNode, this.vt.layerIndex(name), this.debugOptions),
    );
  }

  /**
   * The same sampling with debug overlays (resident mip colours, page borders) drawn over it; the
   * material keeps driving the feedback pass. Assign it and set `material.needsUpdate`.
   */
  withDebugViews(options: VirtualTextureDebugOptions): Expr {
    return nodeObject(new VirtualTextureNode(this.vt, this.uvNode, this.layerIndex, options));
  }

  override setup(builder: NodeBuilder): Expr {
    const material = materialOfBuilder(builder);
    if (material) this.vt.context.registerMaterial(material, this.vt.id, this.uvNode);
    const debug = this.debugOptions;
    if (debug && (debug.mipColours || debug.tileBorders)) {
      return buildDebugGraph(this.vt, this.layerIndex, this.uvNode, debug);
    }
    return buildSampleGraph(this.vt, this.layerIndex, this.uvNode);
  }
}

/**
 * Samples virtual texture `vt` at `uvNode` (default: the mesh's first uv set); layer 0 unless
 * `.layer(name)` is called on the result.
 *
 * ```ts
 * material.colorNode = virtualTexture(vt);
 * material.normalNode = normalMap(virtualTexture(vt).layer('normal'));
 * ```
 */
export function virtualTexture(vt: SampledVirtualTexture, uvNode: Expr = uv()): Expr {
  return nodeObject(new VirtualTextureNode(vt, uvNode));
}
