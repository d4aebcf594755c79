/**
 * The demo app: builds the world (terrain, regions, gates), runs frames, and answers the automation
 * API. main.ts only wires it to the page.
 */

import { HttpClient, TesseraRuntime, type TextureBudget, TextureStreamingSystem } from '@tessera-vt/tessera';
import { Color, DirectionalLight, Fog, HemisphereLight, PerspectiveCamera, Scene, Vector3 } from 'three';
import type { WebGPURenderer } from 'three/webgpu';
import type { DemoInFlight, DemoStats, SettleResult } from './automation';
import type { CameraPose } from './camera/camera-pose';
import { FlyCamera } from './camera/fly-camera';
import {
  maxTextureDimensionOf,
  type PlainThreeEstimate,
  plainThreeEstimate,
} from './comparison/plain-three-estimate';
import { SharpnessInset } from './comparison/sharpness-inset';
import { FrameClock, STEPPED_FRAME_SECONDS } from './frame-clock';
import { GpuTimings } from './gpu-timings';
import type { DemoParams } from './params';
import { RegionProps } from './props/region-props';
import { REGION_NAMES, REGIONS, type RegionName, START_POINT } from './regions';
import type { ActiveBackend } from './renderer';
import { RegionGates } from './scenes/region-gates';
import { RegionScenes, type TransitionResult } from './scenes/region-scenes';
import { createRegionGltfLoader } from './scenes/region-textures';
import { createTerrainSurface } from './terrain/create-terrain-surface';
import { TerrainQuadtree } from './terrain/terrain-quadtree';
import {
  TERRAIN_DEBUG_VIEWS,
  type TerrainDebugView,
  type TerrainSurface,
  type TerrainSurfaceSettings,
} from './terrain/terrain-surface';
import { openTerrainTileSource, type TerrainTileSource } from './terrain/terrain-tile-source';
import { defaultTour, Tour } from './tour';
import { ProceduralHeightField } from './world/height-field';

/** A camera move longer than this in one frame is a jump, not a walk through a gate, metres. */
const MAX_WALK_STEP = 50;

/** Prop textures refresh their need proxies every this many frames (a scan over the instances). */
const NEED_PROXY_FRAMES = 8;

/**
 * Share of the budget kept for the streamed prop textures (the virtual texture gets the rest),
 * bytes: a quarter, 4..24 MiB. One region's textures fully resident would take 58.7 MiB (rgba8; see
 * props/prop-textures.ts): the streaming system keeps only the mips the screen needs within it.
 */
export function propShareBytes(budgetBytes: number): number {
  const MIB = 1024 * 1024;
  return Math.round(Math.min(24 * MIB, Math.max(4 * MIB, budgetBytes / 4)));
}

/** Where the demo starts: above the valley village, looking over it. */
export const START_POSE: CameraPose = { ...START_POINT, height: 60, yaw: -0.6, pitch: -0.18 };

/** Everything the demo runs. */
export class DemoApp {
  readonly scene = new Scene();
  readonly clock = new FrameClock();
  readonly camera: FlyCamera;
  readonly terrain: TerrainQuadtree;
  readonly regions: RegionScenes;
  readonly gates: RegionGates;
  readonly tour: Tour;
  readonly errors: string[] = [];
  /** Current run-time settings (the HUD edits them through {@link DemoApp.applySettings}). */
  readonly settings: TerrainSurfaceSettings;
  /** Called after every frame (the HUD hooks in here). */
  onFrame: ((app: DemoApp, dt: number) => void) | null = null;
  /** CPU milliseconds of {@link frame}, averaged over about 10 frames. */
  private cpuMsAverage = 0;
  /** Wall-clock milliseconds between live frames, averaged over about 10 frames. */
  private intervalMsAverage = 0;
  /** True while the renderer's animation loop draws frames (else frames are stepped on demand). */
  looping = false;
  /** Which debug views are on (the HUD's checkboxes show this; change it through {@link setDebugView}). */
  readonly debugViews = Object.fromEntries(TERRAIN_DEBUG_VIEWS.map((v) => [v, false])) as Record<
    TerrainDebugView,
    boolean
  >;
  /** Comparison mode: the HUD shows Tessera beside plain three.js (`?compare=1`, the HUD, the tour). */
  compare: boolean;
  /**
   * The close-up pair of comparison mode (Tessera's terrain beside the stand-in texture plain
   * three.js would use); null on the `?vt=0` stand-in terrain, where both would be the same.
   */
  readonly sharpnessInset: SharpnessInset | null;
  /** Edge of the device's largest 2D texture, texels (the plain three.js terrain). */
  readonly maxTextureDimension: number;
  /** GPU milliseconds per frame and of Tessera's passes, where timestamp queries exist. */
  readonly gpuTimings: GpuTimings;
  /** Streamed prop textures under {@link budget}. */
  readonly streaming: TextureStreamingSystem;
  /** The one budget for the virtual texture's reservations and the streamed textures ({@link runtime}'s). */
  readonly budget: TextureBudget;
  private readonly previousEye = new Vector3();
  private readonly props = new Map<RegionName, RegionProps>();
  private sceneQueue: Promise<unknown> = Promise.resolve();

