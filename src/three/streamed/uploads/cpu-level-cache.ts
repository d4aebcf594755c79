/**
 * CPU copies of the resident levels of one streamed texture, kept on WebGL2 only: WebGPU copies
 * levels GPU-to-GPU into a new chain, WebGL2 re-uploads them from here. Copies finer than the
 * finest level resident (or loading) are dropped, so the cache never holds more than the GPU does.
 */
export class CpuLevelCache {
  private readonly levels: (Uint8Array | null)[];

  /** @param levelCount mip levels of the source pyramid. */
  constructor(levelCount: number) {
    this.levels = new Array(levelCount).fill(null);
  }

  /** The copy of source level `level`, or null. */
  get(level: number): Uint8Array | null {
    return this.levels[level] ?? null;
  }

  /** True when a copy of source level `level` is held. */
  has(level: number): boolean {
    return this.levels[level] !== null;
  }

  /** Keep `data` (RGBA8 texels, as uploaded) as the copy of source level `level`. */
  set(level: number, data: Uint8Array): void {
    this.levels[level] = data;
  }

  /** Drop the copies of levels finer than `finestKept` (source level index). */
  dropFinerThan(finestKept: number): void {
    const end = Math.min(finestKept, this.levels.length);
    for (let level = 0; level < end; level++) this.levels[level] = null;
  }

  /** Drop every copy. */
  clear(): void {
    this.levels.fill(null);
  }
}
