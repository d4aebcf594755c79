import { textureLevelRangeBytes } from '../budget/texture-bytes';
import { TesseraConfigError } from '../errors';
import { grownTypedArray } from '../structures/typed-array-growth';
import type { StreamedTextureDescriptor } from './planning/mip-streaming-options';

/** Largest edge of the pinned level in texels: a texture renders at once from its pinned chain. */
export const PINNED_MAX_EDGE = 64;

/**
 * The pinned level of a texture of `width` x `height` texels and `levelCount` levels: the first
 * whose longer edge is at most {@link PINNED_MAX_EDGE}, else the coarsest. The streamer loads the
 * chain from it to the coarsest level before the texture first renders; the glTF baker stores the
 * same levels in the glTF's buffer (`TESSERA_texture_prefix`), so both call this.
 */
export function pinnedMipLevel(width: number, height: number, levelCount: number): number {
  let pinned = 0;
  while (pinned < levelCount - 1 && Math.max(width >>> pinned, height >>> pinned) > PINNED_MAX_EDGE) {
    pinned++;
  }
  return pinned;
}

/** Most levels a streamed texture may have (65536 texels on an edge). */
export const MAX_LEVELS = 17;
/** "None" in the tables below: no handle, no load, no frame. */
export const NONE = -1;

/**
 * The {@link MipStreamingPlanner}'s state of every streamed texture, struct-of-arrays indexed by
 * registry slot (so the per-frame passes touch typed arrays only). The arrays are replaced when
 * they grow: read them through the table, never keep one.
 */
export class StreamedTextureTable {
  /** 1 while the slot's texture is streamed. */
  managed = new Uint8Array(64);
  /** Full chain length of the source, in levels. */
  fullMips = new Uint8Array(64);
  /** Level of the pinned chain (edge <= `PINNED_MAX_EDGE` texels). */
  pinnedMip = new Uint8Array(64);
  /** Finest level on the GPU (the pinned level until finer mips load). */
  residentMip = new Uint8Array(64);
  /** 1 once the pinned chain is on the GPU. */
  pinnedReady = new Uint8Array(64);
  /** 1 after a chain failed to load (until its cool-down ends or a load succeeds). */
  failed = new Uint8Array(64);
  /** Frame of the latest planner update when the chain failed. */
  failedAt = new Int32Array(64);
  /** First level of the chain being loaded, or {@link NONE}. */
  loadingMip = new Int8Array(64).fill(NONE);
  /** Wanted level (fractional, >= 0; +Infinity before the first screen need). */
  wanted = new Float32Array(64);
  /** Screen benefit: the projected size, in pixels. */
  benefit = new Float32Array(64);
  /** Priority multiplier of the texture. */
  bias = new Float32Array(64);
  /** Texels per world unit at level 0. */
  texelsPerWorld = new Float32Array(64);
  /** Frame since which a 1+ level coarser need has lasted, or {@link NONE}. */
  coarserSince = new Int32Array(64).fill(NONE);
  /** 1 once that need has lasted `dropAfterFrames`: the streamed mips are surplus. */
  surplus = new Uint8Array(64);
  /**
   * Finest level the texture may grow to: 0 (no cap) unless it was shed, or could not grow, for
   * lack of room; then the level it was left at, until room returns.
   */
  allowedMip = new Uint8Array(64);
  /** Importance of the texture when it was capped (see {@link allowedMip}). */
  cappedImportance = new Float32Array(64);
  /** Budget handles of the pinned, streamed and in-flight chains, or {@link NONE}. */
  pinnedHandle = new Float64Array(64).fill(NONE);
  streamHandle = new Float64Array(64).fill(NONE);
  pendingHandle = new Float64Array(64).fill(NONE);
  /** Bytes of levels `level .. full-1` at `slot * MAX_LEVELS + level`. */
  chainBytes = new Float64Array(64 * MAX_LEVELS);

  /**
   * Starts streaming the texture `desc` in `slot`: its chain length, pinned level (the first
   * whose edge is at most {@link PINNED_MAX_EDGE}) and the bytes of every chain.
   * @throws TesseraConfigError for a bad descriptor.
   */
  start(slot: number, desc: StreamedTextureDescriptor): void {
    const full = desc.mipLevelCount ?? 32 - Math.clz32(Math.max(desc.width, desc.height));
    if (!(desc.uvDensity >= 0) || !Number.isFinite(desc.uvDensity)) {
      throw new TesseraConfigError('invalid-option', `uvDensity must be a finite number >= 0.`);
    }
    const sized = { ...desc, mipLevelCount: full };
    textureLevelRangeBytes(sized, 0, full);
    if (full > MAX_LEVELS) throw new TesseraConfigError('too-large', `At most ${MAX_LEVELS} mip levels.`);
    this.ensure(slot);
    const pinned = pinnedMipLevel(desc.width, desc.height, full);
    for (let level = 0; level < full; level++) {
      this.chainBytes[slot * MAX_LEVELS + level] = textureLevelRangeBytes(sized, level, full - level);
    }
    this.managed[slot] = 1;
    this.fullMips[slot] = full;
    this.pinnedMip[slot] = pinned;
    this.residentMip[slot] = pinned;
    this.pinnedReady[slot] = 0;
    this.failed[slot] = 0;
    this.loadingMip[slot] = NONE;
    this.wanted[slot] = Number.POSITIVE_INFINITY;
    this.benefit[slot] = 0;
    this.bias[slot] = desc.priorityBias ?? 1;
    this.texelsPerWorld[slot] = desc.uvDensity * Math.sqrt(desc.width * desc.height);
    this.coarserSince[slot] = NONE;
    this.surplus[slot] = 0;
    this.allowedMip[slot] = 0;
    this.cappedImportance[slot] = 0;
    this.pinnedHandle[slot] = NONE;
    this.streamHandle[slot] = NONE;
    this.pendingHandle[slot] = NONE;
  }

  /** Grows every array (at least doubling) so that `slot` fits. */
  ensure(slot: number): void {
    if (slot < this.managed.length) return;
    const size = Math.max(slot + 1, this.managed.length * 2);
    this.managed = grownTypedArray(this.managed, size);
    this.fullMips = grownTypedArray(this.fullMips, size);
    this.pinnedMip = grownTypedArray(this.pinnedMip, size);
    this.residentMip = grownTypedArray(this.residentMip, size);
    this.pinnedReady = grownTypedArray(this.pinnedReady, size);
    this.failed = grownTypedArray(this.failed, size);
    this.failedAt = grownTypedArray(this.failedAt, size);
    this.loadingMip = grownTypedArray(this.loadingMip, size, NONE);
    this.wanted = grownTypedArray(this.wanted, size);
    this.benefit = grownTypedArray(this.benefit, size);
    this.bias = grownTypedArray(this.bias, size);
    this.texelsPerWorld = grownTypedArray(this.texelsPerWorld, size);
    this.coarserSince = grownTypedArray(this.coarserSince, size, NONE);
    this.surplus = grownTypedArray(this.surplus, size);
    this.allowedMip = grownTypedArray(this.allowedMip, size);
    this.cappedImportance = grownTypedArray(this.cappedImportance, size);
    this.pinnedHandle = grownTypedArray(this.pinnedHandle, size, NONE);
    this.streamHandle = grownTypedArray(this.streamHandle, size, NONE);
    this.pendingHandle = grownTypedArray(this.pendingHandle, size, NONE);
    this.chainBytes = grownTypedArray(this.chainBytes, size * MAX_LEVELS);
  }
}
