/**
 * The terrain as a runtime virtual texture (default `?source=rendered`): every page is rendered on
 * the GPU from a TSL material instead of generated on the CPU. Its base is a splat map driven by
 * the procedural world (its height, slope and water, and the regions' biomes: valley grass, desert
 * sand, snowfield snow, rock on steep ground) over four tiling detail textures with real
 * high-frequency content; over it, decals: roads between the regions (through the gates, with
 * dashed centre lines and tyre tracks), dirt paths near the start, region name labels, and a trail
 * the tour paints at run time through `vt.invalidate` (only the pages under each new stretch
 * re-render).
 */

import type { VirtualTexture } from '@tessera-vt/tessera';
import { PROCEDURAL_SEA_LEVEL, type ProceduralWorld } from '@tessera-vt/tessera/sources';
import {
  DecalList,
  RenderedTileSource,
  ribbonGeometry,
  splatAlbedo,
  type WorldRect,
} from '@tessera-vt/tessera/three';
import {
  CanvasTexture,
  DataTexture,
  DataUtils,
  HalfFloatType,
  LinearFilter,
  Mesh,
  PlaneGeometry,
  RedFormat,
  RGBAFormat,
  SRGBColorSpace,
} from 'three';
import { dFdx, dFdy, float, hash, normalize, texture, uv, vec2, vec3, vec4 } from 'three/tsl';
import { MeshBasicNodeMaterial, type Node } from 'three/webgpu';
import { REGIONS, START_POINT } from '../regions';
import { ProceduralHeightField, TERRAIN_SIZE_METERS } from '../world/height-field';
import { seededRandom } from '../world/seeded-random';
import { createDetailTextures, type DetailTextures } from './detail-textures';

// biome-ignore lint/suspicious/noExplicitAny: TSL node graph values.
type Expr = any;

/** Pages of mip 0 per side: 1024 x 120 texels over 4096 m, 3.3 cm a texel (as the CPU world). */
export const RENDERED_TERRAIN_PAGES = 1024;
/** Texels per side of the splat map and height map (32 m a texel). */
const MAP_SIZE = 128;
/** The texture's world rectangle: demo metres, x east, y = the demo's z. */
const WORLD: WorldRect = {
  x: -TERRAIN_SIZE_METERS / 2,
  y: -TERRAIN_SIZE_METERS / 2,
  width: TERRAIN_SIZE_METERS,
  height: TERRAIN_SIZE_METERS,
};
/** Linear colour of water (where every splat weight is 0). */
const WATER: [number, number, number] = [0.03, 0.09, 0.12];
/** Most trail segments kept (older ones stay painted; no more are added). */
const MAX_TRAIL_SEGMENTS = 600;

/** The rendered terrain: its source, decals, and the tour's trail painter. */
export class RenderedTerrain {
  readonly source: RenderedTileSource;
  readonly decals: DecalList;
  private readonly textures: DetailTextures;
  private readonly maps: DataTexture[];
  private readonly owned: { dispose(): void }[] = [];
  private vt: VirtualTexture | null = null;
  private trailX = Number.NaN;
  private trailZ = 0;
  private trailSegments = 0;
  private readonly trailMaterial: MeshBasicNodeMaterial;

  constructor(world: ProceduralWorld, seed: number) {
    const heights = new ProceduralHeightField(world);
    this.textures = createDetailTextures(seed);
    const splat = splatMap(world, heights);
    const heightMap = heightTexture(heights);
    this.maps = [splat, heightMap];
    const t = this.textures;
    const albedo = splatAlbedo({
      splatMap: splat,
      world: WORLD,
      emptyColor: WATER,
      layers: [
        { texture: t.grass, repeat: 8 },
        { texture: t.rock, repeat: 11 },
        { texture: t.sand, repeat: 7 },
        { texture: t.snow, repeat: 9 },
      ],
    });
    this.source = new RenderedTileSource({
      widthPages: RENDERED_TERRAIN_PAGES,
      heightPages: RENDERED_TERRAIN_PAGES,
      world: WORLD,
      layers: [
        { name: 'albedo', node: albedo },
        {
          name: 'normal',
          colorSpace: 'linear',
          usage: 'normal',
          node: (p) => terrainNormal(p, albedo, heightMap),
        },
      ],
    });
    this.decals = new DecalList(this.source, (rect) => this.vt?.invalidate(rect, 'world'));
    this.trailMaterial = this.own(paintMaterial([0.42, 0.08, 0.05], 0.85));
    this.addRoads(seed);
    this.addLabels();
  }

