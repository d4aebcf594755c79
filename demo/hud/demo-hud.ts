/**
 * The HUD: stats-gl's frame graphs, a budget bar, and a lil-gui panel with live readouts, settings,
 * debug views and scene controls. Loaded only with `?hud=1` (the default).
 */

import GUI from 'lil-gui';
import Stats from 'stats-gl';
import type { DemoApp } from '../app';
import { REGION_NAMES } from '../regions';
import {
  TERRAIN_DEBUG_VIEWS,
  type TerrainDebugView,
  type TerrainFiltering,
} from '../terrain/terrain-surface';
import { BudgetBar } from './budget-bar';
import { ComparisonPanel } from './comparison-panel';
import { MemoryTimeline } from './memory-timeline';

/**
 * Keeps the debug overlays clear of the HUD: the residency map left of the lil-gui panel, the
 * feedback buffer above stats-gl's graphs (their own inline style pins them to the bottom corners).
 */
const OVERLAY_PLACEMENT = `
canvas[data-debug-view="residency map"] { right: 262px !important; }
canvas[data-debug-view="feedback buffer"] { bottom: 96px !important; }
`;

const MIB = 1024 * 1024;
/** HUD text refreshes every this many frames (DOM writes are not free). */
const REFRESH_FRAMES = 10;

const DEBUG_VIEW_LABELS: Record<TerrainDebugView, string> = {
  mipColours: 'mip colouring',
  tileBorders: 'tile borders',
  feedbackBuffer: 'feedback buffer',
  residencyMap: 'residency map',
};

/** The HUD of one {@link DemoApp}. */
export class DemoHud {
  private readonly readouts = {
    backend: '',
    terrain: '',
    scene: '',
    fps: '',
    intervalMs: '',
    cpuMs: '',
    gpuMs: '',
    gpuFeedbackMs: '',
    usedMiB: '',
    poolOccupancy: '',
    mipBias: 0,
    inFlight: '',
    settled: '',
    uploadsPerFrame: 0,
    chunks: 0,
    faults: '',
  };
  /** The Scene folder's values; `region` follows the active region, however it changed. */
  private readonly sceneValues = { region: REGION_NAMES[0] as string, tour: () => {} };

  private constructor(
    private readonly gui: GUI,
    private readonly stats: Stats,
    private readonly bar: BudgetBar,
    private readonly timeline: MemoryTimeline,
    private readonly comparison: ComparisonPanel,
  ) {}

  /** Builds the HUD for `app` and attaches it to the page. */
  static async create(app: DemoApp): Promise<DemoHud> {
    const stats = new Stats({ trackGPU: false, horizontal: true });
    stats.dom.style.cssText = 'position:fixed;left:8px;bottom:28px;z-index:10';
    document.body.appendChild(stats.dom);
    await stats.init(app.renderer);
    const bar = new BudgetBar();
    document.body.appendChild(bar.element);
    const timeline = new MemoryTimeline();
    document.body.appendChild(timeline.canvas);
    const style = document.createElement('style');
    style.textContent = OVERLAY_PLACEMENT;
    document.head.appendChild(style);
    const comparison = new ComparisonPanel();
    comparison.visible = app.compare;
    document.body.appendChild(comparison.element);
    const gui = new GUI({ title: 'Tessera demo' });
    const hud = new DemoHud(gui, stats, bar, timeline, comparison);
    hud.build(app);
    return hud;
  }

  /** Called after every frame. */
  update(app: DemoApp, dt: number): void {
    this.stats.update();
    this.timeline.update(dt, app.budget, app.regions.estimate);
    // The dropdown follows transitions made by keys, gates, the tour or `demo.transition()`.
    const active = app.regions.active?.name;
    if (active !== undefined && !app.regions.busy) this.sceneValues.region = active;
    if (app.clock.frame % REFRESH_FRAMES !== 0) return;
    const s = app.stats();
    const vt = app.surface.stats();
    const r = this.readouts;
    r.scene = s.scene ?? '-';
    r.fps = s.cpu.framesPerSecond === null ? 'n/a (no live frames)' : s.cpu.framesPerSecond.toFixed(1);
    r.intervalMs = s.cpu.frameIntervalMs > 0 ? s.cpu.frameIntervalMs.toFixed(1) : 'n/a (no live frames)';
    r.cpuMs = s.cpu.frameMs.toFixed(1);
    const gpu = s.gpu;
    const noGpu = gpu.available ? 'waiting for queries' : 'n/a (no timestamp queries)';
    r.gpuMs = gpu.frameMs === null ? noGpu : gpu.frameMs.toFixed(2);
    r.gpuFeedbackMs = gpu.tesseraMs === null ? noGpu : gpu.tesseraMs.toFixed(2);
    r.usedMiB = `${(s.usedBytes / MIB).toFixed(1)} / ${(s.budgetBytes / MIB).toFixed(0)}`;
    r.poolOccupancy =
      s.vt.poolSlots > 0
        ? `${s.vt.resident} / ${s.vt.poolSlots} (${Math.round((100 * s.vt.resident) / s.vt.poolSlots)}%)`
        : 'n/a (stand-in)';
    r.mipBias = Math.round(s.vt.mipBias * 100) / 100;
    const f = s.inFlight;
    r.inFlight = `${f.pages} pages, ${f.renders} renders, ${f.levels} levels, ${f.chunks} chunks${f.regionChange ? ', region' : ''}`;
    r.settled = s.settled ? 'yes' : 'no';
    r.uploadsPerFrame = vt.uploadsLastFrame;
    r.chunks = app.terrain.visibleChunks;
    r.faults =
      `${s.vt.failedPages} pages, ${s.streamed.failedLevels} levels, ` +
      `${s.transitions.rejected} regions failed; ${s.vt.retries + s.streamed.retries} retries`;
    this.bar.update(s.budgetBytes, s.byCategory, s.byTag);
    this.comparison.visible = app.compare;
    if (app.compare)
      this.comparison.update(s.usedBytes, s.budgetBytes, s.comparison.plainThree, s.comparison.sharpness);
  }

