/**
 * One square terrain chunk: a regular grid of `CHUNK_SEGMENTS²` quads with a skirt hanging below
 * its edges, so a coarser neighbour's T-junction gaps are hidden without stitching.
 */

import { BufferAttribute, BufferGeometry, Sphere, Vector3 } from 'three';
import type { HeightField } from '../world/height-field';

/** Quads per chunk side; every chunk, near or far, has the same vertex count. */
export const CHUNK_SEGMENTS = 32;
const SIDE = CHUNK_SEGMENTS + 1;
const GRID_VERTICES = SIDE * SIDE;
const SKIRT_VERTICES = 4 * SIDE;

/** Index buffer shared by every chunk (same topology), built once. */
let sharedIndex: BufferAttribute | null = null;

function chunkIndex(): BufferAttribute {
  if (sharedIndex) return sharedIndex;
  const quads = CHUNK_SEGMENTS * CHUNK_SEGMENTS + 4 * CHUNK_SEGMENTS;
  const index = new Uint16Array(quads * 6);
  let n = 0;
  const quad = (a: number, b: number, c: number, d: number) => {
    // a b / c d, counter-clockwise seen from above (+y).
    index[n++] = a;
    index[n++] = c;
    index[n++] = b;
    index[n++] = b;
    index[n++] = c;
    index[n++] = d;
  };
  for (let j = 0; j < CHUNK_SEGMENTS; j++) {
    for (let i = 0; i < CHUNK_SEGMENTS; i++)
      quad(j * SIDE + i, j * SIDE + i + 1, (j + 1) * SIDE + i, (j + 1) * SIDE + i + 1);
  }
  // Skirts: edge vertex e(k) and its dropped copy s(k), wound to face outwards.
  const edge = (side: number, k: number): number => {
    if (side === 0) return k; // z min row
    if (side === 1) return CHUNK_SEGMENTS * SIDE + k; // z max row
    if (side === 2) return k * SIDE; // x min column
    return k * SIDE + CHUNK_SEGMENTS; // x max column
  };
  for (let side = 0; side < 4; side++) {
    for (let k = 0; k < CHUNK_SEGMENTS; k++) {
      const e0 = edge(side, k);
      const e1 = edge(side, k + 1);
      const s0 = GRID_VERTICES + side * SIDE + k;
      const s1 = s0 + 1;
      if (side === 1 || side === 2) quad(e0, e1, s0, s1);
      else quad(e1, e0, s1, s0);
    }
  }
  sharedIndex = new BufferAttribute(index, 1);
  return sharedIndex;
}

/**
 * Builds the chunk whose minimum corner is (`x0`, `z0`) metres and side `size` metres. UVs are the
 * world's 0..1 coordinates, so one virtual texture covers every chunk seamlessly.
 */
export function buildChunkGeometry(
  heights: HeightField,
  x0: number,
  z0: number,
  size: number,
): BufferGeometry {
  const spacing = size / CHUNK_SEGMENTS;
  const world = heights.sizeMeters;
  const count = GRID_VERTICES + SKIRT_VERTICES;
  const position = new Float32Array(count * 3);
  const normal = new Float32Array(count * 3);
  const uv = new Float32Array(count * 2);
  // Heights with a one-sample apron so normals at the edges use central differences too.
  const apron = SIDE + 2;
  const h = new Float32Array(apron * apron);
  for (let j = 0; j < apron; j++) {
    for (let i = 0; i < apron; i++)
      h[j * apron + i] = heights.heightAt(x0 + (i - 1) * spacing, z0 + (j - 1) * spacing, spacing);
  }
  let minY = Number.POSITIVE_INFINITY;
  let maxY = Number.NEGATIVE_INFINITY;
  for (let j = 0; j < SIDE; j++) {
    for (let i = 0; i < SIDE; i++) {
      const v = j * SIDE + i;
      const x = x0 + i * spacing;
      const z = z0 + j * spacing;
      const y = h[(j + 1) * apron + i + 1];
      minY = Math.min(minY, y);
      maxY = Math.max(maxY, y);
      position[v * 3] = x;
      position[v * 3 + 1] = y;
      position[v * 3 + 2] = z;
      const dx = h[(j + 1) * apron + i + 2] - h[(j + 1) * apron + i];
      const dz = h[(j + 2) * apron + i + 1] - h[j * apron + i + 1];
      const nx = -dx;
      const ny = 2 * spacing;
      const nz = -dz;
      const inv = 1 / Math.hypot(nx, ny, nz);
      normal[v * 3] = nx * inv;
      normal[v * 3 + 1] = ny * inv;
      normal[v * 3 + 2] = nz * inv;
      uv[v * 2] = x / world + 0.5;
      uv[v * 2 + 1] = z / world + 0.5;
    }
  }
  // Skirt depth grows with the chunk so it covers the worst height mismatch of a coarser neighbour.
  const skirt = spacing * 2 + (maxY - minY) * 0.1;
  const edgeVertex = (side: number, k: number): number =>
    side === 0
      ? k
      : side === 1
        ? CHUNK_SEGMENTS * SIDE + k
        : side === 2
          ? k * SIDE
          : k * SIDE + CHUNK_SEGMENTS;
  for (let side = 0; side < 4; side++) {
    for (let k = 0; k < SIDE; k++) {
      const e = edgeVertex(side, k);
      const s = GRID_VERTICES + side * SIDE + k;
      position[s * 3] = position[e * 3];
      position[s * 3 + 1] = position[e * 3 + 1] - skirt;
      position[s * 3 + 2] = position[e * 3 + 2];
      normal.copyWithin(s * 3, e * 3, e * 3 + 3);
      uv.copyWithin(s * 2, e * 2, e * 2 + 2);
    }
  }
  const geometry = new BufferGeometry();
  geometry.setIndex(chunkIndex());
  geometry.setAttribute('position', new BufferAttribute(position, 3));
  geometry.setAttribute('normal', new BufferAttribute(normal, 3));
  geometry.setAttribute('uv', new BufferAttribute(uv, 2));
  const half = size / 2;
  const centre = new Vector3(x0 + half, (minY + maxY) / 2, z0 + half);
  geometry.boundingSphere = new Sphere(centre, Math.hypot(half, half, (maxY - minY) / 2 + skirt));
  return geometry;
}