  private constructor(
    readonly renderer: WebGPURenderer,
    readonly backend: ActiveBackend,
    readonly params: DemoParams,
    readonly surface: TerrainSurface,
    heights: ProceduralHeightField,
    settings: TerrainSurfaceSettings,
    /** The one runtime (budget, network client, workers) of the virtual texture and the streamed textures. */
    readonly runtime: TesseraRuntime,
    /** Where the terrain's tiles come from. */
    readonly tiles: TerrainTileSource,
  ) {
    const canvas = renderer.domElement;
    this.budget = runtime.budget;
    this.settings = settings;
    this.gpuTimings = new GpuTimings(renderer);
    this.compare = params.compare;
    this.maxTextureDimension = maxTextureDimensionOf(renderer);
    this.camera = new FlyCamera(heights, canvas.clientWidth / Math.max(1, canvas.clientHeight), canvas);
    this.scene.fog = new Fog(0x9cc7e8, 900, 5000);
    this.scene.background = new Color(0x9cc7e8);
    const sun = new DirectionalLight(0xfff1d6, 2.6);
    sun.position.set(-0.5, 0.8, 0.3);
    this.scene.add(sun, new HemisphereLight(0xbfd8ff, 0x5a4a36, 1.1));
    this.terrain = new TerrainQuadtree(heights, surface.material);
    this.scene.add(this.terrain.group);
    for (const region of REGIONS) {
      const props = new RegionProps(region, heights, params.seed);
      this.props.set(region.name, props);
      this.scene.add(props.group);
    }
    this.streaming = new TextureStreamingSystem(renderer, { runtime });
    this.streaming.events.on('error', (event) => {
      // A glTF texture that cannot be made at all (texture null) rejects its region's transition
      // instead (region-textures.ts); a chain that fails later is reported here.
      if (event.texture === null) return;
      this.reportError(new Error(`${event.error.code}: ${event.texture.name}: ${event.error.message}`));
    });
    this.regions = new RegionScenes(
      this.scene,
      this.props,
      this.streaming,
      createRegionGltfLoader(this.streaming),
      () => this.waitFrame(),
    );
    this.gates = new RegionGates(REGIONS, heights);
    this.scene.add(this.gates.group);
    this.tour = new Tour(
      defaultTour(this.gates),
      this.camera,
      (name) => this.changeRegion(name),
      (on) => {
        this.compare = on;
      },
    );
    this.sharpnessInset =
      surface.kind === 'virtual-texture'
        ? new SharpnessInset(
            renderer,
            runtime.budget,
            tiles.world,
            this.terrain.group,
            backend === 'webgl',
            (error) => this.reportError(error),
            tiles.rendered?.source ?? null,
            this.maxTextureDimension,
          )
        : null;
    this.camera.teleport(START_POSE);
    this.previousEye.copy(this.camera.camera.position);
  }

  /** Builds the world for `params` on `renderer` and loads the first region. */
  static async create(
    renderer: WebGPURenderer,
    backend: ActiveBackend,
    params: DemoParams,
  ): Promise<DemoApp> {
    // Let three allocate its own frame targets first, so a GPU-memory baseline taken at the probe
    // below holds everything the renderer needs and nothing Tessera allocates.
    renderer.render(new Scene(), new PerspectiveCamera());
    (globalThis as { demoProbe?: (phase: string) => void }).demoProbe?.('before-tessera');
    const tiles = await openTerrainTileSource(params.source, params.seed);
    const heights = new ProceduralHeightField(tiles.world);
    const settings: TerrainSurfaceSettings = {
      budgetBytes: params.budgetBytes,
      feedbackScale: 8,
      maxUploadsPerFrame: 16,
      filtering: 'trilinear',
      freezeFeedback: false,
      compressedPool: params.compressedPool,
      feedbackMode: params.feedbackMode,
    };
    const runtime = new TesseraRuntime({
      budgetBytes: params.budgetBytes,
      http: new HttpClient({ rangeCacheBytes: params.rangeCacheBytes }),
    });
    const surface = createTerrainSurface(
      renderer,
      tiles,
      settings,
      runtime,
      propShareBytes,
      params.virtualTexture,
      params.lodBias,
    );
    const app = new DemoApp(renderer, backend, params, surface, heights, settings, runtime, tiles);
    await app.transition('valley');
    await app.warmUp();
    return app;
  }

