/**
 * Where a system's streaming stands, in the same words for virtual textures (loads are pages) and
 * streamed textures (loads are mip chains): `stats().streaming` of both systems.
 */
export interface StreamingProgress {
  /** Loads wanted, waiting for a start (pages the feedback asked for; chains the need asked for). */
  queued: number;
  /** Loads running (fetch, decode, transcode or generation). */
  loading: number;
  /**
   * Loads failed now: they failed for good (after the source's retries) and keep their coarser
   * fallback or placeholder until the cool-down (`failedCooldownFrames`, 300 frames by default)
   * lets them load again, so this count drops again. Each failure is reported once by the
   * system's `error` event. See {@link failedTotal}.
   */
  failed: number;
  /** Failures (as counted by {@link failed}) since the system was made; never decreases. */
  failedTotal: number;
  /**
   * HTTP retries after transient failures (5xx, resets, timeouts, cut or mismatched bodies, a
   * browser-made 416) of the clients the system's sources read through, each client counted once.
   */
  retries: number;
  /** True when everything the view needs is resident or failed, and nothing is queued or loading. */
  settled: boolean;
}
