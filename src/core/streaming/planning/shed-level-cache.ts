import { TesseraConfigError } from '../../errors';
import { MAX_LEVELS } from '../streamed-texture-table';

/**
 * CPU copies of mip levels that streaming shed from the GPU, so that growing a texture back costs no
 * network: a bounded LRU by bytes over (texture id, level). CPU memory only: the GPU budget never
 * counts it. A level is taken out when it goes back on the GPU, so nothing is held twice. Shedding
 * and regrowth are rare events, not per-frame work; the one `Map` (integer keys, in insertion
 * order, which is the LRU order) is touched only then.
 */
export class ShedLevelCache {
  /** Most bytes held; a level larger than this is never kept. */
  readonly capacityBytes: number;
  private readonly levels = new Map<number, Uint8Array>();
  private held = 0;

  /**
   * @param capacityBytes most bytes held (0 keeps nothing).
   * @throws TesseraConfigError('invalid-size') unless a non-negative integer.
   */
  constructor(capacityBytes: number) {
    if (!Number.isInteger(capacityBytes) || capacityBytes < 0) {
      throw new TesseraConfigError(
        'invalid-size',
        `The shed level cache needs a non-negative integer of bytes, got ${capacityBytes}.`,
      );
    }
    this.capacityBytes = capacityBytes;
  }

  /** Bytes held now. */
  get bytes(): number {
    return this.held;
  }

  /** Keep `data`, the bytes of level `level` of texture `textureId`, evicting the oldest copies to fit. */
  put(textureId: number, level: number, data: Uint8Array): void {
    const key = textureId * MAX_LEVELS + level;
    this.remove(key);
    if (data.byteLength > this.capacityBytes) return;
    this.levels.set(key, data);
    this.held += data.byteLength;
    while (this.held > this.capacityBytes) {
      const oldest = this.levels.keys().next().value as number;
      this.remove(oldest);
    }
  }

  /** Removes and returns the copy of level `level` of texture `textureId`, or null. */
  take(textureId: number, level: number): Uint8Array | null {
    const key = textureId * MAX_LEVELS + level;
    const data = this.levels.get(key);
    if (data === undefined) return null;
    this.remove(key);
    return data;
  }

  /** Drops every copy of texture `textureId` (released). */
  forget(textureId: number): void {
    if (this.held === 0) return;
    for (let level = 0; level < MAX_LEVELS; level++) this.remove(textureId * MAX_LEVELS + level);
  }

  /** Drops every copy. */
  clear(): void {
    this.levels.clear();
    this.held = 0;
  }

  private remove(key: number): void {
    const data = this.levels.get(key);
    if (data === undefined) return;
    this.levels.delete(key);
    this.held -= data.byteLength;
  }
}
