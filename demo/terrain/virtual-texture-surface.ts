/**
 * Terrain texturing through Tessera: one virtual texture (albedo + normal layers) of the procedural
 * world over the whole terrain, sampled by TSL nodes in the terrain's material. Every run-time
 * setting (budget, feedback scale, uploads per frame, filtering) applies to the running system:
 * no rebuild, the same material.
 *
 * Budget: the system reserves its pool, page tables, feedback and readback in the budget of the
 * demo's one `TesseraRuntime` (its `runtime` option), taking the budget less the prop textures'
 * share (`shareBytes`); the streamed prop textures live in whatever room is left, so one budget
 * accounts for everything. A budget change resizes the pool in place (`setShareBytes`).
 */

import type { TesseraRuntime, TileSource, VirtualTexture } from '@tessera-vt/tessera';
import { type VirtualTextureSampleNode, VirtualTextureSystem, virtualTexture } from '@tessera-vt/tessera';
import {
  NO_REQUEST,
  pageMip,
  pageVt,
  pageX,
  pageY,
  paintFeedbackImage,
  paintResidencyImage,
} from '@tessera-vt/tessera/core';
import type { Camera, Scene } from 'three';
import { normalMap, uv } from 'three/tsl';
import { MeshStandardNodeMaterial, type WebGPURenderer } from 'three/webgpu';
import { DebugImageOverlay } from './debug-image-overlay';
import type { RenderedTerrain } from './rendered-terrain';
import { TeleportLatencyProbe } from './teleport-latency-probe';
import {
  emptySurfaceStats,
  TERRAIN_DEBUG_VIEWS,
  type TerrainDebugView,
  type TerrainSurface,
  type TerrainSurfaceSettings,
  type TerrainSurfaceStats,
} from './terrain-surface';
import { terrainPoolLayers } from './terrain-tile-source';

/** Side of the residency map overlay, in pixels (the whole texture scaled into it). */
const RESIDENCY_MAP_PIXELS = 256;
/** Frames between repaints of the residency map (it costs a pass over the pool per mip). */
const RESIDENCY_REPAINT_FRAMES = 10;

/** The terrain's virtual texture. */
export class VirtualTextureSurface implements TerrainSurface {
  readonly kind = 'virtual-texture' as const;
  /** Every view: mip colours and tile borders in the shader, feedback and residency as overlays. */
  readonly debugViews: readonly TerrainDebugView[] = TERRAIN_DEBUG_VIEWS;
  material!: MeshStandardNodeMaterial;
  /** Errors raised by the system's `error` event, as messages. */
  readonly errors: string[] = [];
  private system!: VirtualTextureSystem;
  private texture!: VirtualTexture;
  /** The pool layers' texel formats, read once per system. */
  private poolFormats: readonly string[] = [];
  private settings: TerrainSurfaceSettings;
  private readonly requested = new Set<number>();
  private visibleRequested = 0;
  private readonly statsView = emptySurfaceStats();
  private albedo!: VirtualTextureSampleNode;
  private readonly shaderViews = { mipColours: false, tileBorders: false };
  private readonly feedbackOverlay = new DebugImageOverlay('feedback buffer', 'left', 240);
  private readonly residencyOverlay = new DebugImageOverlay('residency map', 'right', 256);
  private frame = 0;
  private readonly teleportProbe = new TeleportLatencyProbe();
  /** System frame of the latest teleport (-1: none), in frames. */
  private teleportFrame = -1;

  /**
   * `settings.budgetBytes` is the demo's whole budget (`runtime.budget`'s); the virtual texture gets it
   * less `propShareBytes(budgetBytes)` (room kept for the streamed prop textures).
   */
  constructor(
    private readonly renderer: WebGPURenderer,
    private readonly source: TileSource,
    settings: TerrainSurfaceSettings,
    private readonly runtime: TesseraRuntime,
    private readonly propShareBytes: (budgetBytes: number) => number,
    /** The rendered terrain (decals, trail) when the source is the runtime virtual texture. */
    private readonly rendered: RenderedTerrain | undefined,
    /** Mips added to what the terrain reads and requests (`?lodBias=`). */
    private lodBias = 0,
  ) {
    this.settings = { ...settings };
    this.build();
  }

