/**
 * One globe from orbit to street level over one web-map pyramid (XYZ or PMTiles, z18 and deeper):
 * a cascade of virtual textures the library keeps for the application. A texture holds at most
 * 4096 pages a side, so one reaches about zoom 10-11; the globe keeps one whole-world texture down
 * to the finest zoom that fits, plus regional textures (4096 x 4096 pages each) of the deeper zooms
 * around the camera's ground point, moved (a new texture added, the old one removed and its pages
 * freed once the new one can draw) when the camera nears a region's edge or jumps elsewhere.
 * {@link ImageryGlobe.colorNode} draws, per pixel, the finest texture covering the point, blended
 * into the next coarser across a band at each region's edge. Placement arithmetic:
 * src/sources/imagery/globe-cascade.ts; design: ARCHITECTURE.md, "Imagery globe".
 */

import { type Camera, type Material, Vector3 } from 'three';
import {
  atan,
  cameraProjectionMatrixInverse,
  cameraWorldMatrix,
  clamp,
  cos,
  float,
  log,
  max,
  min,
  mix,
  screenUV,
  select,
  sin,
  sqrt,
  step,
  uniform,
  vec2,
  vec3,
  vec4,
} from 'three/tsl';
import { Node, type NodeBuilder } from 'three/webgpu';
import { TesseraConfigError, TesseraError } from '../core/errors';
import type { TileSourceRequestCounters } from '../core/vt/tile-source';
import {
  type AnchorFrame,
  ATANH_SERIES_LIMIT,
  anchorFrame,
  type GlobeCascadeLevel,
  MERCATOR_MAX_LATITUDE,
  mercatorY,
  placeRegion,
  planGlobeCascade,
  regionShouldMove,
  SERIES_LIMIT,
} from '../sources/imagery/globe-cascade';
import type { ImageryPyramid, ImageryPyramidInfo, ImageryTile } from '../sources/imagery/imagery-pyramid';
import { ImageryTileSource } from '../sources/imagery/imagery-tile-source';
import type { VirtualUv } from './sampling/sampling-context';
import { VirtualTextureNode } from './sampling/virtual-texture-node';
import { materialOfBuilder } from './three-internals';
import type { VirtualTexture } from './virtual-texture';
import type { VirtualTextureSystem } from './virtual-texture-system';

// biome-ignore lint/suspicious/noExplicitAny: TSL node graph values.
type Expr = any;

/** Options of {@link ImageryGlobe}. */
export interface ImageryGlobeOptions {
  /** Radius of the globe's sphere, world units. Default 1. */
  radius?: number;
  /** Centre of the globe's sphere, world units (the sphere is not rotated: north is +y). Default the origin. */
  center?: { x: number; y: number; z: number };
  /** Decoded source tiles each texture keeps for its neighbouring pages, bytes (CPU memory). Default 16 MiB. */
  cacheBytes?: number;
  /**
   * Width of the band inside each region's edge across which it fades into the coarser texture,
   * as a share of the region's side (0..0.25). Default 1/16.
   */
  blendBand?: number;
}

/** One texture of the cascade as it stands, for HUDs and tests. */
export interface ImageryGlobeLevel {
  /** Zoom of the texture's mip 0. */
  readonly zoom: number;
  /** False for the whole-world texture. */
  readonly region: boolean;
  /** The texture drawn now (null: a region not placed yet). */
  readonly texture: VirtualTexture | null;
  /** Where its content starts, column in texels of {@link zoom} (0 for the whole world). */
  readonly originX: number;
  /** Where its content starts, row in texels of {@link zoom} (0 for the whole world). */
  readonly originY: number;
  /** Side of its content, texels of {@link zoom}. */
  readonly texels: number;
  /** True while a moved copy of this region loads its coarsest mips, to replace it. */
  readonly moving: boolean;
}

/** Counters of an {@link ImageryGlobe}. */
export interface ImageryGlobeCounters {
  /** Regions placed (first placements and moves). */
  regionMoves: number;
  /** Textures removed from the system (moved regions, abandoned replacements). */
  texturesRemoved: number;
}

