import { DoubleSide, Group, Mesh, OrthographicCamera, PlaneGeometry, Scene } from 'three';
import { positionWorld } from 'three/tsl';
import { MeshBasicNodeMaterial, type Node, type RenderTarget, type WebGPURenderer } from 'three/webgpu';
import { TesseraConfigError, TileSourceError } from '../../core/errors';
import { tileUvRect, type UvRect } from '../../core/vt/page-rect';
import type {
  TileData,
  TileLayerInfo,
  TileLayerUsage,
  TileSource,
  TileSourceInfo,
} from '../../core/vt/tile-source';
import { VirtualTextureLayout } from '../../core/vt/vt-layout';

// biome-ignore lint/suspicious/noExplicitAny: TSL node graph values.
type Expr = any;

/** A rectangle in the world units of a {@link RenderedTileSource} (x right, y along the texture's v). */
export interface WorldRect {
  /** Left edge, world units. */
  x: number;
  /** Edge at the texture's smaller v, world units. */
  y: number;
  /** Extent along x, world units. */
  width: number;
  /** Extent along y, world units. */
  height: number;
}

/** One layer a {@link RenderedTileSource} renders. */
export interface RenderedLayer {
  /** Layer name (`virtualTexture(vt).layer(name)`). */
  name: string;
  /** `'srgb'` (default) for colour: the pool layer is `rgba8unorm-srgb`; `'linear'` for data (normals, roughness). */
  colorSpace?: 'srgb' | 'linear';
  /** What the texels mean (see `TileLayerUsage`). Default 'color'. */
  usage?: TileLayerUsage;
  /**
   * The layer's value at a texel, as a TSL node of the texel's world position (`vec2`, world units
   * of {@link RenderedTileSourceOptions.world}): a `vec4` (alpha kept) or a `vec3` (opaque). Colour
   * values are linear (an `srgb` layer is encoded when written). It is evaluated once per texel of
   * each page at that page's mip; derivatives are one texel of that mip, so textures it samples
   * with mipmaps are filtered to the page's resolution.
   */
  node: (worldPosition: Node) => Node;
}

/** Options of a {@link RenderedTileSource}. */
export interface RenderedTileSourceOptions {
  /** Width of mip 0, in pages (power of two). */
  widthPages: number;
  /** Height of mip 0, in pages (power of two). */
  heightPages: number;
  /** Tile side including the border, in texels. Default 128. */
  tileSize?: number;
  /** Border inside each tile side, in texels. Default 4. */
  border?: number;
  /** The world rectangle uv [0, 1] of the virtual texture covers (v along +y), in world units. */
  world: WorldRect;
  /** The layers, in order (1..8). */
  layers: readonly RenderedLayer[];
}

/** What a rendered source's load resolves: no bytes; the upload stage renders the page itself. */
const RENDERED_TILE: TileData = Object.freeze({ layers: Object.freeze([]) as unknown as Uint8Array[] });

/** Three layer of the page scene that draws nothing, so `camera.layers` can select one layer at a time. */
const LAYER_OFFSET = 1;

/**
 * A virtual texture whose pages are rendered on the GPU from TSL nodes (a runtime virtual
 * texture): each page is drawn, border included, at its mip, by an orthographic camera over the
 * page's world rectangle into a tile-sized render target, then copied into its pool slot on the GPU
 * (no CPU readback, no pixel work on the main thread). Its loads resolve at once with no bytes;
 * the `VirtualTextureSystem` renders a page when its upload turn comes, at most
 * `maxRendersPerFrame` a frame, so the page table, residency, eviction, fallback, feedback and
 * budget work as for any source.
 *
 * Over the base layers, {@link overlay} holds whatever the app draws on top (decals: roads, paths,
 * labels; see `DecalList`), an ordinary three.js scene graph in the world plane (z between 0 and
 * 10, drawn in `renderOrder`, double-sided: the page view is mirrored on WebGPU); an object draws
 * into the layers selected by {@link layerMask}. After editing either, call `vt.invalidate(rect, 'world')` so the pages that
 * show it render again.
 */
export class RenderedTileSource implements TileSource {
  /** What the source holds ({@link TileSource.info}). */
  readonly info: TileSourceInfo;
  /** The validated layout (pages per mip, border). */
  readonly layout: VirtualTextureLayout;
  /** The world rectangle the texture covers, in world units. */
  readonly world: Readonly<WorldRect>;
  /** Objects drawn over the base layers (decals); see {@link layerMask}. */
  readonly overlay = new Group();
  /** The colour space of each layer (its pool layer must match: `rgba8unorm-srgb` or `rgba8unorm`). */
  readonly colorSpaces: readonly ('srgb' | 'linear')[];
  private readonly scene = new Scene();
  private readonly camera = new OrthographicCamera(-1, 1, 1, -1, 0.5, 20);
  private readonly bases: Mesh[] = [];
  private readonly rect: UvRect = { minU: 0, minV: 0, maxU: 1, maxV: 1 };
  private disposed = false;

