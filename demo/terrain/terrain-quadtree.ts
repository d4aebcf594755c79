/**
 * Terrain level of detail: a quadtree over the square terrain whose leaves near the camera are small
 * chunks and far away big ones, each with the same vertex count (so vertex density falls with
 * distance). Chunks are built lazily, a few per frame, and a node refines only once all four
 * children exist, so the ground never has holes while detail streams in.
 */

import { Group, type Material, Mesh, type Vector3 } from 'three';
import type { HeightField } from '../world/height-field';
import { buildChunkGeometry } from './chunk-geometry';

/** Options of {@link TerrainQuadtree}. */
export interface TerrainQuadtreeOptions {
  /** Smallest chunk side, metres (sets the finest vertex spacing: side / 32). Default 64. */
  leafSizeMeters?: number;
  /** A node splits while the camera is closer than this many node sides. Default 1.6. */
  splitDistance?: number;
  /** Chunk meshes built per frame at most (each costs ~1,200 height samples). Default 4. */
  maxBuildsPerFrame?: number;
  /** Chunks kept in the cache before unused ones are dropped. Default 256. */
  maxCachedChunks?: number;
}

interface Chunk {
  mesh: Mesh;
  /** Frame the chunk was last drawn. */
  lastUsedFrame: number;
}

/** The terrain: add {@link TerrainQuadtree.group} to the scene and call {@link TerrainQuadtree.update} each frame. */
export class TerrainQuadtree {
  /** Holds the chunk meshes. */
  readonly group = new Group();
  /** Number of quadtree levels (0 = one chunk over the whole terrain). */
  readonly levels: number;
  /** Chunks the camera wanted this frame that were not built yet (0 = geometry is final for this view). */
  pendingBuilds = 0;
  /** Chunks drawn in the last update. */
  visibleChunks = 0;
  private readonly chunks = new Map<number, Chunk>();
  private readonly drawn: Mesh[] = [];
  private readonly splitDistance: number;
  private readonly maxBuildsPerFrame: number;
  private readonly maxCachedChunks: number;
  private buildsLeft = 0;
  private frame = 0;

  constructor(
    private readonly heights: HeightField,
    private material: Material,
    options: TerrainQuadtreeOptions = {},
  ) {
    const leaf = options.leafSizeMeters ?? 64;
    this.levels = Math.max(1, Math.round(Math.log2(heights.sizeMeters / leaf)) + 1);
    this.splitDistance = options.splitDistance ?? 1.6;
    this.maxBuildsPerFrame = options.maxBuildsPerFrame ?? 4;
    this.maxCachedChunks = options.maxCachedChunks ?? 256;
    this.group.name = 'terrain';
    this.chunk(0, 0, 0, true);
  }

  /** Swaps the material of every chunk (e.g. a virtual-texture material replacing a stand-in). */
  setMaterial(material: Material): void {
    this.material = material;
    for (const chunk of this.chunks.values()) chunk.mesh.material = material;
  }

  /** Chooses the chunks for a camera at `eye` (world metres) and builds a few missing ones. */
  update(eye: Vector3): void {
    this.frame++;
    for (const mesh of this.drawn) mesh.visible = false;
    this.drawn.length = 0;
    this.buildsLeft = this.maxBuildsPerFrame;
    this.pendingBuilds = 0;
    this.visit(0, 0, 0, eye);
    this.visibleChunks = this.drawn.length;
    if (this.chunks.size > this.maxCachedChunks && this.frame % 30 === 0) this.evict();
  }

  /** Frees every chunk's geometry. */
  dispose(): void {
    for (const chunk of this.chunks.values()) {
      chunk.mesh.geometry.dispose();
      chunk.mesh.dispose();
    }
    this.chunks.clear();
    this.group.clear();
  }

  private visit(level: number, ix: number, iz: number, eye: Vector3): void {
    const size = this.heights.sizeMeters / 2 ** level;
    const x0 = -this.heights.sizeMeters / 2 + ix * size;
    const z0 = -this.heights.sizeMeters / 2 + iz * size;
    const dx = Math.max(x0 - eye.x, 0, eye.x - (x0 + size));
    const dz = Math.max(z0 - eye.z, 0, eye.z - (z0 + size));
    // Height above the ground counts too: from high up, even the chunk below is far.
    const dy = Math.max(0, eye.y - this.heights.heightAt(eye.x, eye.z, size / 8));
    const distance = Math.hypot(dx, dz, dy);
    if (level + 1 < this.levels && distance < this.splitDistance * size) {
      const l = level + 1;
      const cx = ix * 2;
      const cz = iz * 2;
      // Build all four (budget permitting) before splitting, so no quarter is ever missing.
      const a = this.chunk(l, cx, cz, false);
      const b = this.chunk(l, cx + 1, cz, false);
      const c = this.chunk(l, cx, cz + 1, false);
      const d = this.chunk(l, cx + 1, cz + 1, false);
      if (a && b && c && d) {
        a.lastUsedFrame = b.lastUsedFrame = c.lastUsedFrame = d.lastUsedFrame = this.frame;
        this.visit(l, cx, cz, eye);
        this.visit(l, cx + 1, cz, eye);
        this.visit(l, cx, cz + 1, eye);
        this.visit(l, cx + 1, cz + 1, eye);
        return;
      }
    }
    const chunk = this.chunk(level, ix, iz, true)!;
    chunk.lastUsedFrame = this.frame;
    chunk.mesh.visible = true;
    this.drawn.push(chunk.mesh);
  }

  /** The chunk at (level, ix, iz); builds it when `force` or the frame's build budget allows, else null. */
  private chunk(level: number, ix: number, iz: number, force: boolean): Chunk | null {
    const key = (level << 24) | (iz << 12) | ix;
    const existing = this.chunks.get(key);
    if (existing) return existing;
    if (!force && this.buildsLeft <= 0) {
      this.pendingBuilds++;
      return null;
    }
    this.buildsLeft--;
    const size = this.heights.sizeMeters / 2 ** level;
    const x0 = -this.heights.sizeMeters / 2 + ix * size;
    const z0 = -this.heights.sizeMeters / 2 + iz * size;
    const mesh = new Mesh(buildChunkGeometry(this.heights, x0, z0, size), this.material);
    mesh.name = `terrain:${level}:${ix}:${iz}`;
    mesh.visible = false;
    mesh.matrixAutoUpdate = false;
    mesh.receiveShadow = true;
    this.group.add(mesh);
    const chunk: Chunk = { mesh, lastUsedFrame: this.frame };
    this.chunks.set(key, chunk);
    return chunk;
  }

  private evict(): void {
    for (const [key, chunk] of this.chunks) {
      if (key === 0 || chunk.lastUsedFrame >= this.frame - 120) continue;
      chunk.mesh.geometry.dispose();
      // three keeps a mesh's render objects (and their uniform buffers) until the mesh's own dispose.
      chunk.mesh.dispose();
      this.group.remove(chunk.mesh);
      this.chunks.delete(key);
      if (this.chunks.size <= this.maxCachedChunks) break;
    }
  }
}
