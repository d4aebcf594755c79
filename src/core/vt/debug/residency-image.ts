import { NO_REQUEST } from '../page-id';
import type { VirtualTextureLayout } from '../vt-layout';
import { ALTERNATE_PAGE_BRIGHTNESS } from './feedback-image';
import { writeMipColour } from './mip-palette';

/**
 * Paints which mip is resident where over the whole of virtual texture `vt`, as a `width` x
 * `height` RGBA8 image (the texture's extent scaled to the image): every resident page of `vt`
 * among `pageIds` (e.g. a pool's `slotPages`; other textures' pages and {@link NO_REQUEST} are
 * skipped) covers its area in its mip's colour, finer pages over coarser ones, every other page
 * darker so page boundaries show; a page smaller than a pixel still paints one pixel. Transparent
 * black where nothing is resident. This is what the page table's fallback resolves to at mip 0.
 * Cost: one pass over `pageIds` per mip plus the painted area. Allocates nothing.
 */
export function paintResidencyImage(
  layout: VirtualTextureLayout,
  vt: number,
  pageIds: ArrayLike<number>,
  width: number,
  height: number,
  out: Uint8Array | Uint8ClampedArray,
): void {
  out.fill(0, 0, width * height * 4);
  const sx = width / layout.widthPages;
  const sy = height / layout.heightPages;
  for (let mip = layout.mipCount - 1; mip >= 0; mip--) {
    const span = 1 << mip;
    for (let i = 0; i < pageIds.length; i++) {
      const id = pageIds[i];
      if (id === NO_REQUEST || id >>> 28 !== vt || ((id >>> 24) & 0xf) !== mip) continue;
      const x = id & 0xfff;
      const y = (id >>> 12) & 0xfff;
      const x0 = Math.min(width - 1, Math.floor(x * span * sx));
      const y0 = Math.min(height - 1, Math.floor(y * span * sy));
      const x1 = Math.max(x0 + 1, Math.min(width, Math.floor((x + 1) * span * sx)));
      const y1 = Math.max(y0 + 1, Math.min(height, Math.floor((y + 1) * span * sy)));
      const brightness = (x + y) & 1 ? ALTERNATE_PAGE_BRIGHTNESS : 1;
      for (let py = y0; py < y1; py++) {
        for (let px = x0; px < x1; px++) writeMipColour(mip, brightness, out, (py * width + px) * 4);
      }
    }
  }
}
