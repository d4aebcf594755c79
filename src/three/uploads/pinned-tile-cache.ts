import { pageVt } from '../../core/vt/page-id';

/**
 * CPU copies of the pinned (coarsest, never evicted) tiles, per pool layer, keyed by page id.
 * A pool reallocated without room for its old and new textures at once (a budget cut) frees the
 * old textures first and writes these back into the new ones, so the pinned mips survive and
 * nothing goes black. Costs one tile per pinned page and pool layer of CPU memory (21 pages of
 * 64 KiB = 1.3 MiB per texture and layer with the defaults), no GPU memory.
 */
export class PinnedTileCache {
  private readonly tiles = new Map<number, (Uint8Array | null)[]>();
  private totalBytes = 0;

  /** Keeps a copy of `layers` (index = pool layer; null where the texture leaves it unused). */
  put(pageId: number, layers: readonly (Uint8Array | null)[]): void {
    this.delete(pageId);
    const copies = layers.map((bytes) => (bytes === null ? null : bytes.slice()));
    for (const bytes of copies) if (bytes) this.totalBytes += bytes.byteLength;
    this.tiles.set(pageId, copies);
  }

  /** The copies of `pageId`, or undefined. */
  get(pageId: number): readonly (Uint8Array | null)[] | undefined {
    return this.tiles.get(pageId);
  }

  /** Forgets every tile of texture `vt`. */
  deleteTexture(vt: number): void {
    for (const pageId of [...this.tiles.keys()]) if (pageVt(pageId) === vt) this.delete(pageId);
  }

  /** CPU bytes held, in bytes. */
  get bytes(): number {
    return this.totalBytes;
  }

  /** Forgets everything. */
  clear(): void {
    this.tiles.clear();
    this.totalBytes = 0;
  }

  private delete(pageId: number): void {
    const old = this.tiles.get(pageId);
    if (old === undefined) return;
    for (const bytes of old) if (bytes) this.totalBytes -= bytes.byteLength;
    this.tiles.delete(pageId);
  }
}