/** A placed texture of one level: its source, texture and content origin. */
interface Placed {
  source: ImageryTileSource;
  vt: VirtualTexture;
  originX: number;
  originY: number;
}

/** One level of the cascade with its textures and uniforms. */
interface LevelState {
  plan: GlobeCascadeLevel;
  /** Texels of the whole world at the level's zoom. */
  worldTexels: number;
  /** Pyramid levels skipped so that its level 0 is this zoom. */
  levelOffset: number;
  active: Placed | null;
  /** A region moved, loading its coarsest mips before it replaces {@link active}. */
  pending: Placed | null;
  /** Anchor's place in the texture's virtual uv (vec2). */
  offset: Expr;
  /** Virtual uv per radian of ground offset. */
  scale: Expr;
  /** 1 while the level has a texture drawn, else 0 (its weight then vanishes). */
  present: Expr;
  /**
   * The level's uv, footprint limits and request mask, built once: every graph the globe builds
   * reuses it, so the separate feedback pass, which keeps one entry per texture and uv, keeps one
   * per level however often the materials rebuild.
   */
  virtualUv: VirtualUv | null;
}

/** Region alignment: whole source tiles and the region texture's coarsest mip (4096 texels). */
function regionAlignment(pages: number, tileSize: number): number {
  return Math.max(pages, tileSize);
}

/**
 * A web map's imagery on a globe from the whole Earth to the pyramid's finest zoom, within the
 * budget of the {@link VirtualTextureSystem} it is given:
 *
 * ```ts
 * const globe = new ImageryGlobe(vts, await openXyzPyramid(tileJsonUrl));
 * const material = new MeshBasicNodeMaterial();
 * material.colorNode = globe.colorNode();
 * scene.add(new Mesh(new SphereGeometry(1, 128, 64), material));
 * // every frame, before vts.update:
 * globe.update(camera);
 * ```
 *
 * The colour node computes each pixel's ground point itself, from the pixel's ray and the camera
 * (not from the mesh's uv, which float32 holds only to about zoom 16): the mesh only decides which
 * pixels are drawn, so any sphere of the given radius and centre will do. The imagery is Web
 * Mercator, longitude 0 on +x and 90 degrees east on -z, as `SphereGeometry`'s uv with
 * `webMercatorUv()` places it; beyond +/-85.05 degrees the edge rows repeat.
 */
export class ImageryGlobe {
  /** The system whose budget, pool and feedback the globe's textures use. */
  readonly system: VirtualTextureSystem;
  /** The pyramid the imagery comes from (disposed with the globe). */
  readonly pyramid: ImageryPyramid;
  /** Radius of the sphere, world units. */
  readonly radius: number;
  /** Centre of the sphere, world units. */
  readonly center: { x: number; y: number; z: number };
  private readonly tileSize: number;
  private readonly maxZoom: number;
  private readonly cacheBytes: number;
  private readonly blendBand: number;
  private readonly levels: LevelState[] = [];
  /** Bumped when the textures drawn change: part of the colour nodes' cache key. */
  private version = 0;
  private disposed = false;
  private readonly materials = new Set<WeakRef<Material>>();
  private readonly counts: ImageryGlobeCounters = { regionMoves: 0, texturesRemoved: 0 };
  // Uniforms of the anchor frame (see globe-cascade.ts anchorFrame), updated by update().
  private readonly distanceUniform = uniform(2);
  private readonly cUniform = uniform(3);
  private readonly latUniform = uniform(0);
  private readonly sinLatUniform = uniform(0);
  private readonly cosLatUniform = uniform(1);
  // East, north and up at the anchor: three vec3 uniforms rather than a mat3 (no std140 padding
  // of a mat3 to get right on either backend's uniform buffers).
  private readonly eastUniform = uniform(new Vector3(1, 0, 0));
  private readonly northUniform = uniform(new Vector3(0, 1, 0));
  private readonly upUniform = uniform(new Vector3(0, 0, 1));
  private anchor: AnchorFrame | null = null;

