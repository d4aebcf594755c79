/** Per-pixel error of a rendered frame against a reference: RGB PSNR and the largest difference. */

/** Error statistics of one set of pixels. */
export interface ErrorStats {
  pixels: number;
  /** Largest difference of any channel, levels. */
  max: number;
  /** RGB PSNR, dB. */
  psnr: number;
}

/** Accumulates {@link ErrorStats}. */
export class ErrorSum {
  pixels = 0;
  max = 0;
  squares = 0;
  /** Adds pixel `i` of `a` against the same pixel of `b` (RGBA8). */
  add(a: Uint8Array, b: Uint8Array, i: number): void {
    this.pixels++;
    for (let c = 0; c < 3; c++) {
      const d = Math.abs(a[i * 4 + c] - b[i * 4 + c]);
      if (d > this.max) this.max = d;
      this.squares += d * d;
    }
  }
  stats(): ErrorStats {
    const mse = this.squares / Math.max(1, this.pixels * 3);
    return { pixels: this.pixels, max: this.max, psnr: mse === 0 ? 99 : 10 * Math.log10((255 * 255) / mse) };
  }
}