  /** Renders until the terrain's coarsest mip is resident, so the first frame shown is textured. */
  async warmUp(maxFrames = 240): Promise<void> {
    for (let i = 0; i < maxFrames && !this.surface.isReady; i++) {
      this.frame(0);
      await this.yieldToBrowser();
    }
  }

  /** Scene names, the automation API's `scenes`. */
  get sceneNames(): string[] {
    return [...REGION_NAMES];
  }

  /** Renders one frame advancing time by `dt` seconds. */
  frame(dt: number): void {
    const start = performance.now();
    try {
      this.tour.update(dt);
      this.camera.update(dt);
      const eye = this.camera.camera.position;
      if (eye.distanceTo(this.previousEye) < MAX_WALK_STEP && !this.regions.busy) {
        const entered = this.gates.crossed(this.previousEye, eye);
        if (entered && entered !== this.regions.active?.name) this.changeRegion(entered);
      }
      this.previousEye.copy(eye);
      // The tour paints a trail under the camera into the runtime virtual texture (invalidate).
      if (this.tour.playing) this.tiles.rendered?.paintTrail(eye.x, eye.z);
      this.terrain.update(eye);
      if (this.clock.frame % NEED_PROXY_FRAMES === 0) this.regions.activeProps?.updateNeedProxies(eye);
      this.streaming.update(this.camera.camera, this.scene);
      this.gpuTimings.beginTessera();
      this.surface.update(this.camera.camera, this.scene);
      this.gpuTimings.endTessera();
      this.renderer.render(this.scene, this.camera.camera);
      this.sharpnessInset?.update(this.compare, this.camera.camera, this.scene);
      this.gpuTimings.update();
    } catch (error) {
      this.reportError(error);
    }
    // Averages over about the last 10 frames (weight 0.1 per frame).
    this.cpuMsAverage += (performance.now() - start - this.cpuMsAverage) * 0.1;
    const interval = this.clock.intervalMs;
    if (interval > 0) this.intervalMsAverage += (interval - this.intervalMsAverage) * 0.1;
    this.clock.tick();
    this.onFrame?.(this, dt);
  }

  /** Renders `n` frames: waits for the live loop to draw them, or steps them when no loop runs. */
  async renderFrames(n: number): Promise<void> {
    if (this.looping) return this.clock.until(this.clock.frame + n);
    for (let i = 0; i < n; i++) {
      this.frame(STEPPED_FRAME_SECONDS);
      await this.yieldToBrowser();
    }
  }

  /** Renders until nothing visible is pending (terrain chunks and virtual-texture pages). */
  async settle(maxFrames = 600): Promise<SettleResult> {
    for (let frames = 1; frames <= maxFrames; frames++) {
      await this.renderFrames(1);
      if (this.isSettled()) return { frames, settled: true };
    }
    return { frames: maxFrames, settled: false };
  }

  /** Switches region (serialised with other scene changes). */
  transition(name: string): Promise<TransitionResult> {
    const run = this.sceneQueue.then(() => this.regions.transition(name));
    this.sceneQueue = run.catch(() => undefined);
    return run;
  }

  /** {@link DemoApp.transition} for triggers with nobody to hand a failure to (keys, gates, tour). */
  changeRegion(name: string): void {
    this.transition(name).catch((error) => this.reportError(error));
  }

  /**
   * Changes run-time settings (budget, feedback scale, uploads per frame, filtering, freeze), all on
   * the running systems: a new budget goes to the shared {@link budget} (a cut is shed within a few
   * frames) and resizes the virtual texture's pool to its new share.
   */
  applySettings(changes: Partial<TerrainSurfaceSettings>): void {
    Object.assign(this.settings, changes);
    try {
      this.surface.applySettings(this.settings);
      if (this.budget.budgetBytes !== this.settings.budgetBytes)
        this.budget.setBudget(this.settings.budgetBytes);
    } catch (error) {
      this.reportError(error);
    }
  }

  /**
   * Turns a terrain debug view on or off and records it in {@link debugViews}.
   * @throws Error for a view the terrain does not offer (the `?vt=0` stand-in offers none).
   */
  setDebugView(view: TerrainDebugView, enabled: boolean): void {
    if (!this.surface.debugViews.includes(view)) throw new Error(`debug view ${view} not offered here`);
    this.surface.setDebugView(view, enabled);
    this.debugViews[view] = enabled;
  }

  /** Moves the camera. */
  teleport(pose: CameraPose): void {
    this.tour.stop();
    this.camera.teleport(pose);
    this.surface.markTeleport();
  }

