import type { Material } from 'three';

/**
 * The user materials whose node graphs sample a virtual texture, held weakly (a material the app
 * drops is collected as usual). When the system changes something compiled into those graphs
 * (filtering, pool textures), {@link invalidate} flags each for a rebuild: the same material keeps
 * working, three recompiles it at its next draw (the nodes' cache keys changed too).
 */
export class MaterialRegistry {
  private readonly refs = new Set<WeakRef<Material>>();
  private readonly known = new WeakSet<Material>();
  private readonly forget = new FinalizationRegistry<WeakRef<Material>>((ref) => this.refs.delete(ref));

  /** Remembers `material` (no-op when known). */
  add(material: Material): void {
    if (this.known.has(material)) return;
    this.known.add(material);
    const ref = new WeakRef(material);
    this.refs.add(ref);
    this.forget.register(material, ref);
  }

  /** Sets `needsUpdate` on every live material; returns how many. */
  invalidate(): number {
    let count = 0;
    for (const ref of this.refs) {
      const material = ref.deref();
      if (material === undefined) {
        this.refs.delete(ref);
        continue;
      }
      material.needsUpdate = true;
      count++;
    }
    return count;
  }

  /** Forgets every material. */
  clear(): void {
    this.refs.clear();
  }
}