  /** Starts invalidating `vt` (the texture of this source) on every decal change. */
  bind(vt: VirtualTexture): void {
    this.vt = vt;
  }

  /**
   * Extends the painted trail to world (`x`, `z`) metres once it is 3 m from its last point: one
   * new ribbon stretch, whose rectangle alone is invalidated.
   */
  paintTrail(x: number, z: number): void {
    if (Number.isNaN(this.trailX)) {
      this.trailX = x;
      this.trailZ = z;
      return;
    }
    const d = Math.hypot(x - this.trailX, z - this.trailZ);
    if (d < 3 || this.trailSegments >= MAX_TRAIL_SEGMENTS) return;
    if (d > 60) {
      // A teleport: start a new trail here rather than draw a line across the map.
      this.trailX = x;
      this.trailZ = z;
      return;
    }
    const geometry = this.own(ribbonGeometry([this.trailX, this.trailZ, x, z], 1.4, 2));
    this.decals.add(new Mesh(geometry, this.trailMaterial), { order: 1000 + this.trailSegments });
    this.trailSegments++;
    this.trailX = x;
    this.trailZ = z;
  }

  dispose(): void {
    this.source.dispose();
    for (const texture of [...Object.values(this.textures), ...this.maps]) texture.dispose();
    for (const o of this.owned) o.dispose();
  }

  private own<T extends { dispose(): void }>(o: T): T {
    this.owned.push(o);
    return o;
  }

  /** Roads between the region centres (through the gates halfway), and dirt paths near the start. */
  private addRoads(seed: number): void {
    const random = seededRandom(seed ^ 0x40ad);
    const road = this.own(roadMaterial());
    const tracks = this.own(tracksMaterial());
    for (let i = 0; i < REGIONS.length; i++) {
      for (let j = i + 1; j < REGIONS.length; j++) {
        const a = REGIONS[i].centre;
        const b = REGIONS[j].centre;
        const points = wiggle(a.x, a.z, b.x, b.z, 60, 40 + random() * 40, random);
        this.decals.add(new Mesh(this.own(ribbonGeometry(points, 7, 1)), road));
        if (REGIONS[i].name === 'desert' || REGIONS[j].name === 'desert') {
          this.decals.add(new Mesh(this.own(ribbonGeometry(offset(points, 5.5), 2.2, 1.5)), tracks));
        }
      }
    }
    const dirt = this.own(paintMaterial([0.2, 0.13, 0.07], 0.9));
    for (let k = 0; k < 6; k++) {
      const x = START_POINT.x + (random() - 0.5) * 300;
      const z = START_POINT.z + (random() - 0.5) * 300;
      const angle = random() * Math.PI * 2;
      const length = 150 + random() * 200;
      const points = wiggle(x, z, x + Math.cos(angle) * length, z + Math.sin(angle) * length, 24, 12, random);
      this.decals.add(new Mesh(this.own(ribbonGeometry(points, 2.4, 1.2)), dirt));
    }
  }

  /** The regions' names painted large beside their centres (readable from the air). */
  private addLabels(): void {
    for (const region of REGIONS) {
      const canvas = document.createElement('canvas');
      canvas.width = 512;
      canvas.height = 128;
      const ctx = canvas.getContext('2d') as CanvasRenderingContext2D;
      ctx.font = 'bold 96px sans-serif';
      ctx.textAlign = 'center';
      ctx.textBaseline = 'middle';
      ctx.lineWidth = 10;
      ctx.strokeStyle = 'rgba(20, 16, 10, 0.8)';
      ctx.strokeText(region.name.toUpperCase(), 256, 64);
      ctx.fillStyle = 'rgba(250, 240, 210, 0.95)';
      ctx.fillText(region.name.toUpperCase(), 256, 64);
      const map = this.own(new CanvasTexture(canvas));
      map.colorSpace = SRGBColorSpace;
      // Canvas rows run down, as the texture's y (the demo's +z, the screen's down seen from above).
      map.flipY = false;
      const material = this.own(
        new MeshBasicNodeMaterial({ transparent: true, depthTest: false, depthWrite: false }),
      );
      const sample: Expr = texture(map, uv());
      material.colorNode = vec4(sample.rgb, 1);
      material.opacityNode = sample.a;
      const label = new Mesh(this.own(new PlaneGeometry(240, 60)), material);
      label.position.set(region.centre.x, region.centre.z + 140, 3);
      this.decals.add(label, { order: 500 });
    }
  }
}

