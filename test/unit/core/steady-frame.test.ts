import { describe, expect, it } from 'vitest';
import { VirtualTextureStreamer } from '../../../src/core/vt/virtual-texture-streamer';
import { createCameraPose } from '../../../src/sim/camera-pose';
import { flushTasks } from '../../../src/sim/flush-tasks';
import { SimulatedTileSource } from '../../../src/sim/simulated-tile-source';
import { TerrainFeedbackGenerator } from '../../../src/sim/terrain-feedback-generator';
import { probeAllocations } from '../support/allocation-probe';

// A steady frame (camera still, everything it needs resident) must allocate nothing: feedback
// analysis, touching resident pages, scheduling and draining run every frame for hours.
describe('a steady streaming frame', () => {
  it('allocates nothing once the view is resident', { timeout: 60_000 }, async () => {
    const pages = 256;
    const source = new SimulatedTileSource({ widthPages: pages, heightPages: pages, latencyFrames: 0 });
    const streamer = new VirtualTextureStreamer({ pool: { slotCount: 4096 }, maxFeedbackPixels: 240 * 135 });
    streamer.registerTexture(source);
    const generator = new TerrainFeedbackGenerator({
      widthPages: pages,
      heightPages: pages,
      worldWidth: pages * 120,
      screenWidth: 1920,
      screenHeight: 1080,
      feedbackWidth: 240,
      feedbackHeight: 135,
    });
    const pose = createCameraPose({ x: pages * 60, y: 400, z: pages * 60, pitch: -0.7, aspect: 16 / 9 });
    const feedback = generator.generate(pose, 0, 0.5, 0.5);
    const upload = () => true;
    const frame = (f: number) => {
      source.advanceTo(f);
      streamer.beginFrame(f);
      streamer.submitFeedback(feedback);
      streamer.update();
      streamer.drainUploads(upload);
    };

    let f = 0;
    for (; f < 400; f++) {
      frame(f);
      await flushTasks();
      const s = streamer.stats();
      if (f > 10 && s.queued === 0 && s.inFlight === 0 && s.pendingUploads === 0) break;
    }
    const settled = streamer.stats();
    expect(settled.queued + settled.inFlight + settled.pendingUploads).toBe(0);
    expect(settled.residency).toBe(1);
    expect(settled.loads).toBeGreaterThan(50);

    await probeAllocations(5_000, () => frame(++f)); // warm the JIT: compiled code lives on the heap too
    const probe = await probeAllocations(8_000, () => frame(++f));
    // 16 bytes per frame would grow the heap by 128 KB (or force a scavenge).
    expect(probe.collections).toBe(0);
    expect(probe.heapGrowthBytes).toBeLessThan(32 * 1024);
    expect(streamer.stats().loads).toBe(settled.loads);
    streamer.dispose();
  });
});
