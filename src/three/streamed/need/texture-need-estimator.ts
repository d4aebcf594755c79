import type { Camera, Object3D } from 'three';
import type { MipStreamingPlanner } from '../../../core/streaming/planning/mip-streaming-planner';
import { textureSlot } from '../../../core/streaming/texture-registry';
import type { LiveStreamedTextures } from '../live-streamed-textures';
import type { MeshAttachments } from '../sampling/mesh-attachments';
import { ScreenNeedProjector } from './screen-need';

/**
 * The screen need of every live streamed texture: of all meshes attached to it, the one with the
 * most pixels per texture UV unit where it is seen finest decides (see ScreenNeedProjector), and
 * goes to the planner with that mesh's projected size as the screen benefit. Per-slot scratch
 * arrays grow with the registry and are reused (no allocation per refresh in steady state).
 */
export class TextureNeedEstimator {
  private readonly projector = new ScreenNeedProjector();
  /** Most pixels per texture UV unit seen this refresh, by registry slot. */
  private bestRatio = new Float64Array(64);
  /** Projected size of the best mesh, in pixels, by slot. */
  private bestPx = new Float64Array(64);

  /**
   * Project every attached mesh seen by `camera` and set each live texture's need in `planner`
   * (0 px for textures no visible mesh uses). Prunes pairs whose mesh was garbage-collected.
   * @param viewportHeightPx drawing-buffer height, in pixels.
   */
  refresh(
    camera: Camera,
    scene: Object3D,
    viewportHeightPx: number,
    attachments: MeshAttachments,
    table: LiveStreamedTextures,
    planner: MipStreamingPlanner,
    frame: number,
    nowMs: number,
  ): void {
    const slots = table.slotCount;
    if (this.bestRatio.length < slots) {
      const size = Math.max(slots, this.bestRatio.length * 2);
      this.bestRatio = new Float64Array(size);
      this.bestPx = new Float64Array(size);
    }
    this.bestRatio.fill(0);
    this.projector.begin(camera, viewportHeightPx);
    for (let i = attachments.size - 1; i >= 0; i--) {
      const mesh = attachments.meshAt(i);
      if (mesh === undefined) {
        attachments.removeAt(i);
        continue;
      }
      const owner = attachments.ownerAt(i);
      if (!this.projector.measure(mesh, scene, owner.sampling)) continue;
      const px = this.projector.benefitPx;
      const ratio = this.projector.pixelsPerUv;
      if (!(px > 0)) continue;
      const slot = textureSlot(owner.id);
      if (ratio > this.bestRatio[slot]) {
        this.bestRatio[slot] = ratio;
        this.bestPx[slot] = px;
      }
    }
    const live = table.live;
    for (let i = 0; i < live.length; i++) {
      const id = live[i].id;
      const slot = textureSlot(id);
      const seen = this.bestRatio[slot] > 0;
      // The planner asks log2(texels per UV unit x extent / px): an extent of px / ratio UV units
      // gives it the texel density at the nearest point while px stays the benefit.
      const px = seen ? this.bestPx[slot] : 0;
      planner.setScreenNeed(id, px, seen ? px / this.bestRatio[slot] : 1, frame, nowMs);
    }
  }
}
