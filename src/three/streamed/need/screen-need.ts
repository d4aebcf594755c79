import {
  type Box3,
  type BufferAttribute,
  type BufferGeometry,
  type Camera,
  type InstancedMesh,
  type InterleavedBufferAttribute,
  Matrix4,
  type Object3D,
  type SkinnedMesh,
  type Sphere,
  type Texture,
  Vector3,
  WebGPUCoordinateSystem,
} from 'three';
import { computeUvDensity } from '../../../core/streaming/need/wanted-mip';

/**
 * What the need of a geometry takes from its vertices, computed once per geometry (the per-frame
 * work only transforms bounds and one normal).
 */
interface GeometryTexelMetrics {
  /** UV units per object-space unit of UV set `i` (`uv`, `uv1`, ...); NaN until first asked for. */
  readonly uvDensity: Float64Array;
  /** True when every triangle lies in one plane (within {@link PLANAR_COSINE}): floors, walls, posters. */
  readonly planar: boolean;
  /** Unit object-space normal of that plane (0 when not planar). */
  readonly nx: number;
  readonly ny: number;
  readonly nz: number;
}

/** Names of the UV sets three's `Texture.channel` selects. */
const UV_ATTRIBUTES = ['uv', 'uv1', 'uv2', 'uv3'] as const;

/**
 * Area-weighted mean normal length over the total area above which a mesh counts as planar: about
 * 2.5 degrees of mean deviation, so a flat floor qualifies and a gently curved one does not.
 */
const PLANAR_COSINE = 0.999;

/**
 * Largest footprint stretch a grazing plane is given, in multiples of the face-on footprint: a
 * plane seen edge-on would otherwise need nothing (a division by zero); 64 is 6 mips.
 */
const MAX_STRETCH = 64;

const metricsCache = new WeakMap<BufferGeometry, GeometryTexelMetrics>();

function metricsOf(geometry: BufferGeometry): GeometryTexelMetrics {
  let metrics = metricsCache.get(geometry);
  if (metrics === undefined) {
    metrics = measureGeometry(geometry);
    metricsCache.set(geometry, metrics);
  }
  return metrics;
}

/**
 * UV units per object-space unit of `geometry`'s UV set `channel` (0: `uv`, 1: `uv1`, ...):
 * sqrt(uv area / object-space area), Unity's mesh UV distribution metric (see computeUvDensity).
 * Computed once per geometry and set, then cached. Geometries without positions or that UV set get
 * 0 (no texture need).
 */
export function geometryUvDensity(geometry: BufferGeometry, channel = 0): number {
  if (channel < 0 || channel >= UV_ATTRIBUTES.length) return 0;
  const metrics = metricsOf(geometry);
  if (Number.isNaN(metrics.uvDensity[channel])) measureUvDensity(geometry, channel, metrics);
  return metrics.uvDensity[channel];
}

/** Fill in `metrics.uvDensity[channel]` (void: the per-frame caller reads the array, unboxed). */
function measureUvDensity(geometry: BufferGeometry, channel: number, metrics: GeometryTexelMetrics): void {
  const position = geometry.getAttribute('position');
  const uv = geometry.getAttribute(UV_ATTRIBUTES[channel]);
  if (position === undefined || uv === undefined || position.itemSize !== 3 || uv.itemSize !== 2) {
    metrics.uvDensity[channel] = 0;
    return;
  }
  const index = geometry.getIndex();
  metrics.uvDensity[channel] = computeUvDensity(
    packed(position),
    packed(uv),
    index ? (index.array as ArrayLike<number>) : undefined,
  );
}