  /**
   * @throws TesseraConfigError `invalid-option` (a pyramid that is not a whole-world web map:
   *   square levels of square power-of-two tiles halving from level to level, longitude wrapping;
   *   or bad options), `too-large` (even its coarsest zoom is over 4096 pages), and what `add`
   *   throws for the whole-world texture (`budget-too-small`, `invalid-option` past 16 textures).
   */
  constructor(system: VirtualTextureSystem, pyramid: ImageryPyramid, options: ImageryGlobeOptions = {}) {
    this.system = system;
    this.pyramid = pyramid;
    this.radius = options.radius ?? 1;
    this.center = { x: options.center?.x ?? 0, y: options.center?.y ?? 0, z: options.center?.z ?? 0 };
    this.cacheBytes = options.cacheBytes ?? 16 * 2 ** 20;
    this.blendBand = options.blendBand ?? 1 / 16;
    if (!(this.radius > 0) || !(this.blendBand > 0 && this.blendBand <= 0.25)) {
      throw new TesseraConfigError(
        'invalid-option',
        `radius ${this.radius} must be > 0 and blendBand ${this.blendBand} in (0, 0.25]`,
      );
    }
    const { tileSize, maxZoom, minZoom } = webMapZooms(pyramid.info);
    this.tileSize = tileSize;
    this.maxZoom = maxZoom;
    const payload = system.tileSize - 2 * system.border;
    const plan = planGlobeCascade(minZoom, maxZoom, tileSize, payload);
    for (const level of plan.levels) {
      const worldTexels = tileSize * 2 ** level.zoom;
      this.levels.push({
        plan: level,
        worldTexels,
        levelOffset: maxZoom - level.zoom,
        active: null,
        pending: null,
        offset: uniform(vec2(0, 0)),
        scale: uniform(0),
        present: uniform(0),
        virtualUv: null,
      });
    }
    // The whole world is there from the start; a region is placed once the camera is lower than it is wide.
    this.levels[0].active = this.place(this.levels[0], 0, 0);
  }

  /** The textures of the cascade as they stand: the whole world first, then the regions, coarse to fine. */
  get cascade(): readonly ImageryGlobeLevel[] {
    return this.levels.map((level) => ({
      zoom: level.plan.zoom,
      region: level.plan.region,
      texture: level.active?.vt ?? null,
      originX: level.active?.originX ?? 0,
      originY: level.active?.originY ?? 0,
      texels: level.plan.texels,
      moving: level.pending !== null,
    }));
  }

  /** Regions placed and textures removed so far. */
  get counters(): Readonly<ImageryGlobeCounters> {
    return this.counts;
  }

  /** The pyramid's request counts (one client serves every texture). */
  get requestCounters(): TileSourceRequestCounters | undefined {
    return this.pyramid.requestCounters;
  }

  /**
   * A vec4 TSL node: the imagery's colour at each pixel of the globe (linear, alpha 1 where the
   * imagery has data). Every call returns a new node over the same cascade; the materials using
   * one rebuild themselves when the cascade's textures change.
   * @throws TesseraError('disposed') after {@link dispose}.
   */
  colorNode(): Node<'vec4'> {
    if (this.disposed) throw new TesseraError('disposed', 'this ImageryGlobe was disposed');
    return new GlobeColorNode(this) as unknown as Node<'vec4'>;
  }

