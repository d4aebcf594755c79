import type { TagRegistry } from '../../budget/tag-registry';

/**
 * Importance weight of each lifetime tag, looked up by tag id: an override from the options by
 * tag name, else persistent 2, transient 0.5, `scene:*` and others 1. Cached per id in a typed
 * array (NaN until first asked), so the per-frame lookups use no string.
 */
export class LifetimeTagWeights {
  private weights = new Float32Array(16).fill(Number.NaN);

  constructor(
    private readonly tags: TagRegistry,
    private readonly overrides: Record<string, number> = {},
  ) {}

  /** Weight of tag id `tag`. */
  weightOf(tag: number): number {
    if (tag >= this.weights.length) {
      const weights = new Float32Array(Math.max(tag + 1, this.weights.length * 2)).fill(Number.NaN);
      weights.set(this.weights);
      this.weights = weights;
    }
    let weight = this.weights[tag];
    if (Number.isNaN(weight)) {
      const name = this.tags.name(tag);
      weight =
        this.overrides[name] ??
        (name === 'persistent' ? 2 : name === 'transient' ? 0.5 : name.startsWith('scene:') ? 1 : 1);
      this.weights[tag] = weight;
    }
    return weight;
  }
}