/** Planarity of `geometry` (its densities are filled in lazily by {@link geometryUvDensity}). */
function measureGeometry(geometry: BufferGeometry): GeometryTexelMetrics {
  const uvDensity = new Float64Array(UV_ATTRIBUTES.length).fill(Number.NaN);
  const position = geometry.getAttribute('position');
  if (position === undefined || position.itemSize !== 3) {
    return { uvDensity, planar: false, nx: 0, ny: 0, nz: 0 };
  }
  const p = packed(position);
  const index = geometry.getIndex();
  const ix = index ? (index.array as ArrayLike<number>) : undefined;
  const triangles = Math.floor((ix ? ix.length : p.length / 3) / 3);
  // Cross products are twice the area times the normal: their sum is the area-weighted normal.
  let sx = 0;
  let sy = 0;
  let sz = 0;
  let total = 0;
  for (let t = 0; t < triangles; t++) {
    const a = 3 * (ix ? ix[3 * t] : 3 * t);
    const b = 3 * (ix ? ix[3 * t + 1] : 3 * t + 1);
    const c = 3 * (ix ? ix[3 * t + 2] : 3 * t + 2);
    const abx = p[b] - p[a];
    const aby = p[b + 1] - p[a + 1];
    const abz = p[b + 2] - p[a + 2];
    const acx = p[c] - p[a];
    const acy = p[c + 1] - p[a + 1];
    const acz = p[c + 2] - p[a + 2];
    const cx = aby * acz - abz * acy;
    const cy = abz * acx - abx * acz;
    const cz = abx * acy - aby * acx;
    sx += cx;
    sy += cy;
    sz += cz;
    total += Math.sqrt(cx * cx + cy * cy + cz * cz);
  }
  const length = Math.sqrt(sx * sx + sy * sy + sz * sz);
  if (!(total > 0) || length < PLANAR_COSINE * total) {
    return { uvDensity, planar: false, nx: 0, ny: 0, nz: 0 };
  }
  return { uvDensity, planar: true, nx: sx / length, ny: sy / length, nz: sz / length };
}

/**
 * The attribute's components in order, one vertex after another: its array when tightly packed,
 * else a copy (glTF files often interleave positions and UVs in one buffer view, which three
 * reads as an `InterleavedBufferAttribute` whose `array` is the whole interleaved buffer).
 * Once per geometry (the metrics are cached), so the copy is not a per-frame cost.
 */
function packed(attribute: BufferAttribute | InterleavedBufferAttribute): ArrayLike<number> {
  if (!(attribute as InterleavedBufferAttribute).isInterleavedBufferAttribute && !attribute.normalized) {
    return attribute.array as ArrayLike<number>;
  }
  const size = attribute.itemSize;
  const out = new Float32Array(attribute.count * size);
  for (let i = 0; i < attribute.count; i++) {
    for (let c = 0; c < size; c++) out[i * size + c] = attribute.getComponent(i, c);
  }
  return out;
}

/**
 * The 12 edges of a box or frustum whose 8 corners are numbered by bits (x: 1, y: 2, z: 4), as
 * pairs of corner numbers.
 */
const EDGES = new Uint8Array([0, 1, 2, 3, 4, 5, 6, 7, 0, 2, 1, 3, 4, 6, 5, 7, 0, 4, 1, 5, 2, 6, 3, 7]);

/**
 * A mesh's texel need for one camera: how many drawing-buffer pixels one texture UV unit covers
 * where the mesh is seen finest. That is at the nearest point of its bounds that is in view (the
 * least view depth over bounds ∩ frustum, found exactly from the corners of that convex shape), at
 * the level three's sampler reads there: for a planar mesh the footprint of its plane at that
 * point (a floor seen at a grazing angle stretches it), else a surface facing the camera, the
 * finest any surface there can be read. Uses the camera's projection, the drawing-buffer height,
 * the mesh's world scale, the geometry's UV density and the texture's repeat and UV set.
 *
 * Scratch objects are reused and results are read from fields, not returned (V8 boxes a double
 * returned from a call it does not inline): no allocation per frame. Call {@link begin} once per
 * refresh, then {@link measure} per mesh and texture.
 */
export class ScreenNeedProjector {
  /** The frustum's planes in world space, as {@link viewPlanes}: culls bounding spheres. */
  private readonly worldPlanes = new Float64Array(24);
  private readonly cameraPosition = new Vector3();
  private readonly viewProjection = new Matrix4();
  private readonly instanceMatrix = new Matrix4();
  private readonly modelView = new Matrix4();
  private readonly viewModel = new Matrix4();
  /** The frustum's planes in view space: nx, ny, nz, constant per plane (inside: n·p + c >= 0). */
  private readonly viewPlanes = new Float64Array(24);
  /** The frustum's corners in view space, numbered as {@link EDGES} (x: right, y: top, z: far). */
  private readonly frustumView = new Float64Array(24);
  /** The same corners in the current mesh's object space. */
  private readonly frustumObject = new Float64Array(24);
  /** The current mesh's bounding-box corners in view space. */
  private readonly boxView = new Float64Array(24);
  /** Least view depth found so far, and the two ends of the points found at it (view space). */
  private nearest = Number.POSITIVE_INFINITY;
  private readonly nearFirst = new Float64Array(3);
  private readonly nearLast = new Float64Array(3);
  private readonly clipped = new Float64Array(2);
  private camera: Camera | null = null;
  private orthographic = false;
  /** Pixels per view-space unit at depth 1 (perspective) or at any depth (orthographic). */
  private focalPx = 1;
  /** View depth of the near plane (perspective); needs are never taken nearer. */
  private nearDepth = 0;
  /** Pixels per world unit at the nearest visible point of the last instance measured. */
  private instancePxPerWorld = 0;
  /** Largest axis scale of the last instance measured (world units per object unit). */
  private instanceScale = 1;
  /** Projected bounding-sphere diameter of the last instance measured, in pixels. */
  private instanceBenefitPx = 0;
  /** Footprint stretch found by {@link planeStretch}. */
  private stretch = 1;
  /** Anisotropy of the texture being measured (1: isotropic). */
  private anisotropy = 1;