  /**
   * Follows `camera`: places the anchor under it (uniforms) and, once the camera is lower than a
   * region is wide, places the region or moves it when the camera nears its edge. Call once per frame before `VirtualTextureSystem.update`. Allocates only when a
   * region moves.
   * @throws TesseraError('disposed') after {@link dispose}.
   */
  update(camera: Camera): void {
    if (this.disposed) throw new TesseraError('disposed', 'this ImageryGlobe was disposed');
    camera.updateMatrixWorld();
    const m = camera.matrixWorld.elements;
    const anchor = anchorFrame(
      (m[12] - this.center.x) / this.radius,
      (m[13] - this.center.y) / this.radius,
      (m[14] - this.center.z) / this.radius,
      this.anchor ?? undefined,
    );
    this.anchor = anchor;
    this.distanceUniform.value = anchor.distance;
    this.cUniform.value = anchor.c;
    this.latUniform.value = anchor.lat;
    this.sinLatUniform.value = Math.sin(anchor.lat);
    this.cosLatUniform.value = Math.cos(anchor.lat);
    const b = anchor.basis;
    this.eastUniform.value.set(b[0], b[1], b[2]);
    this.northUniform.value.set(b[3], b[4], b[5]);
    this.upUniform.value.set(b[6], b[7], b[8]);
    const u = anchor.lon / (2 * Math.PI) + 0.5;
    const v = 0.5 - mercatorY(anchor.lat) / (2 * Math.PI);
    let changed = false;
    for (const level of this.levels) {
      const groundX = u * level.worldTexels;
      const groundY = v * level.worldTexels;
      if (level.plan.region) {
        // A region is placed and moved only for a camera lower than the region is wide: higher,
        // the view needs no zoom finer than the whole-world texture holds, and a region chasing a
        // camera that flies down from orbit would be added and dropped before it is ever drawn.
        const width = ((2 * Math.PI * level.plan.texels) / level.worldTexels) * Math.cos(anchor.lat);
        const near = anchor.distance - 1 < width;
        changed = this.follow(level, groundX, groundY, near) || changed;
      }
      const placed = level.active;
      level.present.value = placed === null ? 0 : 1;
      if (placed === null) continue;
      const padded = level.plan.pages * (this.system.tileSize - 2 * this.system.border);
      (level.offset.value as { set(x: number, y: number): void }).set(
        (groundX - placed.originX) / padded,
        (groundY - placed.originY) / padded,
      );
      level.scale.value = level.worldTexels / (2 * Math.PI * padded);
    }
    if (changed) this.texturesChanged();
  }

