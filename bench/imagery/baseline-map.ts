/**
 * The plain three.js web map the imagery benchmark compares Tessera with, drawn the way web map
 * engines (MapLibre, Leaflet's GL layers, OpenLayers' WebGL tiles) draw raster tiles: one mesh and
 * one `Texture` per tile. Each frame it
 * - selects tiles by a quadtree walk: a tile in view is split while its texels cover more than one
 *   screen pixel, so the wanted zoom is the one whose texels are about a pixel;
 * - draws each wanted tile once loaded, else its nearest loaded ancestor (finer tiles on top), so
 *   parents stand in until their children arrive;
 * - loads missing wanted tiles nearest the view centre first, at most {@link MAX_REQUESTS_PER_HOST}
 *   at once (the browser's per-host limit, as Tessera's `HttpClient` has it): `fetch`, then
 *   `createImageBitmap` (flipped, as three's `ImageBitmapLoader` is asked to), mipmapped and
 *   trilinear; a load whose tile is no longer wanted is aborted, as MapLibre aborts it;
 * - keeps tiles it no longer draws in an LRU bounded by count (MapLibre's tile cache), disposing
 *   each texture, material and bitmap it evicts.
 *
 * The map is the Mercator unit square on the plane z = 0, x east in [-0.5, 0.5], y north.
 */

import {
  LinearFilter,
  LinearMipmapLinearFilter,
  Mesh,
  PlaneGeometry,
  type Scene,
  SRGBColorSpace,
  Texture,
} from 'three';
import { MeshBasicNodeMaterial } from 'three/webgpu';
import {
  type PathView,
  VIEW_HEIGHT,
  VIEW_WIDTH,
  visibleRect,
  type WorldRect,
  XYZ_TILE_SIZE,
} from './zoom-path';

/** Requests in flight at once to the tile host. */
export const MAX_REQUESTS_PER_HOST = 6;

/** Options of {@link BaselineTileMap}. */
export interface BaselineTileMapOptions {
  /** Tile URL with `{z}`, `{x}`, `{y}`. */
  url: string;
  /** Deepest zoom the server has. */
  maxZoom: number;
  /**
   * Tiles kept beyond those drawn, as a multiple of the tiles a view holds
   * (`(ceil(w / 256) + 1) x (ceil(h / 256) + 1)`, MapLibre's estimate). Default 2.
   */
  cacheViews?: number;
  /** Canvas size, CSS pixels (the cache's estimate of a view's tiles). Default 960 x 540. */
  viewWidth?: number;
  viewHeight?: number;
}

/** Counts of a {@link BaselineTileMap}. */
export interface BaselineCounters {
  /** Tile requests started (aborted ones included). */
  requests: number;
  /** Requests aborted because their tile was no longer wanted. */
  aborted: number;
  /** Body bytes received. */
  bytes: number;
  /** Tile textures created. */
  textures: number;
  /** Tile textures evicted from the LRU and disposed. */
  evicted: number;
}

/** What one {@link BaselineTileMap.update} found. */
export interface BaselineFrame {
  /** Tiles wanted at the view's zoom. */
  wanted: number;
  /** Of those, the ones drawn themselves (loaded). */
  sharp: number;
  /** Meshes drawn (wanted tiles and stand-in ancestors). */
  drawn: number;
  /** Tile textures alive (drawn or cached). */
  alive: number;
  /** Whether the meshes drawn differ from the previous update's. */
  changed: boolean;
}

interface Tile {
  z: number;
  x: number;
  y: number;
  key: number;
  state: 'idle' | 'loading' | 'loaded' | 'failed';
  controller: AbortController | null;
  texture: Texture | null;
  material: MeshBasicNodeMaterial | null;
  mesh: Mesh | null;
  /** Frame the tile was last drawn or wanted (LRU recency). */
  used: number;
}

/** Quadtree index of tile (z, x, y): unique across zooms. */
function tileKey(z: number, x: number, y: number): number {
  return (4 ** z - 1) / 3 + y * 2 ** z + x;
}