  /** True once the coarsest mip is resident (every pixel has a fallback). */
  get isReady(): boolean {
    return this.system.isReady;
  }

  update(camera: Camera, scene: Scene): void {
    this.system.update(camera, scene);
    if (this.residencyOverlay.visible && this.frame++ % RESIDENCY_REPAINT_FRAMES === 0) this.paintResidency();
  }

  applySettings(settings: TerrainSurfaceSettings): void {
    const s = this.settings;
    this.settings = { ...settings };
    // Every setting applies to the running system: no rebuild, the same material.
    if (s.filtering !== settings.filtering) this.system.setFiltering(settings.filtering);
    if (s.maxUploadsPerFrame !== settings.maxUploadsPerFrame) {
      this.system.setMaxUploadsPerFrame(settings.maxUploadsPerFrame);
    }
    if (s.feedbackScale !== settings.feedbackScale) this.system.setFeedbackScale(settings.feedbackScale);
    if (s.budgetBytes !== settings.budgetBytes) {
      // A cut: the pool sheds now, then the budget follows (the streamed textures shed within a
      // few frames). A raise: the budget first, so the pool has room to grow into.
      const share = settings.budgetBytes - this.propShareBytes(settings.budgetBytes);
      const budget = this.runtime.budget;
      const raise = settings.budgetBytes > budget.budgetBytes;
      if (raise) budget.setBudget(settings.budgetBytes);
      this.system.setShareBytes(share);
      if (!raise) budget.setBudget(settings.budgetBytes);
    }
  }

  setDebugView(view: TerrainDebugView, enabled: boolean): void {
    if (view === 'feedbackBuffer') this.feedbackOverlay.setVisible(enabled);
    else if (view === 'residencyMap') {
      this.residencyOverlay.setVisible(enabled);
      if (enabled) this.paintResidency();
    } else {
      this.shaderViews[view] = enabled;
      this.material.colorNode = this.albedo.withDebugViews({ ...this.shaderViews });
      this.material.needsUpdate = true;
    }
  }

  setLodBias(mips: number): void {
    this.lodBias = mips;
    this.bindNodes();
  }

  markTeleport(): void {
    this.teleportFrame = this.system.frameNumber;
    this.teleportProbe.start(this.teleportFrame);
  }

  get feedbackCaughtUp(): boolean {
    return this.statsView.lastFeedbackFrame > this.teleportFrame;
  }

  stats(): TerrainSurfaceStats {
    const system = this.system.stats();
    const streaming = system.streaming;
    const out = this.statsView;
    out.poolSlots = system.slotCount;
    out.resident = system.residentPages;
    out.pending = streaming.queued + streaming.loading + streaming.awaitingUpload;
    out.visibleRequested = this.visibleRequested;
    out.visibleSharp = this.countSharp();
    out.mipBias = system.mipBias;
    out.poolEfficiency = system.poolEfficiency;
    out.poolFormats = this.poolFormats;
    out.uploadsLastFrame = system.uploadsLastFrame;
    out.rendering = system.rendering;
    out.readbacks = system.readbacks;
    out.teleportLimit = this.teleportProbe.result;
    out.failedPages = streaming.failed;
    out.retries = streaming.retries;
    const bytes = system.gpuBytes;
    out.bytesByCategory['vt-pool'] = bytes.poolLayers.reduce((a, b) => a + b, 0);
    out.bytesByCategory['page-table'] = bytes.pageTables;
    out.bytesByCategory.feedback = bytes.feedbackTargets;
    out.bytesByCategory.readback = bytes.readbackBuffers;
    return out;
  }

  dispose(): void {
    this.feedbackOverlay.setVisible(false);
    this.residencyOverlay.setVisible(false);
    this.material.dispose();
    this.system.dispose();
  }

