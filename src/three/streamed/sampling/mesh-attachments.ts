import type { Material, Mesh } from 'three';
import type { TextureNode } from 'three/webgpu';
import type { StreamedTexture } from '../streamed-texture';

/**
 * Which meshes use which streamed texture: the meshes whose screen size makes up a texture's mip
 * need. Meshes are held weakly (a side table keyed by user objects): a mesh dropped by the user
 * is forgotten the next time the pairs are walked.
 */
export class MeshAttachments {
  private readonly meshes: WeakRef<Mesh>[] = [];
  private readonly owners: StreamedTexture[] = [];

  /** Attached (mesh, texture) pairs, dead meshes not yet pruned included. */
  get size(): number {
    return this.meshes.length;
  }

  /** The mesh of pair `index`, or undefined when it was garbage-collected (see {@link removeAt}). */
  meshAt(index: number): Mesh | undefined {
    return this.meshes[index].deref();
  }

  /** The texture of pair `index`. */
  ownerAt(index: number): StreamedTexture {
    return this.owners[index];
  }

  /**
   * Bind `texture` in `target` of every material of `mesh` (a property name, taken from any other
   * streamed texture bound there, or a TSL texture node) and record the pair.
   * @param others the live textures that may hold `target` on these materials now.
   */
  attach(
    mesh: Mesh,
    texture: StreamedTexture,
    target: string | TextureNode,
    others: readonly StreamedTexture[],
  ): void {
    if (typeof target === 'string') {
      const materials = Array.isArray(mesh.material) ? mesh.material : [mesh.material];
      for (const material of materials) {
        for (const other of others) if (other !== texture) other.bindings.removeProperty(material, target);
        texture.bindProperty(material, target);
        material.needsUpdate = true;
      }
    } else {
      texture.bindings.addNode(target, texture.texture);
    }
    for (let i = 0; i < this.meshes.length; i++) {
      if (this.owners[i] === texture && this.meshes[i].deref() === mesh) return;
    }
    this.meshes.push(new WeakRef(mesh));
    this.owners.push(texture);
  }

  /** Forget every pair of `mesh` and its materials' bindings. */
  detach(mesh: Mesh): void {
    const materials: Material[] = Array.isArray(mesh.material) ? mesh.material : [mesh.material];
    for (let i = this.meshes.length - 1; i >= 0; i--) {
      if (this.meshes[i].deref() !== mesh) continue;
      for (const material of materials) this.owners[i].bindings.removeMaterial(material);
      this.removeAt(i);
    }
  }

  /** Forget every pair of a released texture. */
  forget(texture: StreamedTexture): void {
    for (let i = this.meshes.length - 1; i >= 0; i--) if (this.owners[i] === texture) this.removeAt(i);
  }

  /** Remove pair `index`; the last pair takes its place (walk backwards while removing). */
  removeAt(index: number): void {
    const last = this.meshes.length - 1;
    this.meshes[index] = this.meshes[last];
    this.owners[index] = this.owners[last];
    this.meshes.length = last;
    this.owners.length = last;
  }
}