  /**
   * Pixels per texture UV unit where the last measured mesh is seen finest (0 when not seen).
   * The mip it needs is log2(texture edge in texels / this).
   */
  pixelsPerUv = 0;
  /**
   * Projected diameter of the last measured mesh's bounding sphere (of its finest instance), in
   * pixels: its screen benefit (0 when not seen).
   */
  benefitPx = 0;

  /** Prepare for `camera` rendering to a drawing buffer `viewportHeightPx` pixels high. */
  begin(camera: Camera, viewportHeightPx: number): void {
    camera.updateMatrixWorld();
    this.camera = camera;
    const reversed = camera.reversedDepth === true;
    const webgpu = camera.coordinateSystem === WebGPUCoordinateSystem;
    this.viewProjection.multiplyMatrices(camera.projectionMatrix, camera.matrixWorldInverse);
    frustumPlanes(this.viewProjection, webgpu, reversed, this.worldPlanes);
    this.cameraPosition.setFromMatrixPosition(camera.matrixWorld);
    // The projection alone gives the frustum in view space, where depth is -z.
    const view = this.viewPlanes;
    frustumPlanes(camera.projectionMatrix, webgpu, reversed, view);
    // three's plane order: right, left, bottom, top, far, near.
    for (let corner = 0; corner < 8; corner++) {
      intersectPlanes(
        view,
        corner & 1 ? 0 : 1,
        corner & 2 ? 3 : 2,
        corner & 4 ? 4 : 5,
        this.frustumView,
        corner,
      );
    }
    this.orthographic = (camera as Camera & { isOrthographicCamera?: boolean }).isOrthographicCamera === true;
    // Row 1 of the projection maps view y (at depth 1 in perspective) to NDC: half the buffer per unit.
    this.focalPx = 0.5 * Math.max(1, viewportHeightPx) * Math.abs(camera.projectionMatrix.elements[5]) || 1;
    this.nearDepth = this.orthographic ? 0 : Math.max(-this.frustumView[2], 1e-6);
  }

