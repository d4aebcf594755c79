import { abs, clamp, dFdx, dFdy, fract, max, mix, step, vec3, vec4 } from 'three/tsl';
import { MIP_HUE_STEP, MIP_PALETTE_SATURATION } from '../../core/vt/debug/mip-palette';
import type { VirtualUv } from './sampling-context';
import {
  buildSampleGraph,
  footprint,
  lookupPage,
  pagesAt,
  requestedMipNode,
  ruleOf,
  type SampledVirtualTexture,
} from './virtual-texture-graph';

// biome-ignore lint/suspicious/noExplicitAny: TSL node graph values.
type Expr = any;

/** Overlays a {@link VirtualTextureNode} can draw over its colour to show how it streams. */
export interface VirtualTextureDebugOptions {
  /**
   * Tints each pixel with the colour of the mip actually resident for it (the palette of
   * `MIP_COLOURS`), half as bright where that is a coarser fallback than the view asks for.
   */
  mipColours?: boolean;
  /** Draws the borders of the resident pages (about one pixel wide, yellow). */
  tileBorders?: boolean;
}

/** Mix weight of the mip tint over the texture colour (0..1). */
const MIP_TINT = 0.65;
/** Brightness of a pixel served by a coarser mip than it needs (0..1). */
const FALLBACK_BRIGHTNESS = 0.5;
/** Border line half-width, in pixels. */
const BORDER_PIXELS = 0.75;

/** The palette colour of mip `mipF` (float), as `writeMipColour` computes it on the CPU. */
function mipColour(mipF: Expr): Expr {
  const hue = mipF.mul(MIP_HUE_STEP);
  const pure = clamp(
    abs(
      fract(vec3(hue.add(1), hue.add(2 / 3), hue.add(1 / 3)))
        .mul(6)
        .sub(3),
    ).sub(1),
    0,
    1,
  );
  return pure.mul(MIP_PALETTE_SATURATION).add(1 - MIP_PALETTE_SATURATION);
}

/**
 * Shader expression of layer `layer` of `vt` at `uvNode` with the overlays of `options` drawn over
 * it. The mip the view needs is the bilinear one (the feedback pass's choice without its bias).
 */
export function buildDebugGraph(
  vt: SampledVirtualTexture,
  layer: number,
  vuv: VirtualUv,
  options: VirtualTextureDebugOptions,
): Expr {
  let colour: Expr = buildSampleGraph(vt, layer, vuv);
  // The mip the view needs: what the feedback requests (the same rule), without the bias.
  const rule = ruleOf(vt);
  const fp = footprint(vt, vuv, rule.anisotropy);
  const neededF = requestedMipNode(
    rule,
    rule.anisotropy > 1 ? fp.lambdaAniso : fp.lambdaIso,
    vt.mipCount - 1,
  );
  const { residentF, empty } = lookupPage(vt, fp.uvc, neededF).fine;
  if (options.mipColours) {
    const fallback = step(neededF.add(0.5), residentF);
    const tint = mipColour(residentF).mul(mix(1, FALLBACK_BRIGHTNESS, fallback));
    colour = vec4(mix(colour.rgb, tint, MIP_TINT), colour.a);
  }
  if (options.tileBorders) {
    // Page coordinates at the resident mip; their screen derivatives give a line width of about
    // one pixel, and a change of resident mip between neighbours draws a border too.
    const pc = fp.uvc.mul(pagesAt(vt, residentF));
    const width = abs(dFdx(pc))
      .add(abs(dFdy(pc)))
      .mul(BORDER_PIXELS);
    const local = fract(pc);
    const near: Expr = max(step(local, width), step(local.oneMinus(), width));
    const line = max(near.x, near.y);
    colour = vec4(mix(colour.rgb, vec3(1, 0.85, 0), line), colour.a);
  }
  return mix(colour, vec4(0), empty);
}
