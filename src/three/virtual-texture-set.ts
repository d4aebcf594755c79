import { BudgetPriority } from '../core/budget/budget-priority';
import type { TextureBudget } from '../core/budget/texture-budget';
import { TesseraConfigError, TesseraError } from '../core/errors';
import { FEEDBACK_JITTER_PERIOD } from '../core/vt/feedback/feedback-jitter';
import type { PageTable } from '../core/vt/page-table/page-table';
import { DENSE_PAGE_TABLE_MAX_BYTES, densePageTableBytes } from '../core/vt/page-table/page-table-blocks';
import type { TileData, TileSource } from '../core/vt/tile-source';
import type { VirtualTextureStreamer } from '../core/vt/virtual-texture-streamer';
import { VirtualTextureLayout } from '../core/vt/vt-layout';
import type { BackendBridge } from './backend-bridge';
import type { PageProducers } from './page-producers';
import { PageTableTextures } from './page-table/page-table-textures';
import type { PoolLayerChoice } from './residency/pool-format-choice';
import type { SamplingContext } from './sampling/sampling-context';
import type { BasisTranscoderPool } from './transcode/basis-transcoder-pool';
import { TranscodingStages } from './transcode/transcoding-stages';
import { mapSourceLayers, VirtualTexture, type VirtualTexturePoolLayer } from './virtual-texture';
import type { ResolvedSystemOptions } from './virtual-texture-system-options';
import type { VirtualTextureAddOptions } from './virtual-texture-system-types';

/** The page-table reservation a {@link VirtualTextureSet} grows and shrinks. */
export interface PageTableReservation {
  budget: TextureBudget;
  /** Handle of the `page-table` reservation: always exactly the bytes of every page table. */
  handle: number;
  /** Called when a page-table texture was replaced: the node graphs must rebuild. */
  texturesChanged(): void;
}

/**
 * The virtual textures of one system, by index (0..15): adding one (layout checks, its page
 * table within the page-table share), removing one, uploading their page tables, and sizing each
 * sparse table's block atlas (docs/page-tables.md): before a frame's uploads
 * each table gets room for that frame's new blocks if its share and the budget allow (the
 * reservation grows exactly by the new atlas' bytes), else its maps are refused and the mip bias
 * rises; every jitter cycle an atlas at most a quarter used is halved and the reservation shrunk.
 */
export class VirtualTextureSet {
  /** Textures by index; null where none (never added, or removed). */
  readonly textures: (VirtualTexture | null)[] = [];
  /** The page-table share: most bytes every page table together may take, in bytes. */
  readonly reserveBytes: number;
  private readonly poolLayers: readonly VirtualTexturePoolLayer[];
  private readonly tileSize: number;
  private readonly border: number;
  private used = 0;
  /** UASTC layers' transcoding (workers started on the first texture that has some). */
  private readonly stages: TranscodingStages;

  constructor(
    private bridge: BackendBridge,
    private readonly streamer: VirtualTextureStreamer,
    private readonly context: SamplingContext,
    private readonly reservation: PageTableReservation,
    formats: readonly PoolLayerChoice[],
    options: Pick<ResolvedSystemOptions, 'layers' | 'tileSize' | 'border' | 'pageTableBytes'>,
    /** Each texture's page producer, chosen at {@link add}. */
    private readonly producers: PageProducers,
    transcoderPool: () => BasisTranscoderPool,
  ) {
    this.stages = new TranscodingStages(formats, transcoderPool);
    this.poolLayers = options.layers;
    this.tileSize = options.tileSize;
    this.border = options.border;
    this.reserveBytes = options.pageTableBytes;
  }

  /** Bytes of the page tables allocated now (= the page-table reservation), in bytes. */
  get usedBytes(): number {
    return this.used;
  }

  /** See `VirtualTextureSystem.add` (same errors). */
  add(source: TileSource, options: VirtualTextureAddOptions): VirtualTexture {
    source.followPageGeometry?.(this.tileSize, this.border);
    const info = source.info;
    const layout = VirtualTextureLayout.fromSourceInfo(info);
    if (layout.tileSize !== this.tileSize || layout.border !== this.border) {
      throw new TesseraConfigError(
        'invalid-tile',
        `source tiles are ${layout.tileSize}/${layout.border}, the system's ${this.tileSize}/${this.border}`,
      );
    }
    const name = options.name ?? `vt${this.textures.length}`;
    const poolLayerSource = mapSourceLayers(name, info.layers, this.poolLayers, options.layers);
    this.producers.checkLayers(name, source, poolLayerSource);
    const loaded = this.stages.wrap(source, poolLayerSource);
    const storage = options.pageTableStorage ?? 'auto';
    const id = this.streamer.registerTexture(loaded, {
      pageTableStorage: storage === 'auto' ? this.autoStorage(layout) : storage,
    });
    const pageTable = this.streamer.pageTable(id);
    // The atlas is sized here, within the budget, never by the core table itself.
    pageTable.autoGrow = false;
    const tableBytes = pageTable.gpuBytes;
    if (!this.tryReserve(tableBytes)) {
      this.streamer.unregisterTexture(id);
      throw new TesseraConfigError(
        'budget-too-small',
        `page table of '${name}' needs ${tableBytes} bytes; ${this.reserveBytes - this.used} left of pageTableBytes (or the budget is full)`,
      );
    }
    this.stages.bind(id, loaded);
    // A page the source can compose better later (an imagery border that stood in for a tile not
    // loaded yet) is loaded again and written over its slot.
    source.watchPages?.((mip, x, y) => this.streamer.pageImproved(id, mip, x, y));
    const table = new PageTableTextures(this.bridge, name, pageTable);
    const vt = new VirtualTexture(id, name, source, layout, pageTable, table, this.context, poolLayerSource);
    this.textures[id] = vt;
    try {
      this.producers.choose(id, source, poolLayerSource);
    } catch (error) {
      this.remove(vt);
      throw error;
    }
    return vt;
  }