  /**
   * Measure `object` for `texture` (its repeat, UV set and anisotropy; none: UV set 0, repeat 1,
   * isotropic) into {@link pixelsPerUv} and {@link benefitPx}. False (both 0) when it is culled,
   * hidden, not under `root` or has no UVs. An `InstancedMesh` counts its finest instance (each
   * instance is the geometry under its own matrix, as separate meshes would be); a `SkinnedMesh`
   * its own bounds (`computeBoundingBox()`, which three also culls by).
   */
  measure(
    object: Object3D & { geometry: BufferGeometry },
    root: Object3D,
    texture?: Pick<Texture, 'repeat' | 'channel' | 'anisotropy'>,
  ): boolean {
    this.pixelsPerUv = 0;
    this.benefitPx = 0;
    if (!isShownUnder(object, root)) return false;
    const geometry = object.geometry;
    const channel = texture?.channel ?? 0;
    if (channel < 0 || channel >= UV_ATTRIBUTES.length) return false;
    const metrics = metricsOf(geometry);
    if (Number.isNaN(metrics.uvDensity[channel])) measureUvDensity(geometry, channel, metrics);
    const density = metrics.uvDensity[channel];
    if (!(density > 0)) return false;
    const skinned = object as Partial<SkinnedMesh>;
    let box: Box3 | null;
    let sphere: Sphere | null;
    if (skinned.isSkinnedMesh === true) {
      const mesh = object as SkinnedMesh;
      if (mesh.boundingBox === null) mesh.computeBoundingBox();
      if (mesh.boundingSphere === null) mesh.computeBoundingSphere();
      box = mesh.boundingBox;
      sphere = mesh.boundingSphere;
    } else {
      if (geometry.boundingBox === null) geometry.computeBoundingBox();
      if (geometry.boundingSphere === null) geometry.computeBoundingSphere();
      box = geometry.boundingBox;
      sphere = geometry.boundingSphere;
    }
    if (box === null || sphere === null || box.isEmpty()) return false;
    const repeat = texture ? Math.max(Math.abs(texture.repeat.x), Math.abs(texture.repeat.y)) : 1;
    // UV units of the texture per UV unit of the geometry; a zero repeat samples one texel anyway.
    const uvScale = repeat > 0 ? repeat : 1;
    this.anisotropy = texture ? Math.max(1, texture.anisotropy) : 1;
    const instanced = object as Partial<InstancedMesh>;
    const count = instanced.isInstancedMesh === true ? (instanced.count ?? 0) : 1;
    for (let i = 0; i < count; i++) {
      let matrix = object.matrixWorld;
      if (instanced.isInstancedMesh === true) {
        (instanced as InstancedMesh).getMatrixAt(i, this.instanceMatrix);
        matrix = this.instanceMatrix.premultiply(object.matrixWorld);
      }
      if (!this.measureInstance(box, sphere, matrix, metrics)) continue;
      // World units per texture UV unit: object units per geometry UV unit, scaled, over the repeat.
      const perUv = (this.instancePxPerWorld * this.instanceScale) / (density * uvScale);
      if (perUv > this.pixelsPerUv) {
        this.pixelsPerUv = perUv;
        this.benefitPx = this.instanceBenefitPx;
      }
    }
    return this.pixelsPerUv > 0;
  }

  /**
   * Measure the geometry under `matrix`: {@link instancePxPerWorld} from the nearest visible point
   * of `box`, {@link instanceBenefitPx} from `bounds`; false when it is culled.
   */
  private measureInstance(
    box: Box3,
    bounds: Sphere,
    matrix: Matrix4,
    metrics: GeometryTexelMetrics,
  ): boolean {
    this.instancePxPerWorld = 0;
    this.instanceBenefitPx = 0;
    // World-space bounding sphere, as three culls it.
    const e = matrix.elements;
    const { x, y, z } = bounds.center;
    const cx = e[0] * x + e[4] * y + e[8] * z + e[12];
    const cy = e[1] * x + e[5] * y + e[9] * z + e[13];
    const cz = e[2] * x + e[6] * y + e[10] * z + e[14];
    // Largest axis scale, as Matrix4.getMaxScaleOnAxis (inline: V8 boxes a returned double).
    const sx = e[0] * e[0] + e[1] * e[1] + e[2] * e[2];
    const sy = e[4] * e[4] + e[5] * e[5] + e[6] * e[6];
    const sz = e[8] * e[8] + e[9] * e[9] + e[10] * e[10];
    this.instanceScale = Math.sqrt(Math.max(sx, sy, sz));
    const radius = bounds.radius * this.instanceScale;
    const planes = this.worldPlanes;
    for (let p = 0; p < 24; p += 4) {
      if (planes[p] * cx + planes[p + 1] * cy + planes[p + 2] * cz + planes[p + 3] < -radius) return false;
    }
    const camera = this.camera as Camera;
    // A mesh scaled flat to nothing shows no texels (and has no inverse).
    const det =
      e[0] * (e[5] * e[10] - e[6] * e[9]) -
      e[4] * (e[1] * e[10] - e[2] * e[9]) +
      e[8] * (e[1] * e[6] - e[2] * e[5]);
    if (det === 0) return false;
    this.modelView.multiplyMatrices(camera.matrixWorldInverse, matrix);
    this.viewModel.copy(this.modelView).invert();
    if (!this.findNearest(box)) return false;
    const depth = this.orthographic ? 1 : Math.max(this.nearest, this.nearDepth);
    this.stretch = 1;
    if (metrics.planar) this.planeStretch(metrics);
    this.instancePxPerWorld = this.focalPx / (depth * this.stretch);
    if (this.orthographic) this.instanceBenefitPx = 2 * radius * this.focalPx;
    else {
      // Inside the sphere the mesh may fill the screen: clamp the distance to the radius.
      const c = this.cameraPosition;
      const distance = Math.sqrt((cx - c.x) ** 2 + (cy - c.y) ** 2 + (cz - c.z) ** 2);
      this.instanceBenefitPx = (2 * radius * this.focalPx) / Math.max(distance, radius);
    }
    return true;
  }