/** The splat map: grass, rock, sand, snow weights (r, g, b, a) from heights, slopes and regions. */
function splatMap(world: ProceduralWorld, heights: ProceduralHeightField): DataTexture {
  const bytes = new Uint8Array(MAP_SIZE * MAP_SIZE * 4);
  const step = TERRAIN_SIZE_METERS / MAP_SIZE;
  const h = new Float32Array((MAP_SIZE + 1) * (MAP_SIZE + 1));
  const wet = new Uint8Array(h.length);
  for (let j = 0; j <= MAP_SIZE; j++) {
    for (let i = 0; i <= MAP_SIZE; i++) {
      const x = WORLD.x + (i + 0.5) * step;
      const z = WORLD.y + (j + 0.5) * step;
      h[j * (MAP_SIZE + 1) + i] = heights.heightAt(x, z, step);
      const raw = world.heightAt(Math.min(1, (i + 0.5) / MAP_SIZE), Math.min(1, (j + 0.5) / MAP_SIZE), 4);
      wet[j * (MAP_SIZE + 1) + i] = raw < PROCEDURAL_SEA_LEVEL ? 1 : 0;
    }
  }
  const near = (name: string, x: number, z: number) => {
    const r = REGIONS.find((region) => region.name === name)!;
    return smoothstep(r.radius * 1.35, r.radius * 0.75, Math.hypot(x - r.centre.x, z - r.centre.z));
  };
  for (let j = 0; j < MAP_SIZE; j++) {
    for (let i = 0; i < MAP_SIZE; i++) {
      const c = j * (MAP_SIZE + 1) + i;
      const o = (j * MAP_SIZE + i) * 4;
      if (wet[c]) continue; // all weights 0: water
      const x = WORLD.x + (i + 0.5) * step;
      const z = WORLD.y + (j + 0.5) * step;
      const slope = Math.hypot(h[c + 1] - h[c], h[c + MAP_SIZE + 1] - h[c]) / step;
      const rock = smoothstep(0.12, 0.3, slope);
      const desert = near('desert', x, z);
      const snow = near('snowfield', x, z) * (1 - 0.6 * rock);
      const beach = smoothstep(2.5, 0.5, h[c]);
      const sand = Math.max(desert, beach) * (1 - snow) * (1 - 0.6 * rock);
      const grass = Math.max(0, 1 - rock - sand - snow);
      const sum = Math.max(1e-6, grass + rock + sand + snow);
      bytes.set(
        [grass, rock, sand, snow].map((w) => Math.round((w / sum) * 255)),
        o,
      );
    }
  }
  const map = new DataTexture(bytes, MAP_SIZE, MAP_SIZE, RGBAFormat);
  map.name = 'demo:splat-map';
  map.magFilter = LinearFilter;
  map.minFilter = LinearFilter;
  map.needsUpdate = true;
  return map;
}

/** Heights in metres (half floats, filterable on both backends) for the normal layer's slopes. */
function heightTexture(heights: ProceduralHeightField): DataTexture {
  const data = new Uint16Array(MAP_SIZE * MAP_SIZE);
  const step = TERRAIN_SIZE_METERS / MAP_SIZE;
  for (let j = 0; j < MAP_SIZE; j++) {
    for (let i = 0; i < MAP_SIZE; i++) {
      const h = heights.heightAt(WORLD.x + (i + 0.5) * step, WORLD.y + (j + 0.5) * step, step);
      data[j * MAP_SIZE + i] = DataUtils.toHalfFloat(h);
    }
  }
  const map = new DataTexture(data, MAP_SIZE, MAP_SIZE, RedFormat, HalfFloatType);
  map.name = 'demo:height-map';
  map.magFilter = LinearFilter;
  map.minFilter = LinearFilter;
  map.needsUpdate = true;
  return map;
}

/**
 * Tangent-space normal (u east, v along +z, encoded 0..1): the relief's slope from the height map,
 * plus a bump from the albedo's brightness (pebbles and blades catch the light). Derivatives are
 * divided by the world position's, so they hold on either orientation of the page view.
 */
function terrainNormal(p: Node, albedo: (p: Node) => Node, heightMap: DataTexture): Node {
  const q: Expr = p;
  const mapUv = q.sub(vec2(WORLD.x, WORLD.y)).div(vec2(WORLD.width, WORLD.height));
  const e = 1 / MAP_SIZE;
  const metres = WORLD.width / MAP_SIZE;
  const hx: Expr = (texture(heightMap, mapUv.add(vec2(e, 0))) as Expr).r.sub(
    (texture(heightMap, mapUv.sub(vec2(e, 0))) as Expr).r,
  );
  const hy: Expr = (texture(heightMap, mapUv.add(vec2(0, e))) as Expr).r.sub(
    (texture(heightMap, mapUv.sub(vec2(0, e))) as Expr).r,
  );
  const lum: Expr = (albedo(p) as Expr).dot(vec3(0.3, 0.5, 0.2));
  const bx: Expr = dFdx(lum).div(dFdx(q.x));
  const by: Expr = dFdy(lum).div(dFdy(q.y));
  const slope = vec2(hx, hy).div(2 * metres);
  const bump = vec2(bx, by).mul(0.04);
  const n: Expr = normalize(vec3(slope.add(bump).negate(), 1));
  return vec4(n.mul(0.5).add(0.5), 1) as Node;
}