  /**
   * Removes every texture from the system (their pages and page tables go back to the budget),
   * frees the decoded tiles and disposes the pyramid. Materials using a colour node draw
   * transparent black afterwards.
   */
  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    for (const level of this.levels) {
      for (const placed of [level.active, level.pending]) if (placed !== null) this.release(placed);
      level.active = null;
      level.pending = null;
    }
    this.texturesChanged();
    this.pyramid.dispose?.();
  }

  /** @internal Builds the colour graph for `builder`'s material (see {@link GlobeColorNode}). */
  buildColor(builder: NodeBuilder): Expr {
    const material = materialOfBuilder(builder);
    if (material !== null) this.remember(material);
    const world = this.levels[0].active;
    if (this.disposed || world === null) return vec4(0);
    const uvs = this.levelUvs();
    let colour: Expr = null;
    for (let i = 0; i < this.levels.length; i++) {
      const level = this.levels[i];
      if (level.active === null) continue;
      const sample: Expr = new VirtualTextureNode(
        level.active.vt,
        uvs[i].uv as Expr,
        0,
        null,
        'virtual',
        uvs[i],
      );
      colour = colour === null ? sample : mix(colour, sample, this.weight(i, uvs[i]));
    }
    return colour;
  }

  /**
   * Each level's {@link LevelState.virtualUv}, built at the first graph: the uv from the ground
   * offset, and the mask requesting only where the level shows and no finer one covers the pixel.
   */
  private levelUvs(): VirtualUv[] {
    if (this.levels[0].virtualUv === null) {
      const ground = this.groundOffset();
      const uvs = this.levels.map((level) =>
        (level.offset as Expr).add(ground.mul(level.scale as Expr)).toVar(),
      );
      const weights = uvs.map((uvNode: Expr, i: number) => this.weight(i, { uv: uvNode } as VirtualUv));
      const payload = this.system.tileSize - 2 * this.system.border;
      this.levels.forEach((level, i) => {
        const content = level.plan.texels / (level.plan.pages * payload);
        let finerCovers: Expr = float(0);
        for (let j = i + 1; j < weights.length; j++)
          finerCovers = max(finerCovers, step(float(1), weights[j]));
        level.virtualUv = {
          uv: uvs[i],
          maxU: Math.min(content, 1 - 2 ** -24),
          maxV: Math.min(content, 1 - 2 ** -24),
          ...(i === 0 ? { wrapU: content } : {}),
          requestMask: weights[i].greaterThan(0).and(finerCovers.lessThan(0.5)),
        };
      });
    }
    return this.levels.map((level) => level.virtualUv as VirtualUv);
  }

  /** Weight of level `i` at `uv`: 1 inside a drawn region, falling to 0 across the band at its edge. */
  private weight(i: number, virtualUv: VirtualUv): Expr {
    if (i === 0) return float(1);
    const uvNode = virtualUv.uv as Expr;
    const edge: Expr = min(min(uvNode.x, uvNode.y), min(float(1).sub(uvNode.x), float(1).sub(uvNode.y)));
    return clamp(edge.div(this.blendBand), 0, 1).mul(this.levels[i].present as Expr);
  }

  /** @internal The cache key of colour nodes: the cascade's and the system's graph versions. */
  get graphVersion(): number {
    const world = this.levels[0].active;
    return this.version * 0x10000 + ((world?.vt.context.version ?? 0) & 0xffff);
  }

  /**
   * The ground point of the pixel relative to the anchor, vec2 (dLon, -dMercator) in radians (the
   * steps of globe-cascade.ts `groundOffset`): the pixel's ray from the screen position and the
   * camera's matrices, met with the unit sphere in the anchor's east/north/up frame, where the
   * camera sits at (0, 0, distance) and every term near the camera is small.
   */
  private groundOffset(): Expr {
    const ndc = vec2(screenUV.x.mul(2).sub(1), float(1).sub(screenUV.y.mul(2)));
    const viewPoint: Expr = (cameraProjectionMatrixInverse as Expr).mul(vec4(ndc, 1, 1));
    const viewDir: Expr = viewPoint.xyz.div(viewPoint.w);
    const worldDir: Expr = (cameraWorldMatrix as Expr).mul(vec4(viewDir, 0)).xyz.normalize();
    const dir: Expr = vec3(
      worldDir.dot(this.eastUniform),
      worldDir.dot(this.northUniform),
      worldDir.dot(this.upUniform),
    ).toVar();
    const distance: Expr = this.distanceUniform;
    const c: Expr = this.cUniform;
    const sinA: Expr = this.sinLatUniform;
    const cosA: Expr = this.cosLatUniform;
    const b: Expr = distance.mul(dir.z);
    // Rays past the limb (silhouette pixels of a coarse mesh) take the tangent point.
    const disc: Expr = max(b.mul(b).sub(c), 0);
    const t: Expr = c.div(max(b.negate().add(sqrt(disc)), 1e-30)).toVar();
    const east: Expr = t.mul(dir.x);
    const north: Expr = t.mul(dir.y).toVar();
    const up: Expr = distance.add(t.mul(dir.z));
    const equatorial: Expr = cosA.mul(up).sub(sinA.mul(north)).toVar();
    const dLon: Expr = preciseAtan2(east, equatorial).toVar();
    const cosH: Expr = sqrt(equatorial.mul(equatorial).add(east.mul(east)));
    const halfLon: Expr = preciseSin(dLon.mul(0.5));
    const sinD: Expr = north.sub(sinA.mul(cosH).mul(2).mul(halfLon.mul(halfLon)));
    const sinH: Expr = up.mul(sinA).add(north.mul(cosA));
    const cosD: Expr = cosH.mul(cosA).add(sinH.mul(sinA));
    const latA: Expr = this.latUniform;
    const rawLat: Expr = preciseAtan2(sinD, cosD).toVar();
    const latH: Expr = latA.add(rawLat);
    // Past the Mercator edge the edge row repeats; inside, the precise difference is kept as it is.
    const clampedLat: Expr = clamp(latH, -MERCATOR_MAX_LATITUDE, MERCATOR_MAX_LATITUDE).sub(latA);
    const dLat: Expr = select(latH.abs().greaterThan(MERCATOR_MAX_LATITUDE), clampedLat, rawLat).toVar();
    // mercatorY(latA + dLat) - mercatorY(latA) = atanh((sin b - sin a) / (1 - sin a sin b)), with
    // sin b - sin a = 2 cos(a + d/2) sin(d/2) and the sums expanded about the anchor's exact sin
    // and cos: no sine of a large angle, whose absolute error would swamp the small difference.
    const half: Expr = dLat.mul(0.5);
    const sinHalf: Expr = preciseSin(half).toVar();
    const cosHalf: Expr = preciseCos(half);
    const sinB: Expr = sinA.mul(preciseCos(dLat)).add(cosA.mul(preciseSin(dLat)));
    const diff: Expr = cosA.mul(cosHalf).sub(sinA.mul(sinHalf)).mul(2).mul(sinHalf);
    const x: Expr = diff.div(float(1).sub(sinA.mul(sinB))).toVar();
    const x2: Expr = x.mul(x);
    const series: Expr = x.mul(float(1).add(x2.mul(float(1 / 3).add(x2.mul(0.2)))));
    const logs: Expr = log(float(1).add(x).div(float(1).sub(x))).mul(0.5);
    // A variable: three's GLSL writes a select as an unparenthesised ternary (`- c ? a : b`).
    const dMercator: Expr = select(x.abs().lessThan(ATANH_SERIES_LIMIT), series, logs).toVar();
    return vec2(dLon, dMercator.negate());
  }

  /**
   * Places, keeps or (when `near`) moves a region for the ground point; true when the textures
   * drawn changed.
   */
  private follow(level: LevelState, groundX: number, groundY: number, near: boolean): boolean {
    const { texels, pages } = level.plan;
    const alignment = regionAlignment(pages, this.tileSize);
    const active = level.active;
    const pending = level.pending;
    const target = pending ?? active;
    if (
      near &&
      (target === null ||
        regionShouldMove(
          target.originX,
          target.originY,
          groundX,
          groundY,
          texels,
          alignment,
          level.worldTexels,
        ))
    ) {
      const [x, y] = placeRegion(groundX, groundY, texels, alignment, level.worldTexels);
      // A camera that jumped again before the last move finished: that move is abandoned.
      if (pending !== null) this.release(pending);
      level.pending =
        active !== null && active.originX === x && active.originY === y ? null : this.place(level, x, y);
      this.counts.regionMoves++;
    }
    const moved = level.pending;
    if (moved === null || !moved.vt.isReady) return false;
    // The moved region can draw (its coarsest mips are in): it replaces the old one.
    if (active !== null) this.release(active);
    level.active = moved;
    level.pending = null;
    return true;
  }

  /** Adds the texture of `level` with its content starting at (`x`, `y`) texels. */
  private place(level: LevelState, x: number, y: number): Placed {
    const view = new PyramidFromLevel(this.pyramid, level.levelOffset);
    const source = new ImageryTileSource(view, {
      cacheBytes: this.cacheBytes,
      ...(level.plan.region ? { region: { x, y, width: level.plan.texels, height: level.plan.texels } } : {}),
    });
    try {
      const vt = this.system.add(source, {
        name: `globe-z${level.plan.zoom}${level.plan.region ? `@${x},${y}` : ''}`,
      });
      return { source, vt, originX: x, originY: y };
    } catch (error) {
      source.dispose();
      throw error;
    }
  }

  private release(placed: Placed): void {
    if (!placed.vt.removed) this.system.remove(placed.vt);
    placed.source.dispose();
    this.counts.texturesRemoved++;
  }

  private remember(material: Material): void {
    for (const ref of this.materials) if (ref.deref() === material) return;
    this.materials.add(new WeakRef(material));
  }

  /** The textures drawn changed: every material using a colour node rebuilds at its next draw. */
  private texturesChanged(): void {
    this.version++;
    for (const ref of this.materials) {
      const material = ref.deref();
      if (material === undefined) this.materials.delete(ref);
      else material.needsUpdate = true;
    }
  }

  /** Finest zoom of the pyramid. */
  get finestZoom(): number {
    return this.maxZoom;
  }
}

