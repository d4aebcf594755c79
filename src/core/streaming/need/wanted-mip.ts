import { TesseraConfigError } from '../../errors';

/**
 * UV density of a triangle mesh: UV units per world unit, sqrt(total UV area / total world area),
 * computed once per geometry. Multiply by a texture's edge in texels to get texels per world unit.
 * @param positions xyz per vertex (world or object units).
 * @param uvs uv per vertex.
 * @param index triangle vertex indices; omitted for non-indexed geometry.
 * @returns 0 for a geometry with no area.
 */
export function computeUvDensity(
  positions: ArrayLike<number>,
  uvs: ArrayLike<number>,
  index?: ArrayLike<number>,
): number {
  const vertexCount = Math.floor(positions.length / 3);
  if (uvs.length < vertexCount * 2) {
    throw new TesseraConfigError('invalid-option', 'uvs must hold two numbers per vertex.');
  }
  const triangleCount = Math.floor((index ? index.length : vertexCount) / 3);
  let worldArea = 0;
  let uvArea = 0;
  for (let t = 0; t < triangleCount; t++) {
    const a = index ? index[3 * t] : 3 * t;
    const b = index ? index[3 * t + 1] : 3 * t + 1;
    const c = index ? index[3 * t + 2] : 3 * t + 2;
    const abx = positions[3 * b] - positions[3 * a];
    const aby = positions[3 * b + 1] - positions[3 * a + 1];
    const abz = positions[3 * b + 2] - positions[3 * a + 2];
    const acx = positions[3 * c] - positions[3 * a];
    const acy = positions[3 * c + 1] - positions[3 * a + 1];
    const acz = positions[3 * c + 2] - positions[3 * a + 2];
    const cx = aby * acz - abz * acy;
    const cy = abz * acx - abx * acz;
    const cz = abx * acy - aby * acx;
    worldArea += 0.5 * Math.sqrt(cx * cx + cy * cy + cz * cz);
    const u1 = uvs[2 * b] - uvs[2 * a];
    const v1 = uvs[2 * b + 1] - uvs[2 * a + 1];
    const u2 = uvs[2 * c] - uvs[2 * a];
    const v2 = uvs[2 * c + 1] - uvs[2 * a + 1];
    uvArea += 0.5 * Math.abs(u1 * v2 - v1 * u2);
  }
  return worldArea > 0 ? Math.sqrt(uvArea / worldArea) : 0;
}

/**
 * The fractional mip level a texture needs on screen: log2(texels per world unit / pixels per world
 * unit) + bias. Level 0 is the finest. Returns +Infinity when the mesh covers no pixels.
 * @param texelsPerWorldUnit level-0 texels per world unit (UV density x texture edge in texels).
 * @param projectedSizePx the mesh's projected size on screen, in pixels (e.g. bounding-sphere diameter).
 * @param worldSize the same extent in world units (e.g. bounding-sphere diameter).
 * @param bias levels added (positive = coarser), e.g. a quality setting.
 */
export function wantedMipLevel(
  texelsPerWorldUnit: number,
  projectedSizePx: number,
  worldSize: number,
  bias = 0,
): number {
  if (!(projectedSizePx > 0) || !(worldSize > 0) || !(texelsPerWorldUnit > 0)) {
    return Number.POSITIVE_INFINITY;
  }
  return Math.log2((texelsPerWorldUnit * worldSize) / projectedSizePx) + bias;
}