  private build(): void {
    const s = this.settings;
    this.system = new VirtualTextureSystem(this.renderer, {
      runtime: this.runtime,
      shareBytes: s.budgetBytes - this.propShareBytes(s.budgetBytes),
      tileSize: this.source.info.tileSize,
      border: this.source.info.border,
      feedbackScale: s.feedbackScale,
      feedbackMode: s.feedbackMode,
      maxUploadsPerFrame: s.maxUploadsPerFrame,
      filtering: s.filtering,
      layers: terrainPoolLayers(this.source, s.compressedPool),
    });
    this.texture = this.system.add(this.source, { name: 'terrain' });
    this.rendered?.bind(this.texture);
    this.poolFormats = this.system.stats().poolFormats;
    this.system.events.on('page-loaded', () =>
      this.teleportProbe.tileUploaded(this.system.frameNumber, this.settings.maxUploadsPerFrame),
    );
    this.system.events.on('error', (event) =>
      this.errors.push(`${event.error.code}: ${event.error.message}`),
    );
    this.system.events.on('feedback', (event) => {
      this.statsView.lastFeedbackFrame = event.frame;
      this.onFeedback(event.ids);
      if (this.teleportProbe.wantsFeedback(event.frame)) {
        this.teleportProbe.feedback(this.system.frameNumber, this.countMissing());
      }
      if (this.feedbackOverlay.visible) {
        this.feedbackOverlay.draw(event.width, event.height, (pixels) =>
          paintFeedbackImage(event.ids, event.width, event.height, pixels),
        );
      }
    });
    // The terrain's uv spans the whole virtual texture in page order; one sampling node shared by
    // both layers, so the feedback pass sees one source.
    const material = new MeshStandardNodeMaterial({ roughness: 0.95 });
    material.name = 'demo:terrain-vt';
    this.material = material;
    this.bindNodes();
    this.requested.clear();
    this.visibleRequested = 0;
    this.teleportFrame = -1; // the new system counts frames from 0
  }

  /** Points the material at the virtual texture with the current LOD bias and debug views. */
  private bindNodes(): void {
    this.albedo = virtualTexture(this.texture, uv(), { uvSpace: 'virtual', lodBias: this.lodBias });
    this.material.colorNode = this.albedo.withDebugViews({ ...this.shaderViews });
    this.material.normalNode = normalMap(this.albedo.layer('normal'));
    this.material.needsUpdate = true;
  }

  /** Paints the residency map overlay from the pool's pages of the terrain texture. */
  private paintResidency(): void {
    const texture = this.texture;
    this.residencyOverlay.draw(RESIDENCY_MAP_PIXELS, RESIDENCY_MAP_PIXELS, (pixels) =>
      paintResidencyImage(
        texture.pageTable.layout,
        texture.id,
        this.system.slotPages,
        RESIDENCY_MAP_PIXELS,
        RESIDENCY_MAP_PIXELS,
        pixels,
      ),
    );
  }

  /** Remembers the distinct pages the latest feedback asked for (to count how many are sharp). */
  private onFeedback(ids: Uint32Array): void {
    if (this.settings.freezeFeedback) return;
    this.requested.clear();
    const layout = this.texture.pageTable.layout;
    for (let i = 0; i < ids.length; i++) {
      const id = ids[i];
      // Only well-formed requests for this texture count, as in the core's analyser (the feedback
      // may hold other VTs' pages).
      if (id === NO_REQUEST || pageVt(id) !== this.texture.id) continue;
      if (!layout.contains(pageMip(id), pageX(id), pageY(id))) continue;
      this.requested.add(id);
    }
    this.visibleRequested = this.requested.size;
  }

  /** Requested pages not resident at their mip (pinned mips always are). */
  private countMissing(): number {
    return this.requested.size - this.countSharp();
  }

  /** Requested pages resident at exactly the requested mip. */
  private countSharp(): number {
    const table = this.texture.pageTable;
    let sharp = 0;
    for (const id of this.requested) if (table.isResident(pageMip(id), pageX(id), pageY(id))) sharp++;
    return sharp;
  }
}