  /**
   * Least view depth over `box` (object space, under {@link modelView}) ∩ the frustum, into
   * {@link nearest} with the ends of the points found at it; false when they do not meet. The
   * minimum of a linear function over a convex shape is at a corner of it, and every corner of
   * box ∩ frustum ends a box edge clipped to the frustum or a frustum edge clipped to the box.
   */
  private findNearest(box: Box3): boolean {
    this.nearest = Number.POSITIVE_INFINITY;
    const e = this.modelView.elements;
    const corners = this.boxView;
    const planes = this.viewPlanes;
    let allInside = true;
    for (let i = 0; i < 8; i++) {
      const x = i & 1 ? box.max.x : box.min.x;
      const y = i & 2 ? box.max.y : box.min.y;
      const z = i & 4 ? box.max.z : box.min.z;
      const vx = e[0] * x + e[4] * y + e[8] * z + e[12];
      const vy = e[1] * x + e[5] * y + e[9] * z + e[13];
      const vz = e[2] * x + e[6] * y + e[10] * z + e[14];
      corners[3 * i] = vx;
      corners[3 * i + 1] = vy;
      corners[3 * i + 2] = vz;
      for (let p = 0; p < 24 && allInside; p += 4) {
        if (planes[p] * vx + planes[p + 1] * vy + planes[p + 2] * vz + planes[p + 3] < 0) allInside = false;
      }
    }
    if (allInside) {
      this.clipped[0] = 0;
      for (let i = 0; i < 8; i++) this.offer(corners, i, corners, i, 0);
      return true;
    }
    for (let k = 0; k < 24; k += 2) {
      const a = EDGES[k];
      const b = EDGES[k + 1];
      if (!this.clipToFrustum(corners, a, b)) continue;
      this.offer(corners, a, corners, b, 0);
      this.offer(corners, a, corners, b, 1);
    }
    const m = this.viewModel.elements;
    const view = this.frustumView;
    const object = this.frustumObject;
    for (let i = 0; i < 8; i++) {
      const x = view[3 * i];
      const y = view[3 * i + 1];
      const z = view[3 * i + 2];
      object[3 * i] = m[0] * x + m[4] * y + m[8] * z + m[12];
      object[3 * i + 1] = m[1] * x + m[5] * y + m[9] * z + m[13];
      object[3 * i + 2] = m[2] * x + m[6] * y + m[10] * z + m[14];
    }
    for (let k = 0; k < 24; k += 2) {
      const a = EDGES[k];
      const b = EDGES[k + 1];
      if (!this.clipToBox(object, a, b, box)) continue;
      // Affine maps keep the parameter along the edge: read the point from the view-space corners.
      this.offer(view, a, view, b, 0);
      this.offer(view, a, view, b, 1);
    }
    return this.nearest < Number.POSITIVE_INFINITY;
  }

  /**
   * Consider the point at parameter {@link clipped}[`end`] along corner `a` of `pa` to corner `b`
   * of `pb` (view space). The parameter is passed by index: a double argument is boxed by V8.
   */
  private offer(pa: Float64Array, a: number, pb: Float64Array, b: number, end: number): void {
    const s = this.clipped[end];
    const x = pa[3 * a] + s * (pb[3 * b] - pa[3 * a]);
    const y = pa[3 * a + 1] + s * (pb[3 * b + 1] - pa[3 * a + 1]);
    const z = pa[3 * a + 2] + s * (pb[3 * b + 2] - pa[3 * a + 2]);
    const depth = -z;
    // Points reached through box edges and through frustum edges differ by rounding only.
    const tolerance = 1e-6 * Math.max(1, Math.abs(depth));
    const first = this.nearFirst;
    const last = this.nearLast;
    if (depth < this.nearest - tolerance) {
      this.nearest = depth;
      first[0] = last[0] = x;
      first[1] = last[1] = y;
      first[2] = last[2] = z;
    } else if (depth <= this.nearest + tolerance) {
      // Keep the two points of the nearest set farthest apart: the ends of its edge.
      const far = (last[0] - first[0]) ** 2 + (last[1] - first[1]) ** 2;
      if ((x - first[0]) ** 2 + (y - first[1]) ** 2 > far) {
        last[0] = x;
        last[1] = y;
        last[2] = z;
      }
      if (depth < this.nearest) this.nearest = depth;
    }
  }

