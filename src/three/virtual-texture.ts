import type { DataTexture } from 'three';
import { TesseraError } from '../core/errors';
import type { PageTable } from '../core/page-table';
import type { TileSource } from '../core/tile-source';
import type { VirtualTextureLayout } from '../core/vt-layout';
import type { PageTableTexture } from './pool-textures';
import type { SamplingContext } from './sampling-context';
import type { SampledVirtualTexture } from './virtual-texture-node';

/**
 * One virtual texture of a {@link VirtualTextureSystem}: what `virtualTexture(tex, uv)` samples.
 * Created by `system.add(source)`; its GPU page table lives until the system is disposed.
 */
export class VirtualTexture implements SampledVirtualTexture {
  /** Index in page ids and feedback (0..15). */
  readonly id: number;
  /** Name given at `add` (used in GPU labels). */
  readonly name: string;
  /** Where tiles come from. */
  readonly source: TileSource;
  /** Validated geometry (pages per mip, tile and border sizes). */
  readonly layout: VirtualTextureLayout;
  /** CPU page table (core), mirrored to {@link pageTableTexture}. */
  readonly pageTable: PageTable;
  /** The system's sampling context. */
  readonly context: SamplingContext;
  private readonly table: PageTableTexture;
  private readonly layerNames: readonly string[];

  constructor(
    id: number,
    name: string,
    source: TileSource,
    layout: VirtualTextureLayout,
    pageTable: PageTable,
    table: PageTableTexture,
    context: SamplingContext,
  ) {
    this.id = id;
    this.name = name;
    this.source = source;
    this.layout = layout;
    this.pageTable = pageTable;
    this.table = table;
    this.context = context;
    this.layerNames = source.info.layers.map((layer) => layer.name);
  }

  /** Width of mip 0, in pages. */
  get widthPages(): number {
    return this.layout.widthPages;
  }
  /** Height of mip 0, in pages. */
  get heightPages(): number {
    return this.layout.heightPages;
  }
  /** Number of mips. */
  get mipCount(): number {
    return this.layout.mipCount;
  }
  /** Tile side including border, in texels. */
  get tileSize(): number {
    return this.layout.tileSize;
  }
  /** Border inside each tile side, in texels. */
  get border(): number {
    return this.layout.border;
  }
  /** The r32uint page-table texture, one level per mip. */
  get pageTableTexture(): DataTexture {
    return this.table.texture;
  }
  /** GPU bytes of the page table. */
  get pageTableBytes(): number {
    return this.table.bytes;
  }
  /** True once every page has a resident fallback (the coarsest mip is loaded). */
  get isReady(): boolean {
    return this.pageTable.isResident(this.layout.mipCount - 1, 0, 0);
  }

  /**
   * Uploads the page table's dirty rectangles (only those) to the GPU texture and clears them.
   * Called by the system after uploads; allocates nothing.
   */
  flushPageTable(): void {
    const table = this.pageTable;
    const dirty = table.dirty;
    const rects = dirty.rects;
    for (let mip = 0; mip < this.layout.mipCount; mip++) {
      const base = mip * dirty.maxRectsPerMip * 4;
      const entries = table.entries[mip];
      const width = this.layout.mipWidths[mip];
      for (let i = 0; i < dirty.counts[mip]; i++) {
        const r = base + i * 4;
        this.table.writeRect(mip, entries, width, rects[r], rects[r + 1], rects[r + 2], rects[r + 3]);
      }
    }
    table.clearDirty();
  }

  /** Index of the layer called `name`; throws `unknown-texture` for a name the source lacks. */
  layerIndex(name: string): number {
    const index = this.layerNames.indexOf(name);
    if (index < 0) {
      throw new TesseraError('unknown-texture', `virtual texture '${this.name}' has no layer '${name}'`);
    }
    return index;
  }
}
