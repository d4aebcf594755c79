/**
 * Region switching: which region is active, its props shown, and `transition()` that hands the
 * old region's prop textures over to the new one's through Tessera's
 * `TextureStreamingSystem.transition` (load the new core set into free room, then release the old
 * scene progressively), reporting the budget's peak against the naive order's.
 */

import type { StreamedTexture, TextureStreamingSystem } from '@tessera-vt/tessera';
import { TileSourceError } from '@tessera-vt/tessera';
import { Color, type Fog, type Scene } from 'three';
import type { RegionProps } from '../props/region-props';
import { findRegion, type RegionDefinition, type RegionName } from '../regions';
import { fullyResidentBytes } from './fully-resident-bytes';
import type { RegionTextureLoader } from './region-textures';

/** What a transition reports (the automation API's `transition()` result), bytes and frames. */
export interface TransitionResult {
  /** Highest live bytes of the whole budget (virtual texture + streamed) during the transition. */
  peakBytes: number;
  /**
   * Live bytes the naive order would hold at its peak: the new scene fully loaded (every texture
   * at full resolution, all mips, as a plain loader keeps it) before the old scene is released,
   * A + B(full). An estimate from the files' sizes, not a measurement, bytes.
   */
  naivePeakBytes: number;
  /**
   * The library's lower estimate of the naive peak: A + the new scene's bytes as streamed when the
   * old scene was gone (what a naive order stopping at the same mips would hold), bytes.
   */
  naiveStreamedEstimateBytes: number;
  /** Live bytes at the start (old scene resident, A). */
  residentAtStartBytes: number;
  /** Live bytes when the old scene was gone (B so far). */
  residentAtDoneBytes: number;
  /** max(A, B) + 10% of the budget: the bound the peak must respect. */
  ruleBytes: number;
  /** Frames until the new region could be shown, and until the old one was released. */
  framesToReady: number;
  framesToDone: number;
}

/** The naive order's figures of the transition in progress (for the HUD's timeline), bytes. */
export interface TransitionEstimate {
  /** Live bytes when it started (A). */
  residentAtStartBytes: number;
  /** A + the new scene fully resident: see {@link TransitionResult.naivePeakBytes}. */
  naivePeakBytes: number;
}

/**
 * Attempts at loading a region's files (its `.glb` and KTX2 textures) before its transition
 * rejects: each request of an attempt is already retried by the HTTP client, so this covers a
 * file whose requests all failed (a server down for a few seconds). Only retryable failures
 * (`TileSourceError.retryable`) are attempted again; a 404 or a corrupt file rejects at once.
 */
export const REGION_LOAD_ATTEMPTS = 3;

/** Transitions run so far (the automation API's `stats().transitions`). */
export interface TransitionCounters {
  /** Transitions that completed (a transition to the active region counts too). */
  completed: number;
  /** Transitions that rejected (the old region stayed). */
  rejected: number;
  /** Region loads attempted again after a retryable failure. */
  retries: number;
}

/** Owns the active region. */
export class RegionScenes {
  /** Transitions completed, rejected and load attempts retried. */
  readonly counters: TransitionCounters = { completed: 0, rejected: 0, retries: 0 };
  /** The region whose props are visible and textured (null before the first transition). */
  active: RegionDefinition | null = null;
  /** True while a transition runs (the gate does not trigger another). */
  busy = false;
  /** The transition in progress' naive figures, or null. */
  estimate: TransitionEstimate | null = null;
  /** The active region's textures fully resident (every mip at full resolution), bytes. */
  activeFullyResidentBytes = 0;
  private activeTextures: StreamedTexture[] = [];
  private queue: Promise<unknown> = Promise.resolve();

  /**
   * @param waitFrame resolves after the next frame was rendered (the transition advances in the
   *   streaming system's per-frame update, so someone must render frames while it runs).
   */
  constructor(
    private readonly scene: Scene,
    private readonly props: ReadonlyMap<RegionName, RegionProps>,
    private readonly streaming: TextureStreamingSystem,
    private readonly loadTextures: RegionTextureLoader,
    private readonly waitFrame: () => Promise<void>,
  ) {
    for (const p of props.values()) p.group.visible = false;
  }

  /** Switches to region `name`; calls are serialised. Rejects for an unknown name. */
  transition(name: string): Promise<TransitionResult> {
    const next = findRegion(name);
    if (!next) return Promise.reject(new Error(`unknown scene '${name}'`));
    const run = this.queue.then(() => this.run(next));
    this.queue = run.then(
      () => {
        this.counters.completed++;
      },
      () => {
        this.counters.rejected++;
      },
    );
    return run;
  }

  /** The active region's props (for the need proxies), or null. */
  get activeProps(): RegionProps | null {
    return this.active ? this.props.get(this.active.name)! : null;
  }

  private async run(next: RegionDefinition): Promise<TransitionResult> {
    const previous = this.active;
    const budget = this.streaming.budget;
    if (previous === next) {
      const live = budget.liveBytes;
      const rule = live + Math.floor(0.1 * budget.budgetBytes);
      return {
        peakBytes: live,
        naivePeakBytes: live,
        naiveStreamedEstimateBytes: live,
        residentAtStartBytes: live,
        residentAtDoneBytes: live,
        ruleBytes: rule,
        framesToReady: 0,
        framesToDone: 0,
      };
    }
    this.busy = true;
    try {
      const nextProps = this.props.get(next.name)!;
      const incoming = await this.loadWithRetries(nextProps);
      const transition = this.streaming.transition(this.activeTextures, incoming);
      const start = budget.liveBytes;
      let incomingFull = 0;
      for (const texture of incoming) incomingFull += fullyResidentBytes(texture.source);
      this.estimate = { residentAtStartBytes: start, naivePeakBytes: start + incomingFull };
      let ready = false;
      void transition.ready.then(() => {
        ready = true;
      });
      let done: Awaited<typeof transition.done> | null = null;
      void transition.done.then((result) => {
        done = result;
      });
      while (!ready) await this.waitFrame();
      // The new region's core textures render: show it, hide the old (its textures go next).
      nextProps.group.visible = true;
      if (previous) this.props.get(previous.name)!.group.visible = false;
      this.active = next;
      this.activeTextures = incoming;
      this.activeFullyResidentBytes = incomingFull;
      this.applySky(next);
      while (done === null) await this.waitFrame();
      const result = done as Awaited<typeof transition.done>;
      return {
        peakBytes: result.peakBytes,
        naivePeakBytes: result.residentAtStartBytes + incomingFull,
        naiveStreamedEstimateBytes: result.naivePeakEstimateBytes,
        residentAtStartBytes: result.residentAtStartBytes,
        residentAtDoneBytes: result.residentAtDoneBytes,
        ruleBytes: result.ruleBytes,
        framesToReady: result.framesToReady,
        framesToDone: result.framesToDone,
      };
    } finally {
      this.busy = false;
      this.estimate = null;
    }
  }

  /** The new region's textures, its load attempted again (bounded) after a retryable failure. */
  private async loadWithRetries(props: RegionProps): Promise<StreamedTexture[]> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.loadTextures(this.streaming, props);
      } catch (error) {
        const retryable = error instanceof TileSourceError && error.retryable;
        if (!retryable || attempt >= REGION_LOAD_ATTEMPTS) throw error;
        this.counters.retries++;
        await new Promise((resolve) => setTimeout(resolve, 250 * attempt));
      }
    }
  }

  private applySky(region: RegionDefinition): void {
    const colour = new Color(region.sky);
    this.scene.background = colour;
    const fog = this.scene.fog as Fog | null;
    if (fog) fog.color.copy(colour);
  }
}