  /** The automation API's `stats()` (allocates: for tools and tests, not per frame). */
  stats(): DemoStats {
    const vt = this.surface.stats();
    const budget = this.budget.stats();
    const byCategory: Record<string, number> = { ...budget.byCategory };
    // The stand-in terrain texture is outside Tessera's budget; show it beside it.
    if (this.surface.kind === 'stand-in') byCategory.other += vt.bytesByCategory.other ?? 0;
    const byTag: Record<string, number> = {};
    for (const [tag, bytes] of Object.entries(budget.byTag)) if (tag !== '' && bytes > 0) byTag[tag] = bytes;
    const streaming = this.streaming.stats();
    return {
      frame: this.clock.frame,
      backend: this.backend,
      budgetBytes: budget.budgetBytes,
      usedBytes: budget.liveBytes,
      peakBytes: budget.peakBytes,
      byCategory,
      byTag,
      vt: {
        poolSlots: vt.poolSlots,
        resident: vt.resident,
        pending: vt.pending,
        visibleRequested: vt.visibleRequested,
        visibleSharp: vt.visibleSharp,
        mipBias: vt.mipBias,
        poolEfficiency: vt.poolEfficiency,
        poolFormats: [...vt.poolFormats],
        lastFeedbackFrame: vt.lastFeedbackFrame,
        teleportLimit: vt.teleportLimit,
        readbacks: { ...vt.readbacks },
        rendering: { ...vt.rendering },
        failedPages: vt.failedPages,
        retries: vt.retries,
      },
      streamed: {
        count: streaming.textures,
        residentBytes: budget.byCategory.streamed,
        loadsInFlight: streaming.streaming.loading,
        failedLevels: streaming.streaming.failedTotal,
        retries: streaming.retries,
      },
      transitions: { ...this.regions.counters },
      scene: this.regions.active?.name ?? null,
      gpu: { ...this.gpuTimings.stats },
      cpu: {
        frameMs: this.cpuMsAverage,
        frameIntervalMs: this.intervalMsAverage,
        framesPerSecond: this.intervalMsAverage > 0 ? 1000 / this.intervalMsAverage : null,
      },
      inFlight: this.inFlight(),
      settled: this.isSettled(),
      comparison: {
        compare: this.compare,
        tesseraBytes: budget.liveBytes,
        plainThree: this.plainThree(),
        sharpness: this.sharpnessInset ? { ...this.sharpnessInset.figures } : null,
      },
      implementation: {
        terrain: this.surface.kind,
        terrainSource: this.tiles.kind,
        budget: 'texture-budget',
        virtualTextureBudget: 'shared',
      },
      errors: [...this.errors, ...this.surface.errors],
    };
  }

  /** What the same scene would need with plain three.js textures (see comparison/plain-three-estimate.ts). */
  plainThree(): PlainThreeEstimate {
    return plainThreeEstimate(
      this.maxTextureDimension,
      this.tiles.source.info.layers.length,
      this.regions.activeFullyResidentBytes,
    );
  }

  /** Records an error for `stats().errors` and the console. */
  reportError(error: unknown): void {
    const message = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
    this.errors.push(message);
    console.error('demo:', error);
  }

  /** Resolves after the next frame: the live loop's, or one stepped now when no loop runs. */
  private async waitFrame(): Promise<void> {
    if (this.looping) return this.clock.until(this.clock.frame + 1);
    this.frame(STEPPED_FRAME_SECONDS);
    await this.yieldToBrowser();
  }

  /**
   * What is still on its way to the screen. The HUD shows it, and {@link isSettled} requires all of
   * it to be 0: one rule for both.
   */
  inFlight(): DemoInFlight {
    const vt = this.surface.stats();
    return {
      pages: vt.pending,
      renders: vt.rendering.refreshQueued,
      levels: this.streaming.stats().streaming.loading,
      chunks: this.terrain.pendingBuilds,
      regionChange: this.regions.busy,
    };
  }

  /** Nothing in flight ({@link inFlight}), the feedback caught up with the view, and every page it asks for sharp. */
  isSettled(): boolean {
    const f = this.inFlight();
    if (f.pages + f.renders + f.levels + f.chunks > 0 || f.regionChange) return false;
    // Requests from before the latest teleport say nothing about the new view.
    if (!this.surface.feedbackCaughtUp) return false;
    const vt = this.surface.stats();
    return vt.visibleSharp >= vt.visibleRequested;
  }

  private async yieldToBrowser(): Promise<void> {
    // Let loads, readbacks and GPU work progress between stepped frames, as a real frame would.
    // Chromium signals WebGL2 fences (the feedback readback's) only across animation frames:
    // without one between stepped frames the feedback fell ~30 frames behind.
    const device = (this.renderer.backend as { device?: GPUDevice }).device;
    if (device) await device.queue.onSubmittedWorkDone();
    else await new Promise((resolve) => requestAnimationFrame(resolve));
    await new Promise((resolve) => setTimeout(resolve, 0));
  }
}
