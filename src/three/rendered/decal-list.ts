import { Box3, DoubleSide, type Mesh, type Object3D } from 'three';
import { TesseraConfigError } from '../../core/errors';
import type { RenderedTileSource, WorldRect } from './rendered-tile-source';

/** Where {@link DecalList} reports the world rectangle a change touched (e.g. `vt.invalidate(rect, 'world')`). */
export type DecalChangeListener = (rect: WorldRect) => void;

/** Options of {@link DecalList.add}. */
export interface DecalOptions {
  /** Source layers the decal draws into, by index. Default [0] (the first, usually albedo). */
  layers?: readonly number[];
  /** Draw order among decals (higher on top). Default: the order of addition. */
  order?: number;
}

/**
 * The decals drawn over a {@link RenderedTileSource}'s base layers (roads, paths, tracks, labels),
 * as a list the app edits at run time. A decal is any three.js object in the world plane (x, y in
 * world units, z in 0..10; its materials should blend and not depth-test; `add` makes them
 * double-sided, as the page view is mirrored on one backend). Each edit reports the
 * world rectangle it touched (the object's bounds, before and after) to `onChange`, which normally
 * invalidates the texture there (`vt.invalidate(rect, 'world')`), so only those pages re-render.
 */
export class DecalList {
  private readonly decals = new Set<Object3D>();
  private readonly box = new Box3();
  private nextOrder = 1;

  constructor(
    private readonly source: RenderedTileSource,
    /** Called with every changed rectangle (world units). */
    public onChange: DecalChangeListener | null = null,
  ) {}

  /** Decals drawn now. */
  get size(): number {
    return this.decals.size;
  }

  /**
   * Adds `decal` (drawn from the next render of the pages it covers) and reports its bounds.
   * @throws TesseraConfigError('invalid-option') for a decal already in the list or a layer index
   *   outside the source's layers.
   */
  add(decal: Object3D, options: DecalOptions = {}): WorldRect {
    if (this.decals.has(decal)) throw new TesseraConfigError('invalid-option', 'decal already in the list');
    const layers = options.layers ?? [0];
    for (const l of layers) {
      if (!Number.isInteger(l) || l < 0 || l >= this.source.info.layers.length) {
        throw new TesseraConfigError('invalid-option', `decal layer ${l} is not a layer of the source`);
      }
    }
    const mask = this.source.layerMask(layers);
    const order = options.order ?? this.nextOrder++;
    decal.traverse((object) => {
      object.layers.mask = mask;
      object.renderOrder = order;
      // Pages are drawn with the view mirrored on one backend (rows top down): no face culling.
      const material = (object as Mesh).material;
      for (const m of Array.isArray(material) ? material : material ? [material] : []) m.side = DoubleSide;
    });
    this.decals.add(decal);
    this.source.overlay.add(decal);
    return this.report(decal);
  }

  /**
   * Moves or reshapes `decal` through `edit` (anything that changes the object: position, geometry,
   * material uniforms) and reports the union of its bounds before and after.
   * @throws TesseraConfigError('invalid-option') for a decal not in the list.
   */
  update(decal: Object3D, edit: (decal: Object3D) => void): WorldRect {
    this.assertHas(decal);
    const before = this.bounds(decal);
    edit(decal);
    const after = this.bounds(decal);
    const x = Math.min(before.x, after.x);
    const y = Math.min(before.y, after.y);
    const rect = {
      x,
      y,
      width: Math.max(before.x + before.width, after.x + after.width) - x,
      height: Math.max(before.y + before.height, after.y + after.height) - y,
    };
    this.onChange?.(rect);
    return rect;
  }

  /** Removes `decal` (the app keeps and disposes its geometry and materials) and reports its bounds. */
  remove(decal: Object3D): WorldRect {
    this.assertHas(decal);
    const rect = this.bounds(decal);
    this.decals.delete(decal);
    this.source.overlay.remove(decal);
    this.onChange?.(rect);
    return rect;
  }

  /** The world rectangle `decal` covers now (its bounding box in x and y). */
  bounds(decal: Object3D): WorldRect {
    decal.updateMatrixWorld(true);
    const box = this.box.setFromObject(decal, true);
    if (box.isEmpty()) return { x: 0, y: 0, width: 0, height: 0 };
    return { x: box.min.x, y: box.min.y, width: box.max.x - box.min.x, height: box.max.y - box.min.y };
  }

  private report(decal: Object3D): WorldRect {
    const rect = this.bounds(decal);
    this.onChange?.(rect);
    return rect;
  }

  private assertHas(decal: Object3D): void {
    if (!this.decals.has(decal)) throw new TesseraConfigError('invalid-option', 'decal not in the list');
  }
}