  /** Clip segment a-b of view-space `points` to the frustum: parameters into {@link clipped}. */
  private clipToFrustum(points: Float64Array, a: number, b: number): boolean {
    const planes = this.viewPlanes;
    let enter = 0;
    let exit = 1;
    for (let p = 0; p < 24; p += 4) {
      const da =
        planes[p] * points[3 * a] +
        planes[p + 1] * points[3 * a + 1] +
        planes[p + 2] * points[3 * a + 2] +
        planes[p + 3];
      const db =
        planes[p] * points[3 * b] +
        planes[p + 1] * points[3 * b + 1] +
        planes[p + 2] * points[3 * b + 2] +
        planes[p + 3];
      if (da < 0 && db < 0) return false;
      if (da < 0) enter = Math.max(enter, da / (da - db));
      else if (db < 0) exit = Math.min(exit, da / (da - db));
      if (enter > exit) return false;
    }
    this.clipped[0] = enter;
    this.clipped[1] = exit;
    return true;
  }

  /** Clip segment a-b of object-space `points` to `box` (flat boxes included): into {@link clipped}. */
  private clipToBox(points: Float64Array, a: number, b: number, box: Box3): boolean {
    let enter = 0;
    let exit = 1;
    for (let axis = 0; axis < 3; axis++) {
      const lo = axis === 0 ? box.min.x : axis === 1 ? box.min.y : box.min.z;
      const hi = axis === 0 ? box.max.x : axis === 1 ? box.max.y : box.max.z;
      const pa = points[3 * a + axis];
      const d = points[3 * b + axis] - pa;
      // A flat box (a floor) has lo = hi: a crossing edge keeps one point, an edge in its plane all.
      const slack = 1e-9 * Math.max(1, Math.abs(lo), Math.abs(hi));
      if (Math.abs(d) < 1e-12) {
        if (pa < lo - slack || pa > hi + slack) return false;
        continue;
      }
      let t0 = (lo - slack - pa) / d;
      let t1 = (hi + slack - pa) / d;
      if (t0 > t1) {
        const swap = t0;
        t0 = t1;
        t1 = swap;
      }
      enter = Math.max(enter, t0);
      exit = Math.min(exit, t1);
      if (enter > exit) return false;
    }
    this.clipped[0] = enter;
    this.clipped[1] = exit;
    return true;
  }

  /**
   * Into {@link stretch}: how much longer than face-on the footprint three's sampler uses is, for the mesh's plane at
   * the nearest visible point (taken on the nearest edge where it comes closest to the view axis,
   * where the footprint is least stretched): isotropic, the longer of its screen-x and screen-y
   * axes; anisotropic, the longer over the anisotropy, or the shorter if larger.
   */
  private planeStretch(metrics: GeometryTexelMetrics): void {
    // Plane normals go through the inverse transpose of the model-view matrix.
    const m = this.viewModel.elements;
    let nx = m[0] * metrics.nx + m[1] * metrics.ny + m[2] * metrics.nz;
    let ny = m[4] * metrics.nx + m[5] * metrics.ny + m[6] * metrics.nz;
    let nz = m[8] * metrics.nx + m[9] * metrics.ny + m[10] * metrics.nz;
    const length = Math.sqrt(nx * nx + ny * ny + nz * nz);
    if (!(length > 0)) return;
    nx /= length;
    ny /= length;
    nz /= length;
    // The ray to the point, scaled to depth 1 (orthographic rays all run along -z).
    let rx = 0;
    let ry = 0;
    if (!this.orthographic) {
      const first = this.nearFirst;
      const last = this.nearLast;
      const dx = last[0] - first[0];
      const dy = last[1] - first[1];
      const span = dx * dx + dy * dy;
      const s = span > 0 ? Math.min(1, Math.max(0, -(first[0] * dx + first[1] * dy) / span)) : 0;
      const depth = Math.max(-(first[2] + s * (last[2] - first[2])), 1e-12);
      rx = (first[0] + s * dx) / depth;
      ry = (first[1] + s * dy) / depth;
    }
    const rz = -1;
    const nr = nx * rx + ny * ry + nz * rz;
    if (Math.abs(nr) < 1e-9) {
      this.stretch = MAX_STRETCH;
      return;
    }
    // d(point)/d(screen x) on the plane, in units of depth / focal: e_x - (n_x / n·r) r.
    const kx = nx / nr;
    const ky = ny / nr;
    const alongX = Math.sqrt((1 - kx * rx) ** 2 + (kx * ry) ** 2 + (kx * rz) ** 2);
    const alongY = Math.sqrt((ky * rx) ** 2 + (1 - ky * ry) ** 2 + (ky * rz) ** 2);
    const major = Math.max(alongX, alongY);
    const minor = Math.min(alongX, alongY);
    this.stretch = Math.min(MAX_STRETCH, Math.max(major / this.anisotropy, minor));
  }
}