  private build(app: DemoApp): void {
    const r = this.readouts;
    r.backend = app.backend === 'webgpu' ? 'WebGPU' : 'WebGL2';
    r.terrain = app.surface.kind;
    const live = this.gui.addFolder('Live');
    for (const [key, label] of [
      ['backend', 'backend'],
      ['terrain', 'terrain texture'],
      ['scene', 'region'],
      ['fps', 'frames / s (shown)'],
      ['intervalMs', 'ms between frames (wall clock)'],
      ['cpuMs', 'CPU ms / frame (main thread)'],
      ['gpuMs', 'GPU ms / frame (timestamps)'],
      ['gpuFeedbackMs', 'GPU ms, feedback pass'],
      ['usedMiB', 'used / budget (MiB)'],
      ['poolOccupancy', 'pool slots'],
      ['mipBias', 'mip bias'],
      ['inFlight', 'in flight'],
      ['settled', 'settled (nothing in flight)'],
      ['uploadsPerFrame', 'uploads / frame'],
      ['chunks', 'terrain chunks'],
      ['faults', 'network faults'],
    ] as const) {
      live.add(r, key).name(label).listen().disable();
    }

    const settings = this.gui.addFolder('Settings');
    const values = {
      budgetMiB: app.settings.budgetBytes / MIB,
      feedbackScale: app.settings.feedbackScale,
      maxUploadsPerFrame: app.settings.maxUploadsPerFrame,
      filtering: app.settings.filtering as TerrainFiltering,
      freezeFeedback: app.settings.freezeFeedback,
    };
    const virtual = app.surface.kind === 'virtual-texture';
    settings
      .add(values, 'budgetMiB', 16, 1024, 16)
      .name('budget (MiB)')
      .onFinishChange((v: number) => app.applySettings({ budgetBytes: v * MIB }));
    const vtOnly = [
      settings
        .add(values, 'feedbackScale', [2, 4, 8, 16])
        .name('feedback scale (1/n)')
        .onChange((v: number) => app.applySettings({ feedbackScale: v })),
      settings
        .add(values, 'maxUploadsPerFrame', 1, 64, 1)
        .name('uploads / frame')
        .onFinishChange((v: number) => app.applySettings({ maxUploadsPerFrame: v })),
      settings
        .add(values, 'filtering', ['bilinear', 'trilinear', 'anisotropic'])
        .name('filtering')
        .onChange((v: TerrainFiltering) => app.applySettings({ filtering: v })),
      settings
        .add(values, 'freezeFeedback')
        .name('freeze feedback')
        .onChange((v: boolean) => app.applySettings({ freezeFeedback: v })),
    ];
    if (!virtual) for (const c of vtOnly) c.disable();

    const debug = this.gui.addFolder('Debug views');
    for (const view of TERRAIN_DEBUG_VIEWS) {
      const supported = app.surface.debugViews.includes(view);
      // Bound to the app's state and listening, so a view set through `demo.setDebugView` shows.
      const controller = debug
        .add(app.debugViews, view)
        .name(supported ? DEBUG_VIEW_LABELS[view] : `${DEBUG_VIEW_LABELS[view]} (n/a)`)
        .listen()
        .onChange((on: boolean) => app.setDebugView(view, on));
      if (!supported) controller.disable();
    }

    const scene = this.gui.addFolder('Scene');
    const sceneValues = this.sceneValues;
    sceneValues.region = app.regions.active?.name ?? REGION_NAMES[0];
    sceneValues.tour = () => (app.tour.playing ? app.tour.stop() : app.tour.start());
    scene
      .add(sceneValues, 'region', [...REGION_NAMES])
      .name('region (1/2/3)')
      .listen()
      .onChange((name: string) => app.changeRegion(name));
    scene.add(sceneValues, 'tour').name('play / stop tour (T)');
    scene.add(app, 'compare').name('compare with plain three.js').listen();
  }
}
