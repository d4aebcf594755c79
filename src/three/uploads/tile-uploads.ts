import type { TileData } from '../../core/vt/tile-source';
import type { VirtualTextureStreamer } from '../../core/vt/virtual-texture-streamer';
import type { PageProducers } from '../page-producers';
import type { LivePool } from '../residency/live-pool';
import type { VirtualTextureSet } from '../virtual-texture-set';

/**
 * One frame's writes into the pool: each page through the producer its texture chose at `add()`
 * (`PageProducers`): by default its loaded bytes through the live pool (`queue.writeTexture` /
 * `texSubImage`), or made by a plug-in (rendered textures render theirs on the GPU), within the
 * frame's upload bound and the producers' own bounds, with the producers' work before and after.
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
    private readonly producers: PageProducers,
  ) {
    this.handler = (vt, slot, pageId, data) => {
      const producer = producers.of(vt);
      if (producer !== null) return producer.produce(vt, pool.textures, slot, pageId, data);
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
    this.producers.beginFrame(this.streamer, this.pool.textures);
    this.lastFrame = this.streamer.drainUploads(this.handler, maxTiles, undefined, this.producers.admit);
    this.producers.endFrame(this.streamer, this.pool.textures);
    this.total += this.lastFrame;
  }
}
