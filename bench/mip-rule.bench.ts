import type { FilterMode } from '../src/core/vt/feedback/mip-rule';
import { poolEfficiency } from '../src/core/vt/residency/pool-efficiency';
import { flyOverPath } from '../src/sim/camera-paths';
import { FrameSimulator } from '../src/sim/frame-simulator';

/**
 * What each filtering mode's mip rule asks of the pool (issue 12, section 1): the demo's terrain
 * (1024 x 1024 pages, 4 km, 30 texels per metre) seen from 25 m at 1280 x 720 with the demo's
 * 128 MiB pool (783 slots) and no mip bias, on still views at three pitches. Per mode and pitch:
 * distinct pages requested per feedback frame, and the pool efficiency (pages used during the last
 * jitter cycle / resident pages) once the view has streamed in. Before the shared mip rule every
 * mode requested the anisotropic footprint: the `anisotropic` figures are what bilinear and
 * trilinear pools held then.
 */
const TERRAIN = { widthPages: 1024, heightPages: 1024 };
const WORLD = 1024 * 120;
const TEXELS_PER_METRE = WORLD / 4096;
const MODES: readonly FilterMode[] = ['bilinear', 'trilinear', 'anisotropic'];
const PITCHES = [-0.5, -0.25, -0.12];
const FRAMES = 240;

export default {
  name: 'mip-rule',
  async run(): Promise<Record<string, number>> {
    const out: Record<string, number> = {};
    for (const pitch of PITCHES) {
      for (const filtering of MODES) {
        const path = flyOverPath({
          worldWidth: WORLD,
          worldDepth: WORLD,
          seed: 21,
          frames: FRAMES,
          altitude: 25 * TEXELS_PER_METRE,
          pitch,
          speed: 1e-6,
        });
        const sim = new FrameSimulator({
          terrain: TERRAIN,
          path,
          poolSlots: 783,
          screenWidth: 1280,
          screenHeight: 720,
          filtering,
          applyMipBias: false,
          uploadsPerFrame: 64,
        });
        let requested = 0;
        let samples = 0;
        for (let f = 0; f < FRAMES; f += 8) {
          await sim.run(8);
          if (f >= FRAMES / 2) {
            requested += sim.streamer.analyzer.stats.directPages;
            samples++;
          }
        }
        const key = `vt.${filtering}.pitch${pitch}`;
        out[`${key}.pages_per_frame`] = Math.round(requested / samples);
        out[`${key}.pool_efficiency`] = poolEfficiency(sim.streamer.pool, sim.streamer.stats().frame);
        sim.dispose();
      }
    }
    return out;
  },
};
