/**
 * Interns tag strings ('persistent', 'scene:forest', 'transient', custom) to small integers once,
 * so hot loops compare integers. Tag id 0 is always the empty tag ''.
 */
export class TagRegistry {
  private readonly idsByName = new Map<string, number>();
  private readonly names: string[] = [];

  constructor() {
    this.intern('');
  }

  /** The integer id of `name`, creating it on first use. */
  intern(name: string): number {
    const existing = this.idsByName.get(name);
    if (existing !== undefined) return existing;
    const id = this.names.length;
    this.names.push(name);
    this.idsByName.set(name, id);
    return id;
  }

  /** The id of `name` if it was interned, else -1 (never creates one). */
  find(name: string): number {
    return this.idsByName.get(name) ?? -1;
  }

  /** The name of tag `id` ('' for unknown ids). */
  name(id: number): string {
    return this.names[id] ?? '';
  }

  /** Number of interned tags (ids are 0 .. count - 1). */
  get count(): number {
    return this.names.length;
  }
}

/** The empty tag id: reservations and textures with no tag. */
export const NO_TAG = 0;
