/**
 * The contract between the streaming core and whatever produces tile bytes (an archive over HTTP,
 * a procedural generator, a worker pool). The core never knows where bytes come from.
 */

/**
 * Layout of one layer's tile bytes as produced by a source.
 * - `rgba8unorm(-srgb)`: `tileSize² x 4` bytes, rows top to bottom.
 * - `uastc-4x4(-srgb)`: Basis Universal UASTC 4x4 blocks of the whole tile, border included
 *   (`tileSize` and `border` are multiples of 4): `(tileSize / 4)²` blocks of 16 bytes, block rows
 *   top to bottom, blocks left to right. The system transcodes them to the device's best block
 *   format before they reach the pool.
 */
export type TileEncoding = 'rgba8unorm' | 'rgba8unorm-srgb' | 'uastc-4x4' | 'uastc-4x4-srgb';

/**
 * What a layer's texels mean, so a block-compressed pool can keep what matters: `color` (default)
 * keeps all four channels; `normal` is a tangent-space normal map whose x and y (red and green)
 * are all that is read (two-channel formats such as BC5 or EAC RG11 serve it best).
 */
export type TileLayerUsage = 'color' | 'normal';

/**
 * Where a normal map's x and y are in its texels: `'red-green'` (red and green, the usual rgb
 * normal map), or `'red-alpha'` (x in red, green and blue, y in alpha: Basis Universal's normal-map
 * convention, `-swizzle rrrg`, which its UASTC transcoder turns straight into BC5 and EAC RG11 in
 * about a half and an eighth of the time of decoding and re-encoding red and green).
 */
export type NormalChannels = 'red-green' | 'red-alpha';

/** Describes one layer of a virtual texture (albedo, normal, ...). */
export interface TileLayerInfo {
  /** Layer name, used by `virtualTexture(tex, uv).layer(name)`. */
  name: string;
  /** Texel format of the bytes {@link TileSource.load} returns for this layer. */
  format: TileEncoding;
  /** What the texels mean. Default 'color'. */
  usage?: TileLayerUsage;
  /** A normal map's channels (usage 'normal' only). Default 'red-green'. */
  normalChannels?: NormalChannels;
}

/** True for a normal-map layer stored with y in alpha (`normalChannels` 'red-alpha', usage 'normal'). */
export function isNormalWithYInAlpha(layer: TileLayerInfo): boolean {
  return layer.usage === 'normal' && layer.normalChannels === 'red-alpha';
}

/** What a source tells the core about the virtual texture it serves. */
export interface TileSourceInfo {
  /** Width of mip 0, in pages (power of two, 1..4096). */
  widthPages: number;
  /** Height of mip 0, in pages (power of two, 1..4096). */
  heightPages: number;
  /** Side of one tile including its border, in texels. */
  tileSize: number;
  /** Border width inside the tile on each side, in texels. */
  border: number;
  /** The layers every tile has, in the order {@link TileData.layers} returns them. */
  layers: readonly TileLayerInfo[];
  /**
   * Width of the content in mip 0, in texels, from the left edge: a baked image of 4096 texels
   * is padded to whole power-of-two pages (64 x 120 = 7680 texels), and only its first 4096
   * columns are the image. `virtualTexture(vt)` maps uv [0, 1] onto exactly this rectangle.
   * Default (absent): the whole width, `widthPages x (tileSize - 2 x border)`.
   */
  contentWidth?: number;
  /** Height of the content in mip 0, in texels, from the top edge. Default (absent): the whole height. */
  contentHeight?: number;
  /**
   * True for a source whose tiles the binding renders on the GPU when they are uploaded (a runtime
   * virtual texture): `load` resolves `{ layers: [] }`, no bytes are staged on the CPU, and each
   * layer's `format` is the pool format the render is copied into. Default false.
   */
  rendered?: boolean;
}

/**
 * One loaded tile: a `tileSize² x 4` byte array per layer, in {@link TileSourceInfo.layers} order
 * (none for a {@link TileSourceInfo.rendered} source).
 */
export interface TileData {
  /** The tile's bytes, one array per layer, in {@link TileSourceInfo.layers} order. */
  layers: Uint8Array[];
}

/**
 * Request counts of a source that loads over the network (an `HttpClient`'s `counters`): requests
 * sent, retries after transient failures, and failed attempts.
 */
export interface TileSourceRequestCounters {
  /** Requests sent, retries included. */
  readonly requests: number;
  /** Requests sent again after a failed attempt (a transient failure, or a 416 to a Range request). */
  readonly retries: number;
  /** Requests that ended in a failure (each attempt counts). */
  readonly failures: number;
}

/** Produces tiles. Implementations must reject with an `AbortError` promptly once `signal` aborts. */
export interface TileSource {
  /** What the source holds (size, tile size and border, layers), fixed once the source is open. */
  readonly info: TileSourceInfo;
  /**
   * The request counts of the HTTP client this source loads through, live (absent for a source
   * that does not load over HTTP). `VirtualTextureSystem.stats().streaming.retries` sums their
   * `retries` (a client shared by several sources counted once).
   */
  readonly requestCounters?: TileSourceRequestCounters;
  /**
   * Loads the tile at (`x`, `y`) of mip `mip` (coordinates in pages at that mip).
   * Rejects with a `TileSourceError` on failure.
   */
  load(mip: number, x: number, y: number, signal: AbortSignal): Promise<TileData>;
  /** Releases workers, connections and caches. */
  dispose?(): void;
  /**
   * For a source that cuts its own pages (imagery): adopt the system's page size and border, in
   * texels, unless it was given its own. The system calls it at `add()`, before reading `info` and
   * before any load: page geometry belongs to the system.
   * @throws TesseraConfigError for a geometry the source cannot use.
   */
  followPageGeometry?(tileSize: number, border: number): void;
  /**
   * For a source that can compose a page better after it loaded (an imagery page whose border
   * stood in for a neighbouring source tile that was not loaded yet): the system calls it at
   * `add()` with a function the source calls with a page's coordinates (its mip, then x and y in
   * pages at that mip) when loading that page again would give better texels, and with `null`
   * when the texture is removed. The system then loads the page again if it is resident (or
   * about to be) and writes it over its slot, the old texels drawn until then
   * (`page-refreshed`).
   */
  watchPages?(onImproved: ((mip: number, x: number, y: number) => void) | null): void;
}
