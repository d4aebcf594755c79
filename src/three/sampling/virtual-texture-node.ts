import { float, If, nodeObject, uv, vec4 } from 'three/tsl';
import { Node, type NodeBuilder } from 'three/webgpu';
import { TesseraConfigError, TesseraError } from '../../core/errors';
import { buildsFragmentStage, materialOfBuilder, moveIfToStackEnd } from '../three-internals';
import type { VirtualUv } from './sampling-context';
import { buildDebugGraph, type VirtualTextureDebugOptions } from './virtual-texture-debug';
import {
  buildSampleGraph,
  footprint,
  requestedPageId,
  ruleOf,
  type SampledVirtualTexture,
  toVirtualUv,
  type VirtualTextureUvSpace,
} from './virtual-texture-graph';

// biome-ignore lint/suspicious/noExplicitAny: TSL node graph values.
type Expr = any;

/** Options of {@link virtualTexture}. */
export interface VirtualTextureSampleOptions {
  /**
   * What uv [0, 1] addresses: `'image'` (default) the content rectangle, v up as three's
   * `TextureLoader`; `'virtual'` the whole padded texture in page order (v down). See
   * {@link VirtualTextureUvSpace}.
   */
  uvSpace?: VirtualTextureUvSpace;
  /**
   * In the `'image'` space, whether v runs up (uv (0, 0) = the image's bottom-left), as three's
   * `Texture.flipY` (true for `TextureLoader`, the default). Pass `false` for meshes whose uvs
   * follow glTF's top-left origin (three's `GLTFLoader` loads their textures with `flipY = false`).
   */
  flipY?: boolean;
  /**
   * Added to the mip every pixel reads and requests, in mips, like a sampler's LOD bias (2 shows and
   * streams mip 2 where mip 0 would be read; negative values sharpen). Default 0.
   */
  lodBias?: number;
}

/**
 * The node {@link virtualTexture} returns: a `vec4` TSL node (use it wherever a colour node goes),
 * with the methods of a {@link VirtualTextureNode}.
 */
export type VirtualTextureSampleNode = import('three/webgpu').Node<'vec4'> & {
  /** The sampled virtual texture. */
  readonly vt: SampledVirtualTexture;
  /** Pool layer sampled. */
  readonly layerIndex: number;
  /** What uv [0, 1] addresses. */
  readonly uvSpace: VirtualTextureUvSpace;
  /** A node sampling the layer called `name` of the same virtual texture at the same uv. */
  layer(name: string): VirtualTextureSampleNode;
  /** The same sampling with debug overlays drawn over it (assign it and set `material.needsUpdate`). */
  withDebugViews(options: VirtualTextureDebugOptions): VirtualTextureSampleNode;
};

/**
 * TSL node sampling one layer of a virtual texture. Usable wherever a colour node is (colorNode,
 * normalNode through a normal-map node, roughnessNode via `.g`, ...). Compiling it registers its
 * material with the feedback pass, so page requests follow whatever the material draws.
 */
export class VirtualTextureNode extends Node {
  /** three's node type name (node serialization and debugging). */
  static get type(): string {
    return 'VirtualTextureNode';
  }

  /** The sampled virtual texture. */
  readonly vt: SampledVirtualTexture;
  /** Texture coordinates (vec2) as given, in {@link uvSpace}. */
  readonly uvNode: Node<'vec2'>;
  /** What uv [0, 1] addresses. */
  readonly uvSpace: VirtualTextureUvSpace;
  /** Layer index sampled. */
  readonly layerIndex: number;
  /** Debug overlays drawn over the colour, or null. */
  readonly debugOptions: VirtualTextureDebugOptions | null;
  /** {@link uvNode} in the texture's own space; shared with derived nodes so the feedback sees one source. */
  private readonly virtualUv: VirtualUv;

  constructor(
    vt: SampledVirtualTexture,
    uvNode: Node<'vec2'>,
    layerIndex = 0,
    debugOptions: VirtualTextureDebugOptions | null = null,
    uvSpace: VirtualTextureUvSpace = 'image',
    virtualUv: VirtualUv = toVirtualUv(vt, uvNode, uvSpace),
  ) {
    super('vec4');
    this.vt = vt;
    this.uvNode = uvNode;
    this.uvSpace = uvSpace;
    this.layerIndex = layerIndex;
    this.debugOptions = debugOptions;
    this.virtualUv = virtualUv;
  }

  /** A node sampling the layer called `name` of the same virtual texture at the same uv. */
  layer(name: string): VirtualTextureSampleNode {
    return this.derive(this.vt.layerIndex(name), this.debugOptions);
  }