/**
 * The six planes of the frustum of view-projection matrix `m` into `out` (nx, ny, nz, constant
 * each, normalized, inside: n·p + c >= 0), in three's order (right, left, bottom, top, far, near)
 * and with its depth conventions (WebGL: z in -1..1; WebGPU: 0..1; reversed: far at 0). As three's
 * `Frustum.setFromProjectionMatrix`, without the per-call heap numbers it costs in V8.
 */
function frustumPlanes(m: Matrix4, webgpu: boolean, reversed: boolean, out: Float64Array): void {
  const e = m.elements;
  for (let i = 0; i < 6; i++) {
    // Each plane is row 3 plus or minus one row, or one row alone (a depth bound at 0).
    const row = i < 2 ? 0 : i < 4 ? 1 : 2;
    let sign = i === 0 || i === 3 || i === 4 ? -1 : 1;
    let withW = 1;
    if (i === 4 && reversed) {
      sign = 1;
      withW = 0;
    } else if (i === 5 && (reversed || webgpu)) {
      sign = reversed ? -1 : 1;
      withW = reversed ? 1 : 0;
    }
    const nx = withW * e[3] + sign * e[row];
    const ny = withW * e[7] + sign * e[4 + row];
    const nz = withW * e[11] + sign * e[8 + row];
    const c = withW * e[15] + sign * e[12 + row];
    const length = Math.sqrt(nx * nx + ny * ny + nz * nz) || 1;
    out[4 * i] = nx / length;
    out[4 * i + 1] = ny / length;
    out[4 * i + 2] = nz / length;
    out[4 * i + 3] = c / length;
  }
}

/**
 * Write into `out` at corner `corner` the point where planes `i`, `j` and `k` of `planes`
 * (nx, ny, nz, constant each) meet.
 */
function intersectPlanes(
  planes: Float64Array,
  i: number,
  j: number,
  k: number,
  out: Float64Array,
  corner: number,
): void {
  const ax = planes[4 * i];
  const ay = planes[4 * i + 1];
  const az = planes[4 * i + 2];
  const bx = planes[4 * j];
  const by = planes[4 * j + 1];
  const bz = planes[4 * j + 2];
  const cx = planes[4 * k];
  const cy = planes[4 * k + 1];
  const cz = planes[4 * k + 2];
  // p = -(da (b x c) + db (c x a) + dc (a x b)) / (a . (b x c))
  const bcx = by * cz - bz * cy;
  const bcy = bz * cx - bx * cz;
  const bcz = bx * cy - by * cx;
  const cax = cy * az - cz * ay;
  const cay = cz * ax - cx * az;
  const caz = cx * ay - cy * ax;
  const abx = ay * bz - az * by;
  const aby = az * bx - ax * bz;
  const abz = ax * by - ay * bx;
  const det = ax * bcx + ay * bcy + az * bcz;
  const da = planes[4 * i + 3];
  const db = planes[4 * j + 3];
  const dc = planes[4 * k + 3];
  out[3 * corner] = -(da * bcx + db * cax + dc * abx) / det;
  out[3 * corner + 1] = -(da * bcy + db * cay + dc * aby) / det;
  out[3 * corner + 2] = -(da * bcz + db * caz + dc * abz) / det;
}

/** True when `object` and all its ancestors are visible and its root is `root`. */
function isShownUnder(object: Object3D, root: Object3D): boolean {
  let node: Object3D | null = object;
  while (node !== null) {
    if (!node.visible) return false;
    if (node === root) return true;
    node = node.parent;
  }
  return false;
}
