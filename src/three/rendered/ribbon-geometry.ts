import { BufferAttribute, BufferGeometry } from 'three';
import { TesseraConfigError } from '../../core/errors';

/**
 * A flat strip of `width` (world units) along the polyline `points` ([x0, y0, x1, y1, ...], world
 * units) in the z = `z` plane: the shape of a road, path or track decal. Joints are mitred (the
 * miter is capped at twice the width, so a sharp turn does not spike). uv: u runs along the strip
 * in world units (for dashes and repeating textures), v across it from 0 to 1.
 * @throws TesseraConfigError('invalid-option') for fewer than two points, a non-finite coordinate
 *   or a width that is not positive.
 */
export function ribbonGeometry(points: readonly number[], width: number, z = 1): BufferGeometry {
  const n = points.length / 2;
  if (!Number.isInteger(n) || n < 2 || !points.every(Number.isFinite) || !(width > 0)) {
    throw new TesseraConfigError(
      'invalid-option',
      'a ribbon needs two or more finite points and a positive width',
    );
  }
  const position = new Float32Array(n * 2 * 3);
  const uv = new Float32Array(n * 2 * 2);
  const half = width / 2;
  let along = 0;
  for (let i = 0; i < n; i++) {
    const px = points[2 * i];
    const py = points[2 * i + 1];
    // Direction in and out of this point (the end points have one of them).
    const [ix, iy] = i > 0 ? unit(px - points[2 * i - 2], py - points[2 * i - 1]) : [0, 0];
    const [ox, oy] = i < n - 1 ? unit(points[2 * i + 2] - px, points[2 * i + 3] - py) : [0, 0];
    let [tx, ty] = unit(ix + ox, iy + oy);
    if (tx === 0 && ty === 0) [tx, ty] = i > 0 ? [ix, iy] : [ox, oy];
    // Normal of the mean tangent, scaled so the strip keeps its width through the joint.
    const cos = i > 0 && i < n - 1 ? Math.max(0.5, tx * ox + ty * oy) : 1;
    const nx = (-ty * half) / cos;
    const ny = (tx * half) / cos;
    if (i > 0) along += Math.hypot(px - points[2 * i - 2], py - points[2 * i - 1]);
    position.set([px + nx, py + ny, z, px - nx, py - ny, z], i * 6);
    uv.set([along, 0, along, 1], i * 4);
  }
  const index: number[] = [];
  for (let i = 0; i < n - 1; i++) {
    const a = 2 * i;
    index.push(a, a + 1, a + 2, a + 1, a + 3, a + 2);
  }
  const geometry = new BufferGeometry();
  geometry.setAttribute('position', new BufferAttribute(position, 3));
  geometry.setAttribute('uv', new BufferAttribute(uv, 2));
  geometry.setIndex(index);
  return geometry;
}

function unit(x: number, y: number): [number, number] {
  const l = Math.hypot(x, y);
  return l > 1e-12 ? [x / l, y / l] : [0, 0];
}
