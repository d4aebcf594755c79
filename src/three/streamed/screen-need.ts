import {
  type BufferAttribute,
  type BufferGeometry,
  type Camera,
  Frustum,
  type InstancedMesh,
  type InterleavedBufferAttribute,
  Matrix4,
  type Object3D,
  Sphere,
  Vector3,
} from 'three';
import { computeUvDensity } from '../../core/streaming/wanted-mip';

/** UV density of each geometry (UV units per object-space unit), computed once per geometry. */
const uvDensityCache = new WeakMap<BufferGeometry, number>();

/**
 * UV units per object-space unit of `geometry`'s first UV set (see computeUvDensity), cached.
 * Geometries without positions or UVs get 0 (no texture need).
 */
export function geometryUvDensity(geometry: BufferGeometry): number {
  let density = uvDensityCache.get(geometry);
  if (density !== undefined) return density;
  const position = geometry.getAttribute('position');
  const uv = geometry.getAttribute('uv');
  if (position === undefined || uv === undefined || position.itemSize !== 3 || uv.itemSize !== 2) density = 0;
  else {
    const index = geometry.getIndex();
    density = computeUvDensity(
      packed(position),
      packed(uv),
      index ? (index.array as ArrayLike<number>) : undefined,
    );
  }
  uvDensityCache.set(geometry, density);
  return density;
}

/**
 * The attribute's components in order, one vertex after another: its array when tightly packed,
 * else a copy (glTF files often interleave positions and UVs in one buffer view, which three
 * reads as an `InterleavedBufferAttribute` whose `array` is the whole interleaved buffer).
 * Once per geometry (the density is cached), so the copy is not a per-frame cost.
 */
function packed(attribute: BufferAttribute | InterleavedBufferAttribute): ArrayLike<number> {
  if (!(attribute as InterleavedBufferAttribute).isInterleavedBufferAttribute && !attribute.normalized)
    return attribute.array as ArrayLike<number>;
  const size = attribute.itemSize;
  const out = new Float32Array(attribute.count * size);
  for (let i = 0; i < attribute.count; i++)
    for (let c = 0; c < size; c++) out[i * size + c] = attribute.getComponent(i, c);
  return out;
}

/**
 * Projected size of meshes' bounding spheres for one camera, with scratch objects reused per call
 * (no allocation per frame). Call {@link begin} once per refresh, then {@link projectedPx} per mesh.
 */
export class ScreenNeedProjector {
  private readonly frustum = new Frustum();
  private readonly viewProjection = new Matrix4();
  private readonly sphere = new Sphere();
  private readonly cameraPosition = new Vector3();
  private readonly instanceMatrix = new Matrix4();
  private camera: Camera | null = null;
  private viewportHeight = 1;
  /** Diameter of the last projected sphere in object-space units, times the geometry's UV density (UV units). */
  uvExtent = 0;

  /** Prepare for `camera` rendering to a drawing buffer `viewportHeightPx` pixels high. */
  begin(camera: Camera, viewportHeightPx: number): void {
    camera.updateMatrixWorld();
    this.camera = camera;
    this.viewportHeight = Math.max(1, viewportHeightPx);
    this.viewProjection.multiplyMatrices(camera.projectionMatrix, camera.matrixWorldInverse);
    this.frustum.setFromProjectionMatrix(this.viewProjection, camera.coordinateSystem);
    this.cameraPosition.setFromMatrixPosition(camera.matrixWorld);
  }

  /**
   * Projected diameter in pixels of `object`'s bounding sphere, 0 when it is culled, hidden or not
   * under `root`; also sets {@link uvExtent} (the same diameter in UV units of the geometry). An
   * `InstancedMesh` counts its largest visible instance (each instance is the geometry under its
   * own matrix: the nearest one decides the mip, as for separate meshes).
   */
  projectedPx(object: Object3D & { geometry: BufferGeometry }, root: Object3D): number {
    this.uvExtent = 0;
    if (!isShownUnder(object, root)) return 0;
    const geometry = object.geometry;
    if (geometry.boundingSphere === null) geometry.computeBoundingSphere();
    const bounds = geometry.boundingSphere;
    if (bounds === null) return 0;
    const instanced = object as Partial<InstancedMesh>;
    if (instanced.isInstancedMesh !== true)
      return this.sphereNeed(bounds, object.matrixWorld, bounds.radius, geometry);
    let best = 0;
    let extent = 0;
    const count = instanced.count ?? 0;
    for (let i = 0; i < count; i++) {
      (instanced as InstancedMesh).getMatrixAt(i, this.instanceMatrix);
      this.instanceMatrix.premultiply(object.matrixWorld);
      const px = this.sphereNeed(bounds, this.instanceMatrix, bounds.radius, geometry);
      if (px > best) {
        best = px;
        extent = this.uvExtent;
      }
    }
    this.uvExtent = extent;
    return best;
  }

  /** Projected diameter of `bounds` under `matrix` (0 when culled); sets {@link uvExtent}. */
  private sphereNeed(
    bounds: Sphere,
    matrix: Matrix4,
    objectRadius: number,
    geometry: BufferGeometry,
  ): number {
    this.uvExtent = 0;
    const sphere = this.sphere.copy(bounds).applyMatrix4(matrix);
    if (!this.frustum.intersectsSphere(sphere)) return 0;
    const camera = this.camera as Camera & {
      isPerspectiveCamera?: boolean;
      isOrthographicCamera?: boolean;
      fov?: number;
      zoom?: number;
      top?: number;
      bottom?: number;
    };
    let px: number;
    if (camera.isOrthographicCamera) {
      const height = ((camera.top ?? 1) - (camera.bottom ?? -1)) / (camera.zoom ?? 1);
      px = (2 * sphere.radius * this.viewportHeight) / height;
    } else {
      const tanHalf = Math.tan(((camera.fov ?? 50) * Math.PI) / 360) / (camera.zoom ?? 1);
      // Inside the sphere the mesh may fill the screen: clamp the distance to the radius.
      const distance = Math.max(this.cameraPosition.distanceTo(sphere.center), sphere.radius);
      px = (sphere.radius * this.viewportHeight) / (distance * tanHalf);
    }
    // World scale cancels: UV units across the sphere = object-space diameter x UV per object unit.
    this.uvExtent = 2 * objectRadius * geometryUvDensity(geometry);
    return this.uvExtent > 0 ? px : 0;
  }
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
