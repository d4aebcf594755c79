import type { Material, Texture } from 'three';
import type { TextureNode } from 'three/webgpu';

/**
 * Every place one streamed texture is bound: material properties (`material.map`, ...) and TSL
 * texture nodes (`TextureNode.value`). A side table, as three keeps GPU state beside user objects:
 * when the resident chain changes or the texture is released, {@link bind} swaps the new texture
 * (or the placeholder) into all of them, so no bind group keeps a destroyed GPU texture
 * (three.js issue #33675). three rebuilds a bind group when a binding's texture object changes.
 *
 * Materials and nodes are the user's objects, so they are held through `WeakRef`s: a material the
 * user dropped is not kept alive by a streamed texture, and its entry is pruned the next time the
 * table is walked.
 */
export class MaterialBindings {
  private readonly materials: WeakRef<Material>[] = [];
  /** Property name bound on `materials[i]`. */
  private readonly properties: string[] = [];
  private readonly nodes: WeakRef<TextureNode>[] = [];

  /** Number of material properties and nodes bound (dead entries not yet pruned included). */
  get size(): number {
    return this.materials.length + this.nodes.length;
  }

  /** Record `material[property]` as a user of the texture and set it to `current`. */
  addProperty(material: Material, property: string, current: Texture): void {
    setProperty(material, property, current);
    for (let i = this.materials.length - 1; i >= 0; i--) {
      const bound = this.materials[i].deref();
      if (bound === undefined) this.removePropertyAt(i);
      else if (bound === material && this.properties[i] === property) return;
    }
    this.materials.push(new WeakRef(material));
    this.properties.push(property);
  }

  /** Record texture node `node` as a user of the texture and set its value to `current`. */
  addNode(node: TextureNode, current: Texture): void {
    node.value = current;
    for (let i = this.nodes.length - 1; i >= 0; i--) {
      const bound = this.nodes[i].deref();
      if (bound === undefined) this.removeNodeAt(i);
      else if (bound === node) return;
    }
    this.nodes.push(new WeakRef(node));
  }

  /** Forget the binding `material[property]` (another texture took it). */
  removeProperty(material: Material, property: string): void {
    for (let i = this.materials.length - 1; i >= 0; i--) {
      const bound = this.materials[i].deref();
      if (bound === undefined || (bound === material && this.properties[i] === property)) {
        this.removePropertyAt(i);
      }
    }
  }

  /** Forget every binding on `material` (it no longer uses the texture). */
  removeMaterial(material: Material): void {
    for (let i = this.materials.length - 1; i >= 0; i--) {
      const bound = this.materials[i].deref();
      if (bound === undefined || bound === material) this.removePropertyAt(i);
    }
  }

  /** Bind `texture` everywhere the streamed texture is used; prunes users that were collected. */
  bind(texture: Texture): void {
    for (let i = this.materials.length - 1; i >= 0; i--) {
      const material = this.materials[i].deref();
      if (material === undefined) this.removePropertyAt(i);
      else {
        setProperty(material, this.properties[i], texture);
      }
    }
    for (let i = this.nodes.length - 1; i >= 0; i--) {
      const node = this.nodes[i].deref();
      if (node === undefined) this.removeNodeAt(i);
      else {
        node.value = texture;
      }
    }
  }

  /** Forget every binding (after the placeholder was bound on release). */
  clear(): void {
    this.materials.length = 0;
    this.properties.length = 0;
    this.nodes.length = 0;
  }

  // Swap-remove: binding order carries no meaning, and walks run backwards.
  private removePropertyAt(index: number): void {
    const last = this.materials.length - 1;
    this.materials[index] = this.materials[last];
    this.properties[index] = this.properties[last];
    this.materials.length = last;
    this.properties.length = last;
  }

  private removeNodeAt(index: number): void {
    const last = this.nodes.length - 1;
    this.nodes[index] = this.nodes[last];
    this.nodes.length = last;
  }
}

function setProperty(material: Material, property: string, texture: Texture): void {
  (material as unknown as Record<string, Texture>)[property] = texture;
}