/** Asphalt with white edge lines and a dashed centre line (3 m dashes every 9 m), soft edges. */
function roadMaterial(): MeshBasicNodeMaterial {
  const material = new MeshBasicNodeMaterial({ transparent: true, depthTest: false, depthWrite: false });
  const across: Expr = uv().y.sub(0.5).abs();
  const grain: Expr = hash(uv().x.mul(300).floor().add(uv().y.mul(40).floor().mul(1013))).mul(0.05);
  const asphalt: Expr = vec3(0.045, 0.045, 0.05).add(grain);
  const dash: Expr = uv().x.div(9).fract().lessThan(0.33).and(across.lessThan(0.02));
  const edge: Expr = across.greaterThan(0.41).and(across.lessThan(0.435));
  const paint: Expr = dash.or(edge);
  material.colorNode = vec4(paint.select(vec3(0.85, 0.85, 0.8), asphalt), 1);
  material.opacityNode = float(1).sub(across.sub(0.45).max(0).mul(20)).clamp(0, 1);
  return material;
}

/** Two tyre tracks (dark, compacted ruts) along the ribbon. */
function tracksMaterial(): MeshBasicNodeMaterial {
  const material = new MeshBasicNodeMaterial({ transparent: true, depthTest: false, depthWrite: false });
  const across: Expr = uv().y;
  const rut: Expr = across.lessThan(0.25).or(across.greaterThan(0.75));
  const tread: Expr = uv().x.mul(4).fract().lessThan(0.5).select(0.6, 0.45);
  material.colorNode = vec4(vec3(0.2, 0.15, 0.1), 1);
  material.opacityNode = rut.select(tread, 0);
  return material;
}

/** A soft-edged flat paint (dirt path, painted trail). */
function paintMaterial(colour: [number, number, number], opacity: number): MeshBasicNodeMaterial {
  const material = new MeshBasicNodeMaterial({ transparent: true, depthTest: false, depthWrite: false });
  const across: Expr = uv().y.sub(0.5).abs().mul(2);
  const grain: Expr = hash(uv().x.mul(50).floor().add(uv().y.mul(8).floor().mul(1013)))
    .mul(0.3)
    .add(0.7);
  material.colorNode = vec4(vec3(...colour).mul(grain), 1);
  material.opacityNode = float(1).sub(across.sub(0.6).max(0).mul(2.5)).clamp(0, 1).mul(opacity);
  return material;
}

/** A polyline of `count + 1` points from a to b, bent sideways by a sine that is 0 at both ends and halfway. */
function wiggle(
  ax: number,
  az: number,
  bx: number,
  bz: number,
  count: number,
  amplitude: number,
  random: () => number,
): number[] {
  const length = Math.hypot(bx - ax, bz - az);
  const nx = -(bz - az) / length;
  const nz = (bx - ax) / length;
  const phase = random() < 0.5 ? 1 : -1;
  const points: number[] = [];
  for (let k = 0; k <= count; k++) {
    const t = k / count;
    const side = phase * amplitude * Math.sin(t * Math.PI * 2) + 3 * Math.sin(t * Math.PI * 14);
    points.push(ax + (bx - ax) * t + nx * side, az + (bz - az) * t + nz * side);
  }
  return points;
}

/** `points` moved `distance` to the left of their direction. */
function offset(points: number[], distance: number): number[] {
  const out: number[] = [];
  const n = points.length / 2;
  for (let k = 0; k < n; k++) {
    const a = Math.max(0, k - 1);
    const b = Math.min(n - 1, k + 1);
    const dx = points[2 * b] - points[2 * a];
    const dz = points[2 * b + 1] - points[2 * a + 1];
    const l = Math.hypot(dx, dz) || 1;
    out.push(points[2 * k] - (dz / l) * distance, points[2 * k + 1] + (dx / l) * distance);
  }
  return out;
}

function smoothstep(e0: number, e1: number, x: number): number {
  const t = Math.min(1, Math.max(0, (x - e0) / (e1 - e0)));
  return t * t * (3 - 2 * t);
}
