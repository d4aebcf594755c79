/**
 * Doubling the density of a line of grid values, the step of the stride-2 cascade: copies at even
 * points, midpoints at odd ones. The midpoint is `a * 0.5 + b * 0.5`, exactly what the general
 * bilinear formula gives at a fraction of 0.5, so every path yields the same bits for a texel.
 */

/**
 * Writes `src[at..]` at twice the density into `dst[out..]`: copies at even points, midpoints
 * `a * 0.5 + b * 0.5` at odd ones (`pairs` pairs, then one more copy when `endsOnCopy`).
 */
export function halveLine(
  src: Float64Array,
  at: number,
  dst: Float64Array,
  out: number,
  pairs: number,
  endsOnCopy: boolean,
): void {
  let a = src[at];
  for (let m = 0; m < pairs; m++, out += 2) {
    const b = src[++at];
    dst[out] = a;
    dst[out + 1] = a * 0.5 + b * 0.5;
    a = b;
  }
  if (endsOnCopy) dst[out] = a;
}

/** {@link halveLine} of the midpoints between lines `at` and `at + lineStride` of `src`. */
export function halveBetweenLines(
  src: Float64Array,
  at: number,
  lineStride: number,
  dst: Float64Array,
  out: number,
  pairs: number,
  endsOnCopy: boolean,
): void {
  let a = src[at] * 0.5 + src[at + lineStride] * 0.5;
  for (let m = 0; m < pairs; m++, out += 2) {
    at++;
    const b = src[at] * 0.5 + src[at + lineStride] * 0.5;
    dst[out] = a;
    dst[out + 1] = a * 0.5 + b * 0.5;
    a = b;
  }
  if (endsOnCopy) dst[out] = a;
}
