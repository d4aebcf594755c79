/** Typed arrays the growable struct-of-arrays tables use. */
export type GrowableTypedArray =
  | Uint8Array
  | Int8Array
  | Uint32Array
  | Int32Array
  | Float32Array
  | Float64Array;

/**
 * A copy of `array` of `length` elements (at least its own), of the same type: its elements
 * first, then `fill`. Tables grow by doubling, so this runs O(log n) times, never per frame.
 */
export function grownTypedArray<T extends GrowableTypedArray>(array: T, length: number, fill = 0): T {
  const next = new (array.constructor as new (length: number) => T)(length);
  if (fill !== 0) next.fill(fill);
  next.set(array);
  return next;
}
