import type { TextureBudget } from '../../../core/budget/texture-budget';
import type {
  SceneTransition,
  TransitionOrder,
  TransitionPhase,
} from '../../../core/streaming/transitions/scene-transition';
import type { StreamedTexture } from '../streamed-texture';

/** One side of a transition: a scene's streamed textures, and optionally its virtual textures. */
export type SceneTextures =
  | readonly StreamedTexture[]
  | { readonly textures: readonly StreamedTexture[]; readonly vtHandles?: readonly number[] };

/** Options of `TextureStreamingSystem.transition`. */
export interface StreamingTransitionOptions {
  /** Default 'load-while-release'; 'naive' loads all of the new scene, then releases the old one. */
  order?: TransitionOrder;
  /** Bytes of old textures released per frame. Default budget / 32. */
  releaseBytesPerFrame?: number;
  /** Headroom over the resident bytes at the start, as a fraction of the budget. Default 0.1. */
  headroomFraction?: number;
  /** The old scene's virtual texture `vtHandle` may be evicted now. */
  onVtEvictable?: (vtHandle: number) => void;
}

/** Figures of a finished transition, in bytes and frames. */
export interface TransitionResult {
  /** The order the transition ran in. */
  order: TransitionOrder;
  /** Highest budget live bytes from start to done (A and B and the overlap), bytes. */
  peakBytes: number;
  /** Live bytes at the start (the old scene, A), bytes. */
  residentAtStartBytes: number;
  /** Live bytes when the old scene was gone (B so far), bytes. */
  residentAtDoneBytes: number;
  /** max(A, B) + headroom x budget: the bound the peak must respect, bytes. */
  ruleBytes: number;
  /**
   * What the naive order would have held at once, estimated as A + the new scene's resident bytes
   * at done (not measured; run with `order: 'naive'` to measure it), bytes.
   */
  naivePeakEstimateBytes: number;
  /** The budget at the end, bytes. */
  budgetBytes: number;
  /** Frames from start to ready (the new scene's core textures resident). */
  framesToReady: number;
  /** Frames from start to done (the old scene released). */
  framesToDone: number;
}

/**
 * A scene transition in progress, advanced by `TextureStreamingSystem.update`. `ready` resolves
 * when the new scene's core textures render (switch the scene then); `done` when the old scene's
 * textures are released.
 */
export class StreamingTransition {
  /** Resolves when the new scene can be shown. */
  readonly ready: Promise<void>;
  /** Resolves with the figures once the old scene is released. */
  readonly done: Promise<TransitionResult>;
  /** @internal */
  readonly core: SceneTransition;
  private readonly budget: TextureBudget;
  private readonly incoming: readonly StreamedTexture[];
  private readonly residentBytesOf: (texture: StreamedTexture) => number;
  private readonly headroomFraction: number;
  private readonly order: TransitionOrder;
  private resolveReady!: () => void;
  private resolveDone!: (result: TransitionResult) => void;
  private readySignalled = false;

  /** @internal created by `TextureStreamingSystem.transition`. */
  constructor(
    core: SceneTransition,
    budget: TextureBudget,
    incoming: readonly StreamedTexture[],
    residentBytesOf: (texture: StreamedTexture) => number,
    headroomFraction: number,
    order: TransitionOrder,
  ) {
    this.core = core;
    this.budget = budget;
    this.incoming = incoming;
    this.residentBytesOf = residentBytesOf;
    this.headroomFraction = headroomFraction;
    this.order = order;
    this.ready = new Promise((resolve) => {
      this.resolveReady = resolve;
    });
    this.done = new Promise((resolve) => {
      this.resolveDone = resolve;
    });
  }

  /** Current phase. */
  get phase(): TransitionPhase {
    return this.core.phase;
  }

  /** @internal one frame; returns true once done. */
  step(): boolean {
    const phase = this.core.update();
    if (phase !== 'loading' && !this.readySignalled) {
      this.readySignalled = true;
      this.resolveReady();
    }
    if (phase !== 'done') return false;
    const a = this.core.residentAtStart;
    const b = this.budget.liveBytes;
    let incomingBytes = 0;
    for (const texture of this.incoming) incomingBytes += this.residentBytesOf(texture);
    this.resolveDone({
      order: this.order,
      peakBytes: this.budget.peakBytes,
      residentAtStartBytes: a,
      residentAtDoneBytes: b,
      ruleBytes: Math.max(a, b) + Math.floor(this.headroomFraction * this.budget.budgetBytes),
      naivePeakEstimateBytes: a + incomingBytes,
      budgetBytes: this.budget.budgetBytes,
      framesToReady: this.core.framesToReady,
      framesToDone: this.core.framesToDone,
    });
    return true;
  }
}

/** The streamed textures and VT handles of one side. */
export function sceneSide(side: SceneTextures): {
  textures: readonly StreamedTexture[];
  vtHandles: readonly number[];
} {
  if (Array.isArray(side)) return { textures: side, vtHandles: [] };
  const object = side as { textures: readonly StreamedTexture[]; vtHandles?: readonly number[] };
  return { textures: object.textures, vtHandles: object.vtHandles ?? [] };
}
