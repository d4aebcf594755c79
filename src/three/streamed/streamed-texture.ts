import type { ColorSpace, Material, Texture } from 'three';
import { texture as textureNode } from 'three/tsl';
import type { Node, TextureNode } from 'three/webgpu';
import type { MipPyramidSource } from '../../core/streaming/mip-pyramid-source';
import { MaterialBindings } from './sampling/material-bindings';
import type { TextureSampling, TextureSamplingOptions } from './sampling/texture-sampling';
import type { ChainTexture } from './uploads/chain-texture';
import { CpuLevelCache } from './uploads/cpu-level-cache';

/**
 * Options of `TextureStreamingSystem.add`. The sampling fields are three's `Texture`
 * fields of the same names: every texture bound for this one (placeholder, pinned and streamed
 * chains) carries them, so materials sample it as three samples an ordinary texture set up alike.
 */
export interface StreamedTextureOptions extends TextureSamplingOptions {
  /** Name; GPU textures are labelled `tessera:streamed:<name>`. Default `t<id>`. */
  name?: string;
  /** Lifetime tag: 'persistent', 'scene:<id>', 'transient' or custom. Default 'persistent'. */
  tag?: string;
  /** Part of its scene's core set (loaded first by transitions). Default false. */
  core?: boolean;
  /** Multiplies the streaming priority. Default 1. */
  priorityBias?: number;
  /**
   * How the texels are decoded, as three's `texture.colorSpace`: `SRGBColorSpace` for colour
   * (base colour, emissive), `NoColorSpace` or `LinearSRGBColorSpace` for data (normals,
   * roughness). Default: the source format's own encoding. Formats without an sRGB form (one or
   * two channels) stay linear.
   */
  colorSpace?: ColorSpace;
}

/** A chain load in flight. */
export interface PendingChain {
  firstMip: number;
  controller: AbortController;
}

/**
 * A three.js texture whose resident mip count changes. {@link texture} is what materials bind now:
 * the shared placeholder until the pinned chain (<= 64x64) is on the GPU, then the pinned chain,
 * then a finer streamed chain as the budget and the screen need allow. Bind it through
 * `TextureStreamingSystem.attach` (or {@link node}) so chain swaps and release reach every user.
 */
export class StreamedTexture {
  /** Registry id (integer) in the system's ManagedTextureRegistry. */
  readonly id: number;
  /** Name (GPU label suffix). */
  readonly name: string;
  /** Where the levels come from. */
  readonly source: MipPyramidSource;
  /** Lifetime tag. */
  readonly tag: string;
  /** In its scene's core set. */
  readonly core: boolean;
  /** @internal material properties and nodes using this texture. */
  readonly bindings = new MaterialBindings();
  /** @internal the pinned chain (coarsest levels, edge <= 64), kept while the texture lives. */
  pinned: ChainTexture | null = null;
  /** @internal the finer chain bound instead of the pinned one, if any. */
  streamed: ChainTexture | null = null;
  /** @internal a replaced streamed chain, destroyed when the planner frees it. */
  retiring: ChainTexture | null = null;
  /** @internal the chain load in flight. */
  pending: PendingChain | null = null;
  /** @internal CPU copies of resident levels (WebGL2 only, where GPU-to-GPU level copies are not used). */
  readonly cache: CpuLevelCache;
  /** @internal bytes of the pinned chain. */
  pinnedBytes = 0;
  /** Sampler state, uv channel and uv transform of every texture bound for this one (read only). */
  readonly sampling: TextureSampling;
  /**
   * @internal Resolves once the pinned chain is bound, its load failed or the texture was released:
   * what a scene loader waits for, so the first frame after it resolves is textured.
   */
  readonly pinnedSettled: Promise<void>;
  /** @internal resolves {@link pinnedSettled} (idempotent). */
  settlePinned: () => void = () => {};
  private current: Texture;
  private isReleased = false;

  /** @internal created by `TextureStreamingSystem.add`. */
  constructor(
    id: number,
    name: string,
    source: MipPyramidSource,
    tag: string,
    core: boolean,
    placeholder: Texture,
    sampling: TextureSampling,
  ) {
    this.id = id;
    this.sampling = sampling;
    this.name = name;
    this.source = source;
    this.tag = tag;
    this.core = core;
    this.current = placeholder;
    this.cache = new CpuLevelCache(source.mipLevelCount);
    this.pinnedSettled = new Promise((resolve) => {
      this.settlePinned = resolve;
    });
  }

  /** The three texture bound now (placeholder, pinned chain or streamed chain). */
  get texture(): Texture {
    return this.current;
  }

  /** True once released (swept, evicted by a transition, or released explicitly). */
  get released(): boolean {
    return this.isReleased;
  }

  /**
   * A TSL texture node sampling this texture; its value follows chain swaps and release.
   * @param uvNode optional UV node (default: the mesh's uv()).
   */
  node(uvNode?: Node): TextureNode {
    const created = (uvNode ? textureNode(this.current, uvNode) : textureNode(this.current)) as TextureNode;
    if (!this.isReleased) this.bindings.addNode(created, this.current);
    return created;
  }

  /** @internal bind `texture` in every material property and node using this texture. */
  bind(texture: Texture): void {
    this.current = texture;
    this.bindings.bind(texture);
  }

  /** @internal record `material[property]` as a user. */
  bindProperty(material: Material, property: string): void {
    this.bindings.addProperty(material, property, this.current);
  }

  /** @internal mark released after the placeholder was bound everywhere. */
  markReleased(): void {
    this.isReleased = true;
    this.bindings.clear();
    this.cache.clear();
  }
}
