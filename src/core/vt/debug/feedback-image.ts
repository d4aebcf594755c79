import { NO_REQUEST } from '../page-id';
import { writeMipColour } from './mip-palette';

/** Brightness of every other page in debug images, so page boundaries show (0..1). */
export const ALTERNATE_PAGE_BRIGHTNESS = 0.6;

/**
 * Paints a feedback buffer (packed page ids, row by row, `width` x `height` feedback pixels) as an
 * RGBA8 image of the same size: each request in its mip's colour (see `writeMipColour`), darker on
 * every other page in a checkerboard so page boundaries show; transparent black where nothing was
 * requested. `out` needs `width * height * 4` bytes. Allocates nothing.
 */
export function paintFeedbackImage(
  ids: Uint32Array,
  width: number,
  height: number,
  out: Uint8Array | Uint8ClampedArray,
): void {
  const n = Math.min(ids.length, width * height, out.length >> 2);
  for (let i = 0; i < n; i++) {
    const id = ids[i];
    const o = i * 4;
    if (id === NO_REQUEST) {
      out[o] = 0;
      out[o + 1] = 0;
      out[o + 2] = 0;
      out[o + 3] = 0;
      continue;
    }
    const checker = ((id & 0xfff) + ((id >>> 12) & 0xfff)) & 1;
    writeMipColour((id >>> 24) & 0xf, checker ? ALTERNATE_PAGE_BRIGHTNESS : 1, out, o);
  }
}