/*
 * Series below SERIES_LIMIT (globe-cascade.ts): GPU sines are only required to be within 2^-11
 * absolute, no precision at all for the 1e-5-radian angles of a street-level view. Chosen by a
 * 0/1 weight, not a branch: both sides are finite (the series' argument is clamped) and
 * `mix(a, b, 1)` is exactly `b`.
 */

/** 1 where |x| < SERIES_LIMIT, else 0. */
function isSmall(x: Expr): Expr {
  return step(x.abs(), float(SERIES_LIMIT * (1 - 2 ** -20)));
}

/** sin(x), by its series for small x. */
function preciseSin(x: Expr): Expr {
  const s: Expr = clamp(x, -SERIES_LIMIT, SERIES_LIMIT);
  const s2: Expr = s.mul(s);
  return mix(sin(x), s.mul(float(1).sub(s2.div(6).mul(float(1).sub(s2.div(20))))), isSmall(x));
}

/** cos(x), by its series for small x. */
function preciseCos(x: Expr): Expr {
  const s: Expr = clamp(x, -SERIES_LIMIT, SERIES_LIMIT);
  const s2: Expr = s.mul(s);
  return mix(cos(x), float(1).sub(s2.mul(0.5).mul(float(1).sub(s2.div(12)))), isSmall(x));
}

