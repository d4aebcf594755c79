import { type DataTexture, NearestFilter, RedIntegerFormat, RGIntegerFormat, UnsignedIntType } from 'three';
import type { PageTable } from '../../core/vt/page-table/page-table';
import { ATLAS_BLOCKS_PER_ROW, ATLAS_WIDTH, BLOCK_PAGES } from '../../core/vt/page-table/page-table-blocks';
import type { BackendBridge } from '../backend-bridge';
import { createAllocatedTexture } from '../residency/allocated-texture';

/**
 * One virtual texture's sparse page table on the GPU (docs/page-tables.md):
 * the indirection (`r32uint`, one level per mip below the tail, one texel per 16 x 16-page block)
 * and the block atlas (`rg32uint`, 256 entries wide: each entry and its parent's). Only dirty
 * rectangles are uploaded; a capacity change recreates the atlas (three rebuilds the materials
 * sampling it, as for a pool resize) and uploads it whole.
 */
export class PageTableTextures {
  /** The indirection texture (label `tessera:page-table:<name>:indirection`). */
  readonly indirection: DataTexture;
  /** The block atlas (label `tessera:page-table:<name>:atlas`); replaced by {@link resizeAtlas}. */
  atlas: DataTexture;
  private readonly bridge: BackendBridge;
  private readonly name: string;
  private readonly table: PageTable;
  private atlasBlocks = 0;

  constructor(bridge: BackendBridge, name: string, table: PageTable) {
    this.bridge = bridge;
    this.name = name;
    this.table = table;
    const g = table.geometry;
    this.indirection = createAllocatedTexture({
      name: `tessera:page-table:${name}:indirection`,
      width: g.indirectionWidth,
      height: g.indirectionHeight,
      mipLevels: g.indirectionLevels,
      format: RedIntegerFormat,
      type: UnsignedIntType,
      srgb: false,
      magFilter: NearestFilter,
      minFilter: NearestFilter,
    });
    bridge.renderer.initTexture(this.indirection);
    this.atlas = this.createAtlas(table.blockCapacity);
    table.markAllDirty();
    this.upload();
  }

  /** GPU bytes of both textures (what the budget reserves for them), in bytes. */
  get bytes(): number {
    return this.table.geometry.bytesFor(this.atlasBlocks);
  }

  /**
   * Replaces the atlas by one of the table's current capacity and uploads everything (after
   * `table.setBlockCapacity`). The caller bumps the graph version so materials bind the new one.
   */
  resizeAtlas(): void {
    this.atlas.dispose();
    this.atlas = this.createAtlas(this.table.blockCapacity);
    this.table.markAllDirty();
    this.upload();
  }

  /** Uploads the table's dirty rectangles (only those) and clears them. Allocates nothing. */
  upload(): void {
    const table = this.table;
    const g = table.geometry;
    const dirty = table.indirectionDirty;
    for (let m = 0; m < g.tailMip; m++) {
      const base = m * dirty.maxRectsPerMip * 4;
      const w = g.cellWidths[m];
      for (let i = 0; i < dirty.counts[m]; i++) {
        const r = base + i * 4;
        const x = dirty.rects[r];
        const y = dirty.rects[r + 1];
        const words = table.indirection[m];
        this.bridge.writeRect(
          this.indirection,
          'r32uint',
          m,
          x,
          y,
          dirty.rects[r + 2],
          dirty.rects[r + 3],
          words,
          y * w + x,
          w,
        );
      }
    }
    const atlasDirty = table.atlas.dirty;
    for (let i = 0; i < atlasDirty.counts[0]; i++) {
      const r = i * 4;
      const x = atlasDirty.rects[r];
      const y = atlasDirty.rects[r + 1];
      this.bridge.writeRect(
        this.atlas,
        'rg32uint',
        0,
        x,
        y,
        atlasDirty.rects[r + 2],
        atlasDirty.rects[r + 3],
        table.atlas.words,
        y * ATLAS_WIDTH + x,
        ATLAS_WIDTH,
      );
    }
    table.clearDirty();
  }

  /** Frees both textures. */
  dispose(): void {
    this.indirection.dispose();
    this.atlas.dispose();
  }

  private createAtlas(blocks: number): DataTexture {
    this.atlasBlocks = blocks;
    const texture = createAllocatedTexture({
      name: `tessera:page-table:${this.name}:atlas`,
      width: ATLAS_WIDTH,
      height: (blocks / ATLAS_BLOCKS_PER_ROW) * BLOCK_PAGES,
      mipLevels: 1,
      format: RGIntegerFormat,
      type: UnsignedIntType,
      srgb: false,
      magFilter: NearestFilter,
      minFilter: NearestFilter,
    });
    this.bridge.renderer.initTexture(texture);
    return texture;
  }
}