  /**
   * Gives every page table room for `newBlocks` more blocks (a frame's uploads each store at most
   * one) where its share and the budget allow; shrinks atlases left mostly empty once per jitter
   * cycle. Call before the frame's uploads.
   */
  sizeAtlases(newBlocks: number, frame: number): void {
    let changed = false;
    for (const vt of this.textures) {
      if (!vt) continue;
      const table = vt.pageTable;
      const free = table.blockCapacity - table.usedBlocks;
      if (free < newBlocks) {
        // Double (few rebuilds); when refused, just this frame's room (what is left of the share).
        const grown =
          this.resize(vt, table, Math.max(table.blockCapacity * 2, table.usedBlocks + newBlocks)) ||
          this.resize(vt, table, table.usedBlocks + newBlocks);
        changed = grown || changed;
      } else if (frame % FEEDBACK_JITTER_PERIOD === 0 && table.usedBlocks * 4 <= table.blockCapacity) {
        const target = Math.max(table.usedBlocks * 2, table.usedBlocks + newBlocks);
        if (target < table.blockCapacity) changed = this.resize(vt, table, target) || changed;
      }
    }
    if (changed) this.reservation.texturesChanged();
  }

  /**
   * Storage of a page table left to the system: dense when small (`prefersDensePageTable`) and
   * taking at most a quarter of what is left of the page-table share, so many small textures still
   * fit (sparse ones start at one atlas row); else sparse.
   */
  private autoStorage(layout: VirtualTextureLayout): 'dense' | 'sparse' {
    const bytes = densePageTableBytes(layout);
    const dense = bytes <= DENSE_PAGE_TABLE_MAX_BYTES && bytes * 4 <= this.reserveBytes - this.used;
    return dense ? 'dense' : 'sparse';
  }

  /** Resizes `vt`'s atlas toward `blocks` within the share and budget; true when it changed. */
  private resize(vt: VirtualTexture, table: PageTable, blocks: number): boolean {
    const before = table.blockCapacity;
    const maxBlocks = Math.floor(this.bridge.maxTextureSize / 16) * 16;
    table.setBlockCapacity(Math.min(blocks, maxBlocks));
    const after = table.blockCapacity;
    if (after === before) return false;
    const delta = table.geometry.bytesFor(after) - table.geometry.bytesFor(before);
    if (delta > 0 && !this.tryReserve(delta)) {
      table.setBlockCapacity(before);
      return false;
    }
    if (delta < 0) {
      this.used += delta;
      this.reservation.budget.shrink(this.reservation.handle, this.used);
    }
    vt.resizePageTableAtlas();
    return true;
  }

  /** Grows the reservation by `bytes` within the share; false (nothing changed) when refused. */
  private tryReserve(bytes: number): boolean {
    const { budget, handle } = this.reservation;
    if (this.used + bytes > this.reserveBytes) return false;
    if (!budget.tryGrow(handle, this.used + bytes, BudgetPriority.infrastructure)) return false;
    this.used += bytes;
    return true;
  }

  /** Index of `vt` (a texture or its id) here. @throws TesseraError('unknown-texture') */
  idOf(vt: VirtualTexture | number): number {
    const id = typeof vt === 'number' ? vt : vt.id;
    const known = Number.isInteger(id) && id >= 0 && id < 16 && this.textures[id];
    if (!known || (typeof vt !== 'number' && this.textures[id] !== vt)) {
      throw new TesseraError('unknown-texture', `no virtual texture ${id} in this system`);
    }
    return id;
  }

  /** Unregisters `vt` from the streamer (loads aborted, slots freed) and frees its page table. */
  remove(vt: VirtualTexture): number {
    const id = this.idOf(vt);
    vt.source.watchPages?.(null);
    this.streamer.unregisterTexture(id);
    this.producers.release(id);
    this.textures[id] = null;
    this.used -= vt.pageTableBytes;
    this.reservation.budget.shrink(this.reservation.handle, this.used);
    vt.release();
    return id;
  }

  /** Pinned pages of every texture, in pages. */
  pinnedPages(): number {
    let pages = 0;
    for (const vt of this.textures) if (vt) pages += vt.layout.pinnedPages;
    return pages;
  }

  /** Uploads the dirty rectangles of every page table. */
  flush(): void {
    for (let i = 0; i < this.textures.length; i++) {
      const vt = this.textures[i];
      if (vt?.pageTable.hasDirty) vt.flushPageTable();
    }
  }

  /** Recreates every page table on `bridge` (a new renderer after a device loss) and uploads it. */
  recover(bridge: BackendBridge): void {
    this.bridge = bridge;
    this.producers.recover(bridge);
    for (const vt of this.textures) {
      if (!vt) continue;
      vt.replacePageTableTextures(new PageTableTextures(bridge, vt.name, vt.pageTable));
    }
  }

  /** Returns the transcoded buffers of a tile of texture `vt` once they are uploaded. */
  recycle(vt: number, tile: TileData): void {
    this.stages.recycle(vt, tile);
  }

  /** Frees every page table and stops the transcoding workers. */
  dispose(): void {
    this.stages.dispose();
    this.producers.dispose();
    for (let i = 0; i < this.textures.length; i++) {
      this.textures[i]?.release();
      this.textures[i] = null;
    }
    this.used = 0;
    this.reservation.budget.shrink(this.reservation.handle, 0);
  }
}
