import { TileSourceError } from '../../../src/core/errors';
import type { NormalChannels, TileData, TileSource, TileSourceInfo } from '../../../src/core/vt/tile-source';
import { normalToRedAlpha } from '../../../src/sources/color/normal-channels';
import { encodeUastcBlocksOnServer } from '../support/uastc-encode-client';
import { TestTileSource, type TestTileSourceOptions } from './test-content';

/** How {@link UastcTestTileSource} spoils some tiles (bad-input tests); `mixed` cycles the three. */
export type UastcSpoil = 'none' | 'truncated' | 'oversized' | 'corrupt' | 'mixed';

const MIXED_SPOILS = ['truncated', 'oversized', 'corrupt'] as const;

/** Options of {@link UastcTestTileSource}. */
export interface UastcTestTileSourceOptions extends TestTileSourceOptions {
  /** UASTC encoder effort 0..4. Default 1. */
  quality?: number;
  /** Tiles spoiled: those of mip `spoilMip` with (x + y) even. Default none. */
  spoil?: UastcSpoil;
  spoilMip?: number;
  /**
   * A linear normal-map layer (`uastc-4x4`, usage 'normal') instead of sRGB colour, with x and y
   * in these channels (red-alpha: the content's red copied to green and blue, its green to alpha).
   */
  normal?: NormalChannels;
}

/**
 * The analytic test content ({@link TestTileSource}) delivered as UASTC tiles, as an archive with
 * the `uastc` encoding would: each rgba8 tile is encoded by Basis's own encoder (ktx2-encoder, run
 * and cached by the test server) and its level-0 blocks returned. Optionally spoils some tiles to test bad input.
 */
export class UastcTestTileSource implements TileSource {
  readonly info: TileSourceInfo;
  /** Tiles spoiled so far. */
  spoiled = 0;
  private readonly rgba: TestTileSource;
  private readonly quality: number;
  private readonly spoil: UastcSpoil;
  private readonly spoilMip: number;
  private readonly normal: NormalChannels | undefined;

  constructor(options: UastcTestTileSourceOptions) {
    this.rgba = new TestTileSource(options);
    this.normal = options.normal;
    this.info = {
      ...this.rgba.info,
      layers: [
        this.normal
          ? { name: 'albedo', format: 'uastc-4x4', usage: 'normal', normalChannels: this.normal }
          : { name: 'albedo', format: 'uastc-4x4-srgb' },
      ],
    };
    this.quality = options.quality ?? 1;
    this.spoil = options.spoil ?? 'none';
    this.spoilMip = options.spoilMip ?? 0;
  }

  /** True for the tiles this source spoils. */
  isSpoiled(mip: number, x: number, y: number): boolean {
    return this.spoil !== 'none' && mip === this.spoilMip && (x + y) % 2 === 0;
  }

  async load(mip: number, x: number, y: number, signal: AbortSignal): Promise<TileData> {
    const tile = await this.rgba.load(mip, x, y, signal);
    const size = this.info.tileSize;
    const texels = this.normal === 'red-alpha' ? normalToRedAlpha(tile.layers[0]) : tile.layers[0];
    const blocks = await encodeUastcBlocksOnServer(
      texels,
      size,
      size,
      { srgb: this.normal === undefined, normal: this.normal !== undefined, quality: this.quality },
      signal,
    );
    if (signal.aborted) throw new DOMException('aborted', 'AbortError');
    if (!this.isSpoiled(mip, x, y)) return { layers: [blocks] };
    const spoil = this.spoil === 'mixed' ? MIXED_SPOILS[this.spoiled % 3] : this.spoil;
    this.spoiled++;
    if (spoil === 'truncated') return { layers: [blocks.subarray(0, blocks.length - 100)] };
    if (spoil === 'oversized') {
      const longer = new Uint8Array(blocks.length + 16);
      longer.set(blocks);
      return { layers: [longer] };
    }
    // Corrupt: UASTC blocks carry no checksum, so garbage bytes transcode to garbage texels; a
    // source that detects corruption (an archive's checks) rejects with a typed error instead.
    throw new TileSourceError('corrupt', `tile ${mip}/${x}/${y} is corrupt`, false);
  }
}
