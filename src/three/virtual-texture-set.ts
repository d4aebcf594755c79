import { TesseraConfigError, TesseraError } from '../core/errors';
import type { TileData, TileSource } from '../core/vt/tile-source';
import type { VirtualTextureStreamer } from '../core/vt/virtual-texture-streamer';
import { VirtualTextureLayout } from '../core/vt/vt-layout';
import type { BackendBridge } from './backend-bridge';
import type { PoolLayerChoice } from './pool-format-choice';
import { PageTableTexture } from './pool-textures';
import { checkNoRenderedLayer } from './rendered/rendered-pool-format';
import { RenderedTileSource } from './rendered/rendered-tile-source';
import type { TileRenderStage } from './rendered/tile-render-stage';
import type { SamplingContext } from './sampling-context';
import { TranscodingStages } from './transcode/transcoding-stages';
import { mapSourceLayers, VirtualTexture, type VirtualTexturePoolLayer } from './virtual-texture';
import type { ResolvedSystemOptions } from './virtual-texture-system-options';
import type { VirtualTextureAddOptions } from './virtual-texture-system-types';

/**
 * The virtual textures of one system, by index (0..15): adding one (layout checks, its page
 * table within the page-table reserve), removing one, and uploading their page tables.
 */
export class VirtualTextureSet {
  /** Textures by index; null where none (never added, or removed). */
  readonly textures: (VirtualTexture | null)[] = [];
  /** Bytes set aside for every page table, in bytes. */
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
    formats: readonly PoolLayerChoice[],
    options: Pick<
      ResolvedSystemOptions,
      'layers' | 'tileSize' | 'border' | 'pageTableBytes' | 'transcoder' | 'transcodeWorkers'
    >,
    private readonly rendering: TileRenderStage,
    /** Frees budget for `rendering`'s targets (the pool shrinks to its target). */
    private readonly makeRoom: () => void,
  ) {
    this.stages = new TranscodingStages(formats, options.transcoder, options.transcodeWorkers);
    this.poolLayers = options.layers;
    this.tileSize = options.tileSize;
    this.border = options.border;
    this.reserveBytes = options.pageTableBytes;
  }

  /** Bytes of the page tables allocated now, in bytes. */
  get usedBytes(): number {
    return this.used;
  }

  /** See `VirtualTextureSystem.add` (same errors). */
  add(source: TileSource, options: VirtualTextureAddOptions): VirtualTexture {
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
    if (!(source instanceof RenderedTileSource)) checkNoRenderedLayer(name, poolLayerSource, this.poolLayers);
    const tableBytes = layout.pageTableBytes;
    if (this.used + tableBytes > this.reserveBytes) {
      throw new TesseraConfigError(
        'budget-too-small',
        `page table of '${name}' needs ${tableBytes} bytes; ${this.reserveBytes - this.used} left of pageTableBytes`,
      );
    }
    const loaded = this.stages.wrap(source, poolLayerSource);
    const id = this.streamer.registerTexture(loaded);
    this.stages.bind(id, loaded);
    const pageTable = this.streamer.pageTable(id);
    const table = new PageTableTexture(
      this.bridge,
      name,
      layout.widthPages,
      layout.heightPages,
      layout.mipCount,
    );
    this.used += table.bytes;
    const vt = new VirtualTexture(id, name, source, layout, pageTable, table, this.context, poolLayerSource);
    this.textures[id] = vt;
    // The GPU table starts as zeros; write every level once (all EMPTY_ENTRY).
    pageTable.markAllDirty();
    vt.flushPageTable();
    if (source instanceof RenderedTileSource) {
      try {
        this.rendering.attach(id, source, poolLayerSource, this.makeRoom);
      } catch (error) {
        this.remove(vt);
        throw error;
      }
    }
    return vt;
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
    this.streamer.unregisterTexture(id);
    this.rendering.detach(id);
    this.textures[id] = null;
    this.used -= vt.pageTableBytes;
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
      if (vt && vt.pageTable.dirty.entryCount() > 0) vt.flushPageTable();
    }
  }

  /** Recreates every page table on `bridge` (a new renderer after a device loss) and uploads it. */
  recover(bridge: BackendBridge): void {
    this.bridge = bridge;
    this.rendering.recover(bridge);
    for (const vt of this.textures) {
      if (!vt) continue;
      const l = vt.layout;
      vt.replacePageTableTexture(
        new PageTableTexture(bridge, vt.name, l.widthPages, l.heightPages, l.mipCount),
      );
    }
  }

  /** Returns the transcoded buffers of a tile of texture `vt` once they are uploaded. */
  recycle(vt: number, tile: TileData): void {
    this.stages.recycle(vt, tile);
  }

  /** Frees every page table and stops the transcoding workers. */
  dispose(): void {
    this.stages.dispose();
    this.rendering.dispose();
    for (let i = 0; i < this.textures.length; i++) {
      this.textures[i]?.release();
      this.textures[i] = null;
    }
    this.used = 0;
  }
}