  /**
   * The same sampling with debug overlays (resident mip colours, page borders) drawn over it; the
   * material keeps driving the feedback pass. Assign it and set `material.needsUpdate`.
   */
  withDebugViews(options: VirtualTextureDebugOptions): VirtualTextureSampleNode {
    return this.derive(this.layerIndex, options);
  }

  /**
   * The node id and the system's graph version: a filtering change or pool reallocation changes
   * the key, so three rebuilds (rather than reuses) the programs of materials using this node.
   */
  override customCacheKey(): number {
    return this.id * 0x10000 + (this.vt.context.version & 0xffff);
  }

  /**
   * Builds the sampling graph when three builds a material using this node: registers the material
   * for feedback and returns the sampled colour, or the debug overlays (transparent black once the
   * texture is removed).
   */
  override setup(builder: NodeBuilder): Node {
    const material = materialOfBuilder(builder);
    if (material) this.vt.context.registerMaterial(material, this.vt.id, this.virtualUv);
    // A removed texture has no page table any more: transparent black, like an empty entry.
    if (this.vt.removed) return vec4(0);
    const vt = this.vt;
    const debug = this.debugOptions;
    const fp = footprint(vt, this.virtualUv, ruleOf(vt).anisotropy);
    const debugView = debug !== null && (debug.mipColours === true || debug.tileBorders === true);
    const colour = debugView
      ? buildDebugGraph(vt, this.layerIndex, this.virtualUv, debug)
      : buildSampleGraph(vt, this.layerIndex, this.virtualUv, fp);
    const writeRequest = vt.context.requestWriter;
    if (writeRequest !== null && buildsFragmentStage(builder)) {
      // Main-pass feedback: the pixel also records the page it needs, in a statement moved to the
      // end of the fragment shader, after every discard three emits (alpha test, alpha map, mask,
      // alpha hash): a fragment the material discards writes nothing. The page id is built in the
      // write's branch (one pixel per tile pays for it) from the footprint the sample already took,
      // so no derivative is taken there; a debug view samples through its own footprint, so its
      // page id is a variable at the top level, where derivatives are allowed.
      const topLevel: Expr = debugView ? (requestedPageId(vt, fp, float(0)) as Expr).toVar() : null;
      const pageId = () => topLevel ?? requestedPageId(vt, fp, float(0));
      const transparent = material?.transparent === true;
      const mask = this.virtualUv.requestMask as Expr;
      // A masked request is one more condition around the write (still moved to the end).
      moveIfToStackEnd(
        mask === undefined
          ? writeRequest(pageId, vt.id, transparent)
          : If(mask, () => {
              writeRequest(pageId, vt.id, transparent);
            }),
      );
    }
    return colour;
  }

  private derive(layerIndex: number, debug: VirtualTextureDebugOptions | null): VirtualTextureSampleNode {
    const node = new VirtualTextureNode(
      this.vt,
      this.uvNode,
      layerIndex,
      debug,
      this.uvSpace,
      this.virtualUv,
    );
    return nodeObject(node) as unknown as VirtualTextureSampleNode;
  }
}

/**
 * Samples virtual texture `vt` at `uvNode` (default: the mesh's first uv set, in the image's
 * space: uv [0, 1] shows exactly the baked image, oriented as three's `TextureLoader` shows it);
 * layer 0 unless `.layer(name)` is called on the result.
 *
 * ```ts
 * material.colorNode = virtualTexture(vt);
 * material.normalNode = normalMap(virtualTexture(vt).layer('normal'));
 * terrain.colorNode = virtualTexture(vt, worldUv, { uvSpace: 'virtual' }); // the whole padded space
 * ```
 * @throws TesseraError('unknown-texture') for a texture removed with `VirtualTextureSystem.remove`.
 */
export function virtualTexture(
  vt: SampledVirtualTexture,
  uvNode: Node<'vec2'> = uv(),
  options: VirtualTextureSampleOptions = {},
): VirtualTextureSampleNode {
  if (vt.removed) {
    throw new TesseraError('unknown-texture', 'this virtual texture was removed from its system');
  }
  const space = options.uvSpace ?? 'image';
  const lodBias = options.lodBias ?? 0;
  if (!Number.isFinite(lodBias)) {
    throw new TesseraConfigError('invalid-option', `lodBias must be finite, got ${lodBias}`);
  }
  const node = new VirtualTextureNode(
    vt,
    uvNode,
    0,
    null,
    space,
    toVirtualUv(vt, uvNode, space, options.flipY ?? true, lodBias),
  );
  return nodeObject(node) as unknown as VirtualTextureSampleNode;
}