  /** @throws TesseraConfigError for an invalid layout, world rectangle or layer list. */
  constructor(options: RenderedTileSourceOptions) {
    const { world, layers } = options;
    if (!(world.width > 0 && world.height > 0 && Number.isFinite(world.x) && Number.isFinite(world.y))) {
      throw new TesseraConfigError('invalid-option', 'world must have a finite origin and a positive size');
    }
    if (layers.length < 1 || layers.length > 8 || new Set(layers.map((l) => l.name)).size !== layers.length) {
      throw new TesseraConfigError(
        'invalid-layers',
        'a rendered source needs 1..8 layers with distinct names',
      );
    }
    const info: TileSourceInfo = {
      widthPages: options.widthPages,
      heightPages: options.heightPages,
      tileSize: options.tileSize ?? 128,
      border: options.border ?? 4,
      rendered: true,
      layers: layers.map(
        (l): TileLayerInfo => ({
          name: l.name,
          format: (l.colorSpace ?? 'srgb') === 'srgb' ? 'rgba8unorm-srgb' : 'rgba8unorm',
          usage: l.usage ?? 'color',
        }),
      ),
    };
    this.layout = VirtualTextureLayout.fromSourceInfo(info);
    this.info = info;
    this.world = { ...world };
    this.colorSpaces = layers.map((l) => l.colorSpace ?? 'srgb');
    const geometry = new PlaneGeometry(world.width, world.height);
    layers.forEach((layer, index) => {
      const material = new MeshBasicNodeMaterial({ side: DoubleSide, depthTest: false, depthWrite: false });
      material.name = `tessera:rendered:${layer.name}`;
      material.colorNode = layer.node(positionWorld.xy as unknown as Node) as Expr;
      const base = new Mesh(geometry, material);
      base.position.set(world.x + world.width / 2, world.y + world.height / 2, 0);
      base.renderOrder = Number.MIN_SAFE_INTEGER;
      base.frustumCulled = false;
      base.layers.set(index + LAYER_OFFSET);
      this.bases.push(base);
      this.scene.add(base);
    });
    this.scene.add(this.overlay);
    this.camera.position.set(0, 0, 10);
  }

  /** The three `Layers` mask drawing an overlay object into the source layers `indices` (default: the first). */
  layerMask(indices: readonly number[] = [0]): number {
    let mask = 0;
    for (const i of indices) mask |= 1 << (i + LAYER_OFFSET);
    return mask;
  }

  /** Resolves at once with no bytes (the page is rendered at upload). Rejects like any source. */
  load(mip: number, x: number, y: number, signal: AbortSignal): Promise<TileData> {
    if (signal.aborted) return Promise.reject(signal.reason);
    if (this.disposed) {
      return Promise.reject(new TileSourceError('source-disposed', 'source disposed', false));
    }
    if (!this.layout.contains(mip, x, y)) {
      return Promise.reject(new TileSourceError('bad-index', `no page (${x}, ${y}) at mip ${mip}`, false));
    }
    return Promise.resolve(RENDERED_TILE);
  }

  /**
   * Renders layer `layer` of page (`x`, `y`) at `mip` into `target` (tile-sized). `rowsDown`: the
   * backend's render-target rows run top to bottom (WebGPU); the pool's tile rows always do, so on
   * WebGL2 (rows bottom up) the view is flipped and the copy needs no flip. Restores the renderer's
   * render target.
   */
  renderPage(
    renderer: WebGPURenderer,
    layer: number,
    mip: number,
    x: number,
    y: number,
    target: RenderTarget,
    rowsDown: boolean,
  ): void {
    const r = tileUvRect(this.layout, mip, x, y, this.rect);
    const { world } = this;
    const camera = this.camera;
    camera.left = world.x + r.minU * world.width;
    camera.right = world.x + r.maxU * world.width;
    const top = world.y + r.minV * world.height;
    const bottom = world.y + r.maxV * world.height;
    camera.top = rowsDown ? top : bottom;
    camera.bottom = rowsDown ? bottom : top;
    camera.updateProjectionMatrix();
    camera.layers.set(layer + LAYER_OFFSET);
    const previous = renderer.getRenderTarget();
    renderer.setRenderTarget(target);
    renderer.render(this.scene, camera);
    renderer.setRenderTarget(previous);
  }

  /** `rect` (world units) in the texture's uv (`uvSpace: 'virtual'`), into `out`. */
  worldToUv(rect: WorldRect, out: UvRect): UvRect {
    const w = this.world;
    out.minU = (rect.x - w.x) / w.width;
    out.maxU = (rect.x + rect.width - w.x) / w.width;
    out.minV = (rect.y - w.y) / w.height;
    out.maxV = (rect.y + rect.height - w.y) / w.height;
    return out;
  }

  /** True for the token {@link load} resolves. */
  static isRenderedTile(tile: TileData): boolean {
    return tile === RENDERED_TILE;
  }

  /** Frees the base materials and geometry (the overlay's objects are the app's). Later loads reject. */
  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    for (const base of this.bases) (base.material as MeshBasicNodeMaterial).dispose();
    this.bases[0]?.geometry.dispose();
  }
}
