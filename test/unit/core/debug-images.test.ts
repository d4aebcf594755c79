import { describe, expect, it } from 'vitest';
import { ALTERNATE_PAGE_BRIGHTNESS, paintFeedbackImage } from '../../../src/core/vt/debug/feedback-image';
import { MIP_COLOURS, writeMipColour } from '../../../src/core/vt/debug/mip-palette';
import { paintResidencyImage } from '../../../src/core/vt/debug/residency-image';
import { NO_REQUEST, packPageId } from '../../../src/core/vt/page-id';
import { VirtualTextureLayout } from '../../../src/core/vt/vt-layout';

const pixel = (image: Uint8Array, width: number, x: number, y: number) =>
  Array.from(image.subarray((y * width + x) * 4, (y * width + x) * 4 + 4));
const colour = (mip: number, brightness = 1) => {
  const out = new Uint8Array(4);
  writeMipColour(mip, brightness, out, 0);
  return Array.from(out);
};

describe('debug images', () => {
  it('gives the first twelve mips clearly different opaque colours', () => {
    for (let a = 0; a < 12; a++) {
      expect(MIP_COLOURS[a * 4 + 3]).toBe(255);
      for (let b = a + 1; b < 12; b++) {
        const d = [0, 1, 2].reduce(
          (sum, c) => sum + Math.abs(MIP_COLOURS[a * 4 + c] - MIP_COLOURS[b * 4 + c]),
          0,
        );
        expect(d, `mips ${a} and ${b}`).toBeGreaterThan(40);
      }
    }
  });

  it('paints a feedback buffer by mip, pages in a checkerboard, nothing transparent', () => {
    const ids = new Uint32Array([
      packPageId(0, 2, 3, 4),
      packPageId(1, 2, 4, 4),
      NO_REQUEST,
      packPageId(0, 7, 0, 0),
    ]);
    const out = new Uint8Array(16).fill(9);
    paintFeedbackImage(ids, 2, 2, out);
    expect(pixel(out, 2, 0, 0)).toEqual(colour(2, ALTERNATE_PAGE_BRIGHTNESS));
    expect(pixel(out, 2, 1, 0)).toEqual(colour(2));
    expect(pixel(out, 2, 0, 1)).toEqual([0, 0, 0, 0]);
    expect(pixel(out, 2, 1, 1)).toEqual(colour(7));
  });

  it('paints residency finer over coarser, skipping other textures, one pixel at least per page', () => {
    const layout = new VirtualTextureLayout({ widthPages: 8, heightPages: 8, tileSize: 16, border: 2 });
    const pages = new Uint32Array([
      NO_REQUEST,
      packPageId(0, 0, 1, 1), // fine page first: painting order must not depend on the list's order
      packPageId(0, 3, 0, 0),
      packPageId(1, 0, 5, 5), // another texture
      packPageId(0, 1, 3, 0),
    ]);
    const big = new Uint8Array(8 * 8 * 4);
    paintResidencyImage(layout, 0, pages, 8, 8, big);
    expect(pixel(big, 8, 1, 1)).toEqual(colour(0));
    expect(pixel(big, 8, 0, 0)).toEqual(colour(3));
    expect(pixel(big, 8, 5, 5)).toEqual(colour(3));
    // Mip-1 page (3, 0) covers texels 6..7 x 0..1 at mip 0, darker (3 + 0 is odd).
    for (const [x, y] of [
      [6, 0],
      [7, 1],
    ])
      expect(pixel(big, 8, x, y)).toEqual(colour(1, ALTERNATE_PAGE_BRIGHTNESS));
    expect(pixel(big, 8, 5, 1)).toEqual(colour(3));

    const small = new Uint8Array(4 * 4 * 4);
    paintResidencyImage(layout, 0, pages, 4, 4, small);
    expect(pixel(small, 4, 0, 0)).toEqual(colour(0)); // the mip-0 page still shows
    expect(pixel(small, 4, 2, 2)).toEqual(colour(3));

    const none = new Uint8Array(16).fill(7);
    paintResidencyImage(layout, 0, new Uint32Array([NO_REQUEST]), 2, 2, none);
    expect(Array.from(none)).toEqual(new Array(16).fill(0));
  });
});
