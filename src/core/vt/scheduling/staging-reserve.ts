/**
 * How many bytes a virtual-texture system sets aside for staging: tiles loaded but not yet
 * uploaded, plus loads in flight that will land. The scheduler never lets them pass the reserve.
 */

/** Loads running at once by default (the scheduler's `maxConcurrentLoads` default). */
export const DEFAULT_CONCURRENT_LOADS = 16;

/** Frames of uploads the default staging reserve holds beside the loads in flight. */
export const STAGING_UPLOAD_FRAMES = 2;

/**
 * Default staging reserve, in bytes: room for every concurrent load to land plus
 * {@link STAGING_UPLOAD_FRAMES} frames of `maxUploadsPerFrame` uploads waiting, of tiles of
 * `tileBytes` bytes. Less would idle loads while uploads keep up; more only holds tiles that
 * wait several frames, by when the view may no longer need them.
 */
export function defaultStagingBytes(
  tileBytes: number,
  maxUploadsPerFrame: number,
  maxConcurrentLoads = DEFAULT_CONCURRENT_LOADS,
): number {
  return (maxConcurrentLoads + STAGING_UPLOAD_FRAMES * maxUploadsPerFrame) * tileBytes;
}

/** Largest part of a system's budget share the default staging reserve takes (an eighth). */
export const MAX_DEFAULT_STAGING_SHARE = 1 / 8;

/**
 * Default staging reserve of a system with a budget share of `shareBytes`, in bytes:
 * {@link defaultStagingBytes}, but at most {@link MAX_DEFAULT_STAGING_SHARE} of the share (so a
 * small budget keeps its bytes for the pool and staging only slows loading), in whole tiles and
 * never below one tile.
 */
export function defaultStagingReserve(
  shareBytes: number,
  tileBytes: number,
  maxUploadsPerFrame: number,
): number {
  const capTiles = Math.floor((shareBytes * MAX_DEFAULT_STAGING_SHARE) / tileBytes);
  const tiles = Math.min(defaultStagingBytes(1, maxUploadsPerFrame), capTiles);
  return Math.max(1, tiles) * tileBytes;
}
