/**
 * Constants of the `predictive` replacement policy ({@link PredictivePolicy}), in frames unless
 * stated otherwise. Tuned on the three benchmark paths only; on the held-out and tuning paths of
 * `bench/sim.bench.ts` it is not always better than LRU (up to 6% worse), hence not the default.
 *
 * Tuning history, so nobody retries what failed. Known weak spots (orbit, 4 revolutions: 4725
 * loads vs Belady 4177): the first revolution, where gaps are unknown; pages seen twice per
 * revolution (near, then far) whose single known gap in the first revolution predicts the wrong
 * half of the rhythm; absences of 17..30 frames (jitter) taken for reuse gaps. In a zero-latency
 * replay (4733 loads), an oracle giving the true return of pages with a known gap reaches 4593,
 * one for pages without a gap 4572.
 * Tried without gain: most- vs least-recently-departed order for pages with no gap (alone), a
 * typical gap per mip, a typical gap per visit length (a table learned online is biased short
 * in the first revolution: only short gaps have ended yet), a learned "next gap after gap g"
 * table, the running mean gap as the prediction for pages without one (orbit 1.18), predicting
 * them with the longest gap seen, expiring overdue predictions at once (orbit 1.20: pages due
 * back any moment were then ranked by LRU), ignoring gaps under 32 or 48 frames when choosing
 * between the last two (orbit worse: short gaps are real).
 */

/**
 * Idle pages examined per eviction, longest idle first. A bounded sample keeps eviction O(1) while
 * letting the mip weight reorder the oldest candidates.
 */
export const EVICTION_SAMPLE = 16;

/**
 * Longest absence that can count as flicker, in frames: a page idle for longer has certainly left
 * the view, and only absences longer than this are remembered as reuse gaps. Shorter absences are
 * feedback flicker (sparse sampling, jitter at mip boundaries) and predict nothing.
 */
export const LEFT_VIEW_FRAMES = 16;

/**
 * Weight base of the mip-aware recency: a page at mip `m` idle for `t` frames ranks as if idle for
 * `t / MIP_RECENCY_BASE^m`. Coarse pages cover more ground, stay in view longer and return sooner
 * after the camera turns, so an equally idle fine page is the better victim.
 */
export const MIP_RECENCY_BASE = 1.5;

/**
 * Absences of up to this many frames are assumed to be flicker for every page, in frames: sparse
 * feedback sampling and the rotating jitter routinely drop a visible page for 2 frames. A page
 * counts as departed once idle for more than its own longest flicker (at least this) + 1 frame.
 */
export const MIN_FLICKER_FRAMES = 2;

/**
 * Frames after its last use at which a departed page with no known reuse gap is predicted back, in
 * frames. Such a page is the cheapest to give up right after it leaves (most recently departed
 * first, what Belady's policy does on loops, where plain LRU evicts exactly the page needed next);
 * once it has stayed resident past this point it is treated like a page due back any moment, kept
 * with the pages that have stayed (the stable set a loop returns to, as in LIRS), until its
 * prediction expires (see {@link PREDICTION_EXPIRY_GAPS}).
 */
export const NEW_DEPARTURE_FRAMES = 2 * LEFT_VIEW_FRAMES;

/**
 * A predicted return is dropped (the page falls back to recency) once the page has been idle for
 * this many typical reuse gaps, the running mean of the gaps observed on every page: a page gone
 * for that long has left the loop (a fly-over's trail), whatever its own history said.
 */
export const PREDICTION_EXPIRY_GAPS = 2;

/** Gaps averaged by the typical reuse gap: a running mean over about this many recent gaps. */
export const TYPICAL_GAP_WINDOW = 64;
