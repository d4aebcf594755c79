import type { TileData } from '../../core/vt/tile-source';
import type { VirtualTextureStreamer } from '../../core/vt/virtual-texture-streamer';
import type { TileRenderStage } from '../rendered/tile-render-stage';
import type { LivePool } from '../residency/live-pool';
import type { VirtualTextureSet } from '../virtual-texture-set';

/**
 * One frame's writes into the pool: loaded tiles' bytes through the live pool (`queue.writeTexture`
 * / `texSubImage`), rendered textures' pages through the render stage (rendered on the GPU and
 * copied into the slot), and re-renders of invalidated pages, within the frame's upload and render
 * bounds.
 */
export class TileUploads {
  /** Tiles written into the pool during the latest frame. */
  lastFrame = 0;
  /** Tiles written since creation. */
  total = 0;
  private readonly handler: (vt: number, slot: number, pageId: number, data: TileData) => boolean;

  constructor(
    private readonly streamer: VirtualTextureStreamer,
    private readonly pool: LivePool,
    set: VirtualTextureSet,
    readonly rendering: TileRenderStage,
  ) {
    this.handler = (vt, slot, pageId, data) => {
      if (rendering.has(vt)) return rendering.render(vt, pool.textures, slot, pageId);
      pool.writePage(set.textures[vt]!.poolLayerSource, slot, pageId, data.layers);
      set.recycle(vt, data);
      return true;
    };
  }

  /**
   * Writes up to `maxTiles` loaded tiles. Re-renders of invalidated pages first take up to half the
   * frame's render bound, new rendered pages the rest, then re-renders whatever is left.
   */
  run(maxTiles: number): void {
    const rendering = this.rendering.beginFrame(this.streamer, this.pool.textures);
    this.lastFrame = this.streamer.drainUploads(this.handler, maxTiles, undefined, rendering.admit);
    rendering.refreshPages(this.streamer, this.pool.textures);
    this.total += this.lastFrame;
  }
}
