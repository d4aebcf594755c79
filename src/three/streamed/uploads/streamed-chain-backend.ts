import { TesseraError } from '../../../core/errors';
import { levelByteLength } from '../../../core/streaming/mip-pyramid-source';
import type { ShedLevelCache } from '../../../core/streaming/planning/shed-level-cache';
import type { StreamingBackend } from '../../../core/streaming/streaming-backend';
import type { BackendBridge } from '../../backend-bridge';
import type { LiveStreamedTextures } from '../live-streamed-textures';
import type { StreamingPlaceholders } from '../sampling/streaming-placeholders';
import type { StreamedTexture } from '../streamed-texture';
import { ChainTexture } from './chain-texture';
import { isBlockFormat } from './streamed-format-support';

/** Where {@link StreamedChainBackend} reports outcomes (the system wires these to its planner). */
export interface StreamedChainEvents {
  /** A chain load finished (`error` undefined) or failed: `MipStreamingPlanner.completeLoad`. */
  completeLoad(textureId: number, firstMip: number, error?: unknown): void;
  /** A texture was released: the placeholder is bound everywhere and its chains are destroyed. */
  released(texture: StreamedTexture): void;
}

/**
 * The GPU side of mip streaming for {@link StreamedTexture}s: the planner's
 * {@link StreamingBackend}. Loads levels from the texture's source, builds a new
 * {@link ChainTexture} (WebGPU textures cannot change their mip count), fills the levels it
 * already had by a GPU copy (WebGPU) or from the CPU level cache (WebGL2), swaps it into every
 * user, and destroys replaced chains only once nothing binds them. Block-format chains (BC, ETC2,
 * ASTC) keep CPU copies on both backends: three uploads a compressed texture whole, so a new chain
 * is built from the cached levels plus the newly loaded ones (a quarter of rgba8's bytes or less).
 * CPU copies of levels the planner sheds move to the shared {@link ShedLevelCache} (bounded), and a
 * later load takes them from there instead of the source, so growing back costs no network. rgba8
 * chains on WebGPU keep no CPU copies, so their shed levels are loaded again from the source.
 */
export class StreamedChainBackend implements StreamingBackend {
  private readonly bridge: BackendBridge;
  private readonly table: LiveStreamedTextures;
  private readonly placeholders: StreamingPlaceholders;
  private readonly events: StreamedChainEvents;
  /** WebGL2 keeps CPU copies of resident levels (no GPU-to-GPU level copies there). */
  private readonly keepsCpuCopies: boolean;
  private readonly shedLevels: ShedLevelCache;

  constructor(
    bridge: BackendBridge,
    table: LiveStreamedTextures,
    placeholders: StreamingPlaceholders,
    events: StreamedChainEvents,
    shedLevels: ShedLevelCache,
  ) {
    this.shedLevels = shedLevels;
    this.bridge = bridge;
    this.table = table;
    this.placeholders = placeholders;
    this.events = events;
    this.keepsCpuCopies = bridge.device === null;
  }

  /** Load the missing levels, build the chain, swap it in; a newer request aborts an older one. */
  allocate(id: number, firstMip: number, mipCount: number): void {
    const texture = this.table.byId(id);
    if (texture === null) return;
    texture.pending?.controller.abort();
    const controller = new AbortController();
    texture.pending = { firstMip, controller };
    void this.loadChain(texture, firstMip, mipCount, controller);
  }

  /** Destroy a chain that is no longer bound (or bind the pinned chain in its place first). */
  free(id: number, firstMip: number): void {
    const texture = this.table.byId(id);
    if (texture === null) return;
    if (texture.retiring !== null && texture.retiring.firstMip === firstMip) {
      texture.retiring.dispose();
      texture.retiring = null;
    } else if (texture.streamed !== null && texture.streamed.firstMip === firstMip) {
      const streamed = texture.streamed;
      texture.streamed = null;
      texture.bind(texture.pinned?.texture ?? this.placeholders.of(texture.source.format, texture.sampling));
      streamed.dispose();
    }
    this.trimCache(texture);
  }

  /** Bind the placeholder into every user, then destroy every chain of the texture. */
  release(id: number): void {
    const texture = this.table.byId(id);
    if (texture === null) return;
    texture.pending?.controller.abort();
    texture.pending = null;
    texture.bind(this.placeholders.of(texture.source.format, texture.sampling));
    texture.retiring?.dispose();
    texture.streamed?.dispose();
    texture.pinned?.dispose();
    texture.retiring = null;
    texture.streamed = null;
    texture.pinned = null;
    texture.markReleased();
    texture.settlePinned();
    this.table.remove(texture);
    this.shedLevels.forget(id);
    this.events.released(texture);
  }

