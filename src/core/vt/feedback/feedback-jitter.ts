/**
 * Rotating sub-pixel offset of the feedback pass. Each feedback pixel stands for a `scale x scale`
 * block of screen pixels; sampling a different spot of that block every frame lets successive
 * feedback frames cover the whole screen, as Unreal's rotating `FeedbackFactor` offset does.
 *
 * The GPU feedback pass must use the same sequence so that the simulator and the GPU agree.
 * Offsets follow a 4x4 Bayer order (16 frames per cycle), each at the centre of its cell.
 */

/** Horizontal order of the 4x4 Bayer matrix, indexed by frame mod 16. */
const BAYER_X = [0, 2, 0, 2, 1, 3, 1, 3, 0, 2, 0, 2, 1, 3, 1, 3];
/** Vertical order of the 4x4 Bayer matrix, indexed by frame mod 16. */
const BAYER_Y = [0, 2, 2, 0, 1, 3, 3, 1, 1, 3, 3, 1, 0, 2, 2, 0];

/** Frames per jitter cycle. */
export const FEEDBACK_JITTER_PERIOD = 16;

/**
 * Horizontal offset of frame `frame` inside one feedback pixel, in feedback pixels, in (0, 1).
 * 0.5 is the pixel centre.
 */
export function feedbackJitterX(frame: number): number {
  return (BAYER_X[((frame % 16) + 16) % 16] + 0.5) / 4;
}

/** Vertical offset of frame `frame` inside one feedback pixel, in feedback pixels, in (0, 1). */
export function feedbackJitterY(frame: number): number {
  return (BAYER_Y[((frame % 16) + 16) % 16] + 0.5) / 4;
}
