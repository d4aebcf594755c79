import type { Texture } from 'three';
import { float, max, texture, vec2, vec3 } from 'three/tsl';
import type { Node } from 'three/webgpu';
import { TesseraConfigError } from '../../core/errors';
import type { WorldRect } from './rendered-tile-source';

// biome-ignore lint/suspicious/noExplicitAny: TSL node graph values.
type Expr = any;

/** One tiling detail texture of a {@link splatAlbedo} base. */
export interface SplatDetailLayer {
  /** An ordinary three.js texture (repeat wrapping, mipmapped), in sRGB or linear as three reads it. */
  texture: Texture;
  /** World units one repeat of the texture covers. */
  repeat: number;
}

/** Options of {@link splatAlbedo}. */
export interface SplatAlbedoOptions {
  /** Weights of up to four detail layers in its r, g, b, a channels, stretched over {@link world}. */
  splatMap: Texture;
  /** The detail layers, in splat channel order (1..4). */
  layers: readonly SplatDetailLayer[];
  /** The world rectangle the splat map covers (its row 0 at `world.y`), in world units. */
  world: WorldRect;
  /** Linear colour where every weight is 0 (water, for instance). Default mid grey. */
  emptyColor?: readonly [number, number, number];
}

/**
 * A splat-mapped base for a `RenderedLayer`: the detail textures blended by the splat map's
 * weights, each tiling at its own repeat, as a function of the texel's world position. Rendered
 * into a page at its mip, the GPU's mipmapping filters each detail texture to the page's texel
 * size (the derivatives are one page texel), so coarse pages average the detail instead of
 * aliasing it.
 * @throws TesseraConfigError('invalid-option') for no layers or more than four, or a repeat that is
 *   not positive.
 */
export function splatAlbedo(options: SplatAlbedoOptions): (worldPosition: Node) => Node {
  const { splatMap, layers, world } = options;
  if (layers.length < 1 || layers.length > 4 || !layers.every((l) => l.repeat > 0)) {
    throw new TesseraConfigError('invalid-option', 'a splat base needs 1..4 layers with positive repeats');
  }
  const empty = options.emptyColor ?? [0.2, 0.2, 0.2];
  return (worldPosition: Node) => {
    const p: Expr = worldPosition;
    const splatUv = p.sub(vec2(world.x, world.y)).div(vec2(world.width, world.height));
    const weights: Expr = texture(splatMap, splatUv);
    const channels = ['x', 'y', 'z', 'w'] as const;
    let sum: Expr = float(0);
    let colour: Expr = vec3(0);
    layers.forEach((layer, i) => {
      const w: Expr = weights[channels[i]];
      colour = colour.add((texture(layer.texture, p.div(layer.repeat)) as Expr).rgb.mul(w));
      sum = sum.add(w);
    });
    // Where the weights fade out (a shore), the empty colour fills the rest.
    const filled: Expr = colour.add(vec3(...empty).mul(max(float(1).sub(sum), 0)));
    return filled.div(max(sum, 1)) as Node;
  };
}