  private async loadChain(
    texture: StreamedTexture,
    firstMip: number,
    mipCount: number,
    controller: AbortController,
  ): Promise<void> {
    const stale = () =>
      controller.signal.aborted || texture.pending?.controller !== controller || texture.released;
    let chain: ChainTexture | null;
    try {
      chain = await this.buildChain(texture, firstMip, mipCount, controller.signal, stale);
      if (chain === null) return;
    } catch (error) {
      if (stale()) return;
      texture.pending = null;
      this.events.completeLoad(texture.id, firstMip, error ?? new Error('load failed'));
      texture.settlePinned();
      return;
    }
    texture.pending = null;
    if (texture.pinned === null) {
      texture.pinned = chain;
    } else {
      texture.retiring = texture.streamed;
      texture.streamed = chain;
    }
    texture.bind(chain.texture);
    this.events.completeLoad(texture.id, firstMip);
    texture.settlePinned();
    // The planner frees the replaced chain in completeLoad; never leave one behind.
    if (texture.retiring !== null) {
      texture.retiring.dispose();
      texture.retiring = null;
    }
    this.trimCache(texture);
  }

  /** The filled chain `firstMip ..`, or null when the load went stale (aborted or released). */
  private async buildChain(
    texture: StreamedTexture,
    firstMip: number,
    mipCount: number,
    signal: AbortSignal,
    stale: () => boolean,
  ): Promise<ChainTexture | null> {
    const source = texture.source;
    const held = texture.streamed ?? texture.pinned;
    const end = firstMip + mipCount;
    const block = isBlockFormat(source.format);
    const loads: Promise<Uint8Array>[] = [];
    const levels: number[] = [];
    for (let level = firstMip; level < end; level++) {
      if (
        block
          ? texture.cache.has(level)
          : held?.holds(level) && (!this.keepsCpuCopies || texture.cache.has(level))
      ) {
        continue;
      }
      levels.push(level);
      const shed = this.shedLevels.take(texture.id, level);
      loads.push(shed !== null ? Promise.resolve(shed) : source.loadLevel(level, signal));
    }
    const data = await Promise.all(loads);
    if (stale()) return null;
    for (let i = 0; i < levels.length; i++) {
      const expected = levelByteLength(source.format, source.width, source.height, levels[i]);
      if (data[i].byteLength !== expected) {
        throw new TesseraError(
          'texture-load-failed',
          `Level ${levels[i]} of '${texture.name}' holds ${data[i].byteLength} bytes, expected ${expected}.`,
        );
      }
    }
    if (block) {
      for (let i = 0; i < levels.length; i++) texture.cache.set(levels[i], data[i]);
      const chainLevels: Uint8Array[] = [];
      for (let level = firstMip; level < end; level++) {
        chainLevels.push(texture.cache.get(level) as Uint8Array);
      }
      return new ChainTexture(
        this.bridge,
        texture.name,
        source.width,
        source.height,
        source.format,
        firstMip,
        mipCount,
        texture.sampling,
        chainLevels,
      );
    }
    const chain = new ChainTexture(
      this.bridge,
      texture.name,
      source.width,
      source.height,
      source.format,
      firstMip,
      mipCount,
      texture.sampling,
    );
    try {
      for (let i = 0; i < levels.length; i++) {
        chain.upload(levels[i], data[i]);
        if (this.keepsCpuCopies) texture.cache.set(levels[i], data[i]);
      }
      if (held !== null) {
        const from = Math.max(firstMip, held.firstMip);
        if (!chain.copyLevelsFrom(held, from, end)) {
          for (let level = from; level < end; level++) {
            const cached = texture.cache.get(level);
            if (cached !== null && !levels.includes(level)) chain.upload(level, cached);
          }
        }
      }
    } catch (error) {
      chain.dispose();
      throw error;
    }
    return chain;
  }

  /**
   * Move the CPU copies of levels finer than the finest resident or loading one (levels the planner
   * shed) to the shed level cache.
   */
  private trimCache(texture: StreamedTexture): void {
    const none = texture.source.mipLevelCount;
    const finestKept = Math.min(
      texture.streamed?.firstMip ?? none,
      texture.pinned?.firstMip ?? none,
      texture.pending?.firstMip ?? none,
    );
    for (let level = 0; level < finestKept; level++) {
      const copy = texture.cache.get(level);
      if (copy !== null) this.shedLevels.put(texture.id, level, copy);
    }
    texture.cache.dropFinerThan(finestKept);
  }
}
