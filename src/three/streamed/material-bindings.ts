import type { Material, Texture } from 'three';
import type { TextureNode } from 'three/webgpu';

/**
 * Every place one streamed texture is bound: material properties (`material.map`, ...) and TSL
 * texture nodes (`TextureNode.value`). A side table, as three keeps GPU state beside user objects:
 * when the resident chain changes or the texture is released, {@link bind} swaps the new texture
 * (or the placeholder) into all of them, so no bind group keeps a destroyed GPU texture
 * (three.js issue #33675). three rebuilds a bind group when a binding's texture object changes.
 */
export class MaterialBindings {
  private readonly materials: Material[] = [];
  private readonly properties: string[] = [];
  private readonly nodes: TextureNode[] = [];

  /** Number of material properties and nodes bound. */
  get size(): number {
    return this.materials.length + this.nodes.length;
  }

  /** Record `material[property]` as a user of the texture and set it to `current`. */
  addProperty(material: Material, property: string, current: Texture): void {
    for (let i = 0; i < this.materials.length; i++) {
      if (this.materials[i] === material && this.properties[i] === property) {
        setProperty(material, property, current);
        return;
      }
    }
    this.materials.push(material);
    this.properties.push(property);
    setProperty(material, property, current);
  }

  /** Record texture node `node` as a user of the texture and set its value to `current`. */
  addNode(node: TextureNode, current: Texture): void {
    if (!this.nodes.includes(node)) this.nodes.push(node);
    node.value = current;
  }

  /** Forget the binding `material[property]` (another texture took it). */
  removeProperty(material: Material, property: string): void {
    for (let i = this.materials.length - 1; i >= 0; i--) {
      if (this.materials[i] !== material || this.properties[i] !== property) continue;
      this.materials.splice(i, 1);
      this.properties.splice(i, 1);
    }
  }

  /** Forget every binding on `material` (it no longer uses the texture). */
  removeMaterial(material: Material): void {
    for (let i = this.materials.length - 1; i >= 0; i--) {
      if (this.materials[i] !== material) continue;
      this.materials.splice(i, 1);
      this.properties.splice(i, 1);
    }
  }

  /** Bind `texture` everywhere the streamed texture is used. */
  bind(texture: Texture): void {
    for (let i = 0; i < this.materials.length; i++)
      setProperty(this.materials[i], this.properties[i], texture);
    for (let i = 0; i < this.nodes.length; i++) this.nodes[i].value = texture;
  }

  /** Forget every binding (after the placeholder was bound on release). */
  clear(): void {
    this.materials.length = 0;
    this.properties.length = 0;
    this.nodes.length = 0;
  }
}

function setProperty(material: Material, property: string, texture: Texture): void {
  (material as unknown as Record<string, Texture>)[property] = texture;
}