/** One-texture-per-tile web map (see the file's TSDoc). */
export class BaselineTileMap {
  readonly counters: BaselineCounters = { requests: 0, aborted: 0, bytes: 0, textures: 0, evicted: 0 };
  private readonly tiles = new Map<number, Tile>();
  private readonly geometry = new PlaneGeometry(1, 1);
  private readonly cacheSize: number;
  private inFlight = 0;
  private frame = 0;
  private disposed = false;
  // Per-frame lists, reused.
  private readonly wanted: Tile[] = [];
  private drawn = new Set<Tile>();
  private drawnBefore = new Set<Tile>();

  constructor(
    private readonly scene: Scene,
    private readonly options: BaselineTileMapOptions,
  ) {
    const tilesInView =
      (Math.ceil((options.viewWidth ?? VIEW_WIDTH) / XYZ_TILE_SIZE) + 1) *
      (Math.ceil((options.viewHeight ?? VIEW_HEIGHT) / XYZ_TILE_SIZE) + 1);
    this.cacheSize = Math.round(tilesInView * (options.cacheViews ?? 2));
  }

  /** Selects, requests, draws and evicts for `view`; call once per frame before rendering. */
  update(view: PathView): BaselineFrame {
    this.frame++;
    this.wanted.length = 0;
    [this.drawn, this.drawnBefore] = [this.drawnBefore, this.drawn];
    this.drawn.clear();
    this.select(view, visibleRect(view), 0, 0, 0);
    let sharp = 0;
    for (const tile of this.wanted) {
      tile.used = this.frame;
      if (tile.state === 'loaded') {
        this.drawn.add(tile);
        sharp++;
        continue;
      }
      for (let z = tile.z - 1; z >= 0; z--) {
        const ancestor = this.tiles.get(tileKey(z, tile.x >> (tile.z - z), tile.y >> (tile.z - z)));
        if (ancestor?.state === 'loaded') {
          this.drawn.add(ancestor);
          break;
        }
      }
    }
    for (const tile of this.tiles.values()) {
      if (tile.mesh !== null) tile.mesh.visible = this.drawn.has(tile);
      if (this.drawn.has(tile)) tile.used = this.frame;
      // Loads of tiles no longer wanted are aborted, freeing their request slot.
      if (tile.state === 'loading' && tile.used !== this.frame && tile.controller?.signal.aborted === false) {
        tile.controller.abort();
        this.counters.aborted++;
      }
    }
    this.startLoads(view);
    this.evict();
    let alive = 0;
    for (const tile of this.tiles.values()) if (tile.texture !== null) alive++;
    let changed = this.drawn.size !== this.drawnBefore.size;
    for (const tile of this.drawn) if (!this.drawnBefore.has(tile)) changed = true;
    return { wanted: this.wanted.length, sharp, drawn: this.drawn.size, alive, changed };
  }

  /** Frees every tile's texture, material and pending load. */
  dispose(): void {
    this.disposed = true;
    for (const tile of this.tiles.values()) this.release(tile);
    this.tiles.clear();
    this.geometry.dispose();
  }

  /** The quadtree walk: wanted tiles of `view` under tile (`z`, `x`, `y`). */
  private select(view: PathView, rect: WorldRect, z: number, x: number, y: number): void {
    const n = 2 ** z;
    if ((x + 1) / n <= rect.x0 || x / n >= rect.x1 || (y + 1) / n <= rect.y0 || y / n >= rect.y1) return;
    // Screen pixels one of the tile's texels covers; a hair over 1 keeps an exact zoom unsplit.
    const texelPixels = view.pixelsPerWorld / (XYZ_TILE_SIZE * n);
    if (texelPixels > 1 + 1e-6 && z < this.options.maxZoom) {
      for (let j = 0; j < 2; j++)
        for (let i = 0; i < 2; i++) this.select(view, rect, z + 1, 2 * x + i, 2 * y + j);
      return;
    }
    this.wanted.push(this.tile(z, x, y));
  }

  private tile(z: number, x: number, y: number): Tile {
    const key = tileKey(z, x, y);
    let tile = this.tiles.get(key);
    if (tile === undefined) {
      tile = {
        z,
        x,
        y,
        key,
        state: 'idle',
        controller: null,
        texture: null,
        material: null,
        mesh: null,
        used: this.frame,
      };
      this.tiles.set(key, tile);
    }
    return tile;
  }