/** atan2(y, x), by the series of atan(y / x) when x is positive and that ratio small. */
function preciseAtan2(y: Expr, x: Expr): Expr {
  const ratio: Expr = y.div(max(x, 1e-30));
  const r: Expr = clamp(ratio, -SERIES_LIMIT, SERIES_LIMIT);
  const r2: Expr = r.mul(r);
  const weight: Expr = isSmall(ratio).mul(step(float(0), x));
  return mix((atan as Expr)(y, x), r.mul(float(1).sub(r2.mul(float(1 / 3).sub(r2.mul(0.2))))), weight);
}

/**
 * The node {@link ImageryGlobe.colorNode} returns: its graph is built from the cascade's textures
 * when three builds the material, and its cache key follows the cascade, so a moved region
 * recompiles the materials using it.
 */
class GlobeColorNode extends Node {
  static get type(): string {
    return 'GlobeColorNode';
  }

  constructor(private readonly globe: ImageryGlobe) {
    super('vec4');
  }

  override customCacheKey(): number {
    return this.id * 0x1000000 + (this.globe.graphVersion % 0x1000000);
  }

  override setup(builder: NodeBuilder): Node {
    return this.globe.buildColor(builder);
  }
}

/**
 * The zooms of a whole-world web map (levels of square power-of-two tiles, halving, longitude
 * wrapping), from its levels.
 * @throws TesseraConfigError `invalid-option` for any other pyramid.
 */
function webMapZooms(info: ImageryPyramidInfo): { tileSize: number; maxZoom: number; minZoom: number } {
  const levels = info.levels;
  const first = levels[0];
  const tileSize = first?.tileWidth ?? 0;
  const tilesAcross = first === undefined ? 0 : first.width / tileSize;
  const maxZoom = Math.log2(tilesAcross);
  const webMap =
    info.wrapX === 'repeat' &&
    tileSize > 0 &&
    (tileSize & (tileSize - 1)) === 0 &&
    Number.isInteger(maxZoom) &&
    levels.every(
      (level, i) =>
        level.tileWidth === tileSize &&
        level.tileHeight === tileSize &&
        level.width === level.height &&
        level.width === first.width / 2 ** i,
    );
  if (!webMap) {
    throw new TesseraConfigError(
      'invalid-option',
      'ImageryGlobe needs a whole-world web map (XYZ or PMTiles: square power-of-two tiles, zoom levels, longitude wrapping)',
    );
  }
  return { tileSize, maxZoom, minZoom: maxZoom - (levels.length - 1) };
}

/**
 * The levels of a pyramid from level `offset` on, as a pyramid of their own (level 0 = the
 * original's level `offset`). It does not dispose the original, which several views share.
 */
class PyramidFromLevel implements ImageryPyramid {
  readonly info: ImageryPyramidInfo;
  constructor(
    private readonly inner: ImageryPyramid,
    private readonly offset: number,
  ) {
    const info = inner.info;
    this.info = {
      levels: info.levels.slice(offset),
      ...(info.wrapX !== undefined ? { wrapX: info.wrapX } : {}),
      ...(info.attribution !== undefined ? { attribution: info.attribution } : {}),
    };
  }

  get requestCounters(): TileSourceRequestCounters | undefined {
    return this.inner.requestCounters;
  }

  loadTile(level: number, x: number, y: number, signal: AbortSignal): Promise<ImageryTile | null> {
    return this.inner.loadTile(level + this.offset, x, y, signal);
  }
}
