/** Where the camera is: the automation API's `teleport()` argument. */
export interface CameraPose {
  /** World x, metres (terrain spans -2048..2048). */
  x: number;
  /** World z, metres. */
  z: number;
  /** Eye height above the ground at (x, z), metres. */
  height: number;
  /** Heading, radians (0 looks towards -z, positive turns left). */
  yaw: number;
  /** Elevation, radians (negative looks down), clamped to about ±89°. */
  pitch: number;
}
