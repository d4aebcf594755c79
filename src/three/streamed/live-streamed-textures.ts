import { TesseraError } from '../../core/errors';
import { textureSlot } from '../../core/streaming/texture-registry';
import type { StreamedTexture } from './streamed-texture';

/**
 * The live streamed textures of one system, by registry slot (the planner speaks in ids), plus
 * the set of every texture the system ever created, to tell "released twice" from "not ours".
 * (The planner's per-texture streaming state is the core's `StreamedTextureTable`.)
 */
export class LiveStreamedTextures {
  /** Live textures, in creation order (swept in reverse on dispose). */
  readonly live: StreamedTexture[] = [];
  private readonly bySlot: (StreamedTexture | null)[] = [];
  private readonly created = new WeakSet<StreamedTexture>();

  /** One more than the highest registry slot ever used (sizes per-slot scratch arrays). */
  get slotCount(): number {
    return this.bySlot.length;
  }

  /** Record a texture just created. */
  add(texture: StreamedTexture): void {
    const slot = textureSlot(texture.id);
    while (this.bySlot.length <= slot) this.bySlot.push(null);
    this.bySlot[slot] = texture;
    this.live.push(texture);
    this.created.add(texture);
  }

  /** The live texture with registry id `id`, or null (released, or the slot was reused). */
  byId(id: number): StreamedTexture | null {
    const texture = this.bySlot[textureSlot(id)];
    return texture && texture.id === id ? texture : null;
  }

  /** Forget a released texture. */
  remove(texture: StreamedTexture): void {
    const slot = textureSlot(texture.id);
    if (this.bySlot[slot] === texture) this.bySlot[slot] = null;
    const at = this.live.indexOf(texture);
    if (at >= 0) this.live.splice(at, 1);
  }

  /**
   * @throws TesseraError('released-twice') for a texture of this system already released,
   *   ('unknown-texture') for one of another system.
   */
  check(texture: StreamedTexture): void {
    if (this.bySlot[textureSlot(texture.id)] === texture) return;
    if (texture.released && this.created.has(texture)) {
      throw new TesseraError('released-twice', `Texture '${texture.name}' was already released.`);
    }
    throw new TesseraError('unknown-texture', `Texture '${texture.name}' is not managed by this system.`);
  }
}