  private startLoads(view: PathView): void {
    if (this.inFlight >= MAX_REQUESTS_PER_HOST) return;
    const distance = (tile: Tile) => {
      const n = 2 ** tile.z;
      return Math.hypot((tile.x + 0.5) / n - view.center.x, (tile.y + 0.5) / n - view.center.y);
    };
    const waiting = this.wanted.filter((tile) => tile.state === 'idle');
    waiting.sort((a, b) => distance(a) - distance(b));
    for (const tile of waiting) {
      if (this.inFlight >= MAX_REQUESTS_PER_HOST) break;
      void this.load(tile);
    }
  }

  private async load(tile: Tile): Promise<void> {
    tile.state = 'loading';
    tile.controller = new AbortController();
    const { signal } = tile.controller;
    this.inFlight++;
    this.counters.requests++;
    try {
      const url = this.options.url
        .replace('{z}', String(tile.z))
        .replace('{x}', String(tile.x))
        .replace('{y}', String(tile.y));
      const response = await fetch(url, { signal });
      if (!response.ok) throw new Error(`${url}: HTTP ${response.status}`);
      const blob = await response.blob();
      this.counters.bytes += blob.size;
      const bitmap = await createImageBitmap(blob, {
        imageOrientation: 'flipY',
        premultiplyAlpha: 'none',
        colorSpaceConversion: 'none',
      });
      if (signal.aborted || this.disposed) {
        bitmap.close();
        throw signal.reason ?? new Error('disposed');
      }
      this.attach(tile, bitmap);
    } catch (error) {
      if (!signal.aborted && !this.disposed) {
        tile.state = 'failed';
        console.error(error);
      } else tile.state = 'idle';
    } finally {
      tile.controller = null;
      this.inFlight--;
    }
  }

  /** Makes the tile's texture, material and mesh (hidden until the next update draws it). */
  private attach(tile: Tile, bitmap: ImageBitmap): void {
    const texture = new Texture(bitmap);
    texture.name = `baseline:tile:${tile.z}/${tile.x}/${tile.y}`;
    texture.colorSpace = SRGBColorSpace;
    // The bitmap is flipped at decode: ImageBitmaps ignore `flipY` on upload.
    texture.flipY = false;
    texture.generateMipmaps = true;
    texture.minFilter = LinearMipmapLinearFilter;
    texture.magFilter = LinearFilter;
    texture.needsUpdate = true;
    const material = new MeshBasicNodeMaterial({ map: texture, depthTest: false, depthWrite: false });
    const mesh = new Mesh(this.geometry, material);
    const n = 2 ** tile.z;
    mesh.scale.set(1 / n, 1 / n, 1);
    mesh.position.set((tile.x + 0.5) / n - 0.5, 0.5 - (tile.y + 0.5) / n, 0);
    // Finer tiles over their stand-in ancestors.
    mesh.renderOrder = tile.z;
    mesh.visible = false;
    mesh.frustumCulled = false;
    this.scene.add(mesh);
    tile.texture = texture;
    tile.material = material;
    tile.mesh = mesh;
    tile.state = 'loaded';
    this.counters.textures++;
  }

  /** Disposes the least recently used loaded tiles that are not drawn beyond the cache size. */
  private evict(): void {
    const cached: Tile[] = [];
    for (const tile of this.tiles.values()) {
      if (tile.state === 'loaded' && !this.drawn.has(tile)) cached.push(tile);
      // Tiles that were never loaded and are no longer wanted carry nothing worth keeping.
      else if (tile.state !== 'loaded' && tile.state !== 'loading' && tile.used !== this.frame) {
        this.tiles.delete(tile.key);
      }
    }
    if (cached.length <= this.cacheSize) return;
    cached.sort((a, b) => a.used - b.used);
    for (let i = 0; i < cached.length - this.cacheSize; i++) {
      this.release(cached[i]);
      this.tiles.delete(cached[i].key);
      this.counters.evicted++;
    }
  }

  private release(tile: Tile): void {
    tile.controller?.abort();
    if (tile.mesh !== null) this.scene.remove(tile.mesh);
    tile.material?.dispose();
    if (tile.texture !== null) {
      (tile.texture.image as ImageBitmap).close();
      tile.texture.dispose();
    }
    tile.mesh = null;
    tile.material = null;
    tile.texture = null;
  }
}
