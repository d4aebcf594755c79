import { TesseraConfigError } from '../../errors';
import type { ManagedTextureRegistry } from '../texture-registry';

/** When an unretained texture of a tag may be released. */
export type LifetimePolicy =
  /** Never swept ('persistent'); evict explicitly. */
  | { kind: 'never' }
  /** Swept after this many frames without use. */
  | { kind: 'idle-frames'; frames: number }
  /** Swept after this many milliseconds without use (injected clock). */
  | { kind: 'idle-ms'; ms: number }
  /** Swept once its scene has been ended with {@link StaleSweep.endScene} ('scene:<id>' tags). */
  | { kind: 'scene' };

/** Options of a {@link StaleSweep}. */
export interface StaleSweepOptions {
  /** Run a sweep every this many frames of {@link StaleSweep.update}. Default 30. */
  cadenceFrames?: number;
  /** Policy of 'transient'. Default idle 2000 ms. */
  transient?: LifetimePolicy;
  /** Policy of tags not set explicitly and not 'persistent'/'transient'/'scene:*'. Default never. */
  custom?: LifetimePolicy;
}

const KIND_UNRESOLVED = 0;
const KIND_NEVER = 1;
const KIND_IDLE_FRAMES = 2;
const KIND_IDLE_MS = 3;
const KIND_SCENE = 4;

/**
 * Releases textures idle past their tag's {@link LifetimePolicy}, on a fixed cadence. Policies are
 * resolved once per interned tag into typed arrays; a sweep walks only the member lists of
 * sweepable tags and skips retained textures, so it touches no strings.
 */
export class StaleSweep {
  private readonly registry: ManagedTextureRegistry;
  private readonly cadence: number;
  private readonly transientPolicy: LifetimePolicy;
  private readonly customPolicy: LifetimePolicy;
  private readonly explicit = new Map<string, LifetimePolicy>();
  private kind = new Uint8Array(16);
  private limit = new Float64Array(16);
  private sceneEnded = new Uint8Array(16);
  private framesSinceSweep = 0;

  /** @throws TesseraConfigError('invalid-option') for a bad cadence or policy. */
  constructor(registry: ManagedTextureRegistry, options: StaleSweepOptions = {}) {
    this.registry = registry;
    this.cadence = options.cadenceFrames ?? 30;
    if (!Number.isInteger(this.cadence) || this.cadence < 1) {
      throw new TesseraConfigError('invalid-option', 'cadenceFrames must be an integer >= 1.');
    }
    this.transientPolicy = checkPolicy(options.transient ?? { kind: 'idle-ms', ms: 2000 });
    this.customPolicy = checkPolicy(options.custom ?? { kind: 'never' });
  }

  /** Set the policy of tag `tag` (overrides the defaults). */
  setPolicy(tag: string, policy: LifetimePolicy): void {
    this.explicit.set(tag, checkPolicy(policy));
    const id = this.registry.tags.find(tag);
    if (id >= 0 && id < this.kind.length) this.kind[id] = KIND_UNRESOLVED;
  }

  /** Mark scene `sceneId` gone: the next sweep releases its unretained 'scene:<id>' textures. */
  endScene(sceneId: string): void {
    const tag = this.registry.tags.intern(`scene:${sceneId}`);
    this.ensureTag(tag);
    this.sceneEnded[tag] = 1;
  }

  /** Mark scene `sceneId` live again (its textures are kept). */
  beginScene(sceneId: string): void {
    const tag = this.registry.tags.intern(`scene:${sceneId}`);
    this.ensureTag(tag);
    this.sceneEnded[tag] = 0;
  }

  /** Per-frame call; sweeps every `cadenceFrames` frames. Returns the number of textures released. */
  update(frame: number, nowMs = 0): number {
    if (++this.framesSinceSweep < this.cadence) return 0;
    this.framesSinceSweep = 0;
    return this.sweep(frame, nowMs);
  }

  /** Sweep now: release every unretained texture idle past its tag's policy. Returns the count. */
  sweep(frame: number, nowMs = 0): number {
    const registry = this.registry;
    const tagCount = registry.tags.count;
    this.ensureTag(tagCount - 1);
    let released = 0;
    for (let tag = 0; tag < tagCount; tag++) {
      let kind = this.kind[tag];
      if (kind === KIND_UNRESOLVED) kind = this.resolve(tag);
      if (kind === KIND_NEVER) continue;
      if (kind === KIND_SCENE && this.sceneEnded[tag] === 0) continue;
      const limit = this.limit[tag];
      let slot = registry.firstInTag(tag);
      while (slot >= 0) {
        const following = registry.nextInTag(slot);
        if (registry.refCountAt(slot) === 0) {
          const stale =
            kind === KIND_SCENE ||
            (kind === KIND_IDLE_FRAMES && frame - registry.lastUsedFrameAt(slot) >= limit) ||
            (kind === KIND_IDLE_MS && nowMs - registry.lastUsedMsAt(slot) >= limit);
          if (stale) {
            registry.evictSlot(slot);
            released++;
          }
        }
        slot = following;
      }
    }
    return released;
  }

  private resolve(tag: number): number {
    const name = this.registry.tags.name(tag);
    let policy = this.explicit.get(name);
    if (policy === undefined) {
      if (name === 'persistent' || name === '') policy = { kind: 'never' };
      else if (name === 'transient') policy = this.transientPolicy;
      else if (name.startsWith('scene:')) policy = { kind: 'scene' };
      else {
        policy = this.customPolicy;
      }
    }
    const kind =
      policy.kind === 'never'
        ? KIND_NEVER
        : policy.kind === 'idle-frames'
          ? KIND_IDLE_FRAMES
          : policy.kind === 'idle-ms'
            ? KIND_IDLE_MS
            : KIND_SCENE;
    this.kind[tag] = kind;
    this.limit[tag] =
      policy.kind === 'idle-frames' ? policy.frames : policy.kind === 'idle-ms' ? policy.ms : 0;
    return kind;
  }

  private ensureTag(tag: number): void {
    if (tag < this.kind.length) return;
    const size = Math.max(tag + 1, this.kind.length * 2);
    const kind = new Uint8Array(size);
    kind.set(this.kind);
    const limit = new Float64Array(size);
    limit.set(this.limit);
    const ended = new Uint8Array(size);
    ended.set(this.sceneEnded);
    this.kind = kind;
    this.limit = limit;
    this.sceneEnded = ended;
  }
}

function checkPolicy(policy: LifetimePolicy): LifetimePolicy {
  const bad =
    (policy.kind === 'idle-frames' && !(Number.isInteger(policy.frames) && policy.frames >= 0)) ||
    (policy.kind === 'idle-ms' && !(Number.isFinite(policy.ms) && policy.ms >= 0)) ||
    !['never', 'idle-frames', 'idle-ms', 'scene'].includes(policy.kind);
  if (bad) {
    throw new TesseraConfigError('invalid-option', `Invalid lifetime policy ${JSON.stringify(policy)}.`);
  }
  return policy;
}
