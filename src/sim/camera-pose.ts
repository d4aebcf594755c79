/**
 * A perspective camera pose over the simulated terrain.
 *
 * World convention: y is up, the terrain is the plane y = 0, world x maps to the virtual
 * texture's u and world z to its v. `yaw` turns about +y (0 looks along +z, π/2 along +x);
 * `pitch` is the elevation of the view direction (0 horizontal, -π/2 straight down).
 */
export interface CameraPose {
  /** Position, in world units. */
  x: number;
  /** Height above the terrain plane, in world units (must be > 0 to see the terrain). */
  y: number;
  /** Position, in world units. */
  z: number;
  /** Heading about +y, in radians (0 looks along +z). */
  yaw: number;
  /** Elevation of the view direction, in radians (-π/2 looks straight down). */
  pitch: number;
  /** Vertical field of view, in radians. */
  fovY: number;
  /** Screen width / height (dimensionless). */
  aspect: number;
}

/** New pose (allocates; call once and reuse the object on per-frame paths). */
export function createCameraPose(init: Partial<CameraPose> = {}): CameraPose {
  return {
    x: init.x ?? 0,
    y: init.y ?? 1,
    z: init.z ?? 0,
    yaw: init.yaw ?? 0,
    pitch: init.pitch ?? -Math.PI / 2,
    fovY: init.fovY ?? Math.PI / 3,
    aspect: init.aspect ?? 16 / 9,
  };
}

/** Copies every field of `from` into `to` and returns `to` (no allocation). */
export function copyCameraPose(from: CameraPose, to: CameraPose): CameraPose {
  to.x = from.x;
  to.y = from.y;
  to.z = from.z;
  to.yaw = from.yaw;
  to.pitch = from.pitch;
  to.fovY = from.fovY;
  to.aspect = from.aspect;
  return to;
}
