import { withBenchBrowser } from './bench-browser';

/** What bench/three/frame-ratio.ts leaves in `globalThis.benchResult`. */
interface FrameRatioResult {
  vtMs: number;
  plainMs: number;
  frameRatio: number;
  samplingRatio: number;
  feedbackRatio: number;
  feedbackSkipped: number;
  stillRatio: number;
  stillOverEveryFrame: number;
  stillVtMs: number;
  stillRestedFraction: number;
  stillPassFraction: number;
  feedbackMode: string;
  readbackBytesPerFrame: number;
  analysisMsPerFrame: number;
  tesseraTilesPerSecond: number;
  bareTilesPerSecond: number;
  uploadRatio: number;
}

/** Port of the benchmark's own Vite server (kept apart from the test server's). */
const BENCH_PORT = Number(process.env.TESSERA_BENCH_PORT ?? 5187);

/**
 * three.js binding benchmarks in headless Chromium on WebGPU (SwiftShader on CPU-only machines):
 * frame time of a virtual-texture material over an ordinary texture material (bilinear and
 * trilinear; `_sparse` keys with the page table forced sparse, two dependent fetches), split into
 * `three.sampling_ratio` (the virtual-texture material drawn without `system.update`, over the
 * ordinary texture) and `three.feedback_ratio` (the full frame over that: the separate feedback
 * pass, its readback and the CPU update; `_400_meshes`: the plane cut into 400 meshes, so the
 * second scene render costs 400 more draw calls; `three.feedback_skipped_fraction`: the VT frames
 * whose feedback pass was skipped because every readback was still in flight; `_still` keys,
 * separate pass only: the same scene with a still camera and the default `stillFeedbackInterval`,
 * whose pass rests 3 frames in 4, against the every-frame pass of the other keys, same batches:
 * `three.still_vs_every_frame` is their frame ratio), and
 * Tessera's tile-upload path over a bare `writeTexture` loop. Ratios from one run of interleaved
 * batches (the median of per-pair ratios), since absolute times on SwiftShader say little.
 */
export default {
  name: 'three',
  async run(): Promise<Record<string, number>> {
    return withBenchBrowser(BENCH_PORT, async (browser) => {
      const out: Record<string, number> = {};
      // On WebGPU each configuration with requests written by the main pass (the default) and by
      // the separate pass (`_separate_pass` keys), in the same run; on WebGL2 (`_webgl` keys,
      // always the separate pass) the main configurations.
      const configurations = [
        { filtering: 'bilinear', storage: 'auto', meshes: 1, suffix: '', query: '' },
        { filtering: 'trilinear', storage: 'auto', meshes: 1, suffix: '', query: '' },
        { filtering: 'bilinear', storage: 'sparse', meshes: 1, suffix: '_sparse', query: '' },
        { filtering: 'trilinear', storage: 'sparse', meshes: 1, suffix: '_sparse', query: '' },
        { filtering: 'bilinear', storage: 'auto', meshes: 400, suffix: '_400_meshes', query: '' },
        {
          filtering: 'bilinear',
          storage: 'auto',
          meshes: 400,
          suffix: '_400_meshes_half_plain',
          query: '&plainShare=0.5',
        },
        { filtering: 'bilinear', storage: 'auto', meshes: 4000, suffix: '_4000_meshes', query: '' },
        {
          filtering: 'bilinear',
          storage: 'auto',
          meshes: 1,
          suffix: '_1280x720',
          query: '&width=1280&height=720',
        },
      ] as const;
      const onWebGL = new Set(['', '_400_meshes_half_plain']);
      // TESSERA_THREE_BACKENDS=webgl (or webgpu): only that backend's runs.
      const backends = (process.env.TESSERA_THREE_BACKENDS ?? 'webgpu,webgl').split(',');
      const runs = configurations
        .flatMap((c) => [
          { ...c, feedback: 'main-pass', modeSuffix: '', backend: 'webgpu' },
          { ...c, feedback: 'separate-pass', modeSuffix: '_separate_pass', backend: 'webgpu' },
          ...(onWebGL.has(c.suffix)
            ? [{ ...c, feedback: 'separate-pass', modeSuffix: '_webgl', backend: 'webgl' }]
            : []),
        ])
        .filter((run) => backends.includes(run.backend));
      for (const {
        filtering,
        storage,
        meshes,
        query,
        feedback,
        modeSuffix,
        suffix: configSuffix,
        backend,
      } of runs) {
        const suffix = configSuffix + modeSuffix;
        // A still-camera variant where the separate pass runs and WebGL2 runs too.
        const still = feedback === 'separate-pass' && onWebGL.has(configSuffix);
        const page = await browser.newPage();
        const errors: string[] = [];
        page.on('pageerror', (error) => errors.push(error.message));
        await page.goto(
          `http://localhost:${BENCH_PORT}/bench/three/frame-ratio.html?filtering=${filtering}&storage=${storage}&meshes=${meshes}&batches=${meshes > 1000 ? 8 : 20}&feedback=${feedback}&backend=${backend}${still ? '&still=1' : ''}${query}`,
        );
        await page.waitForFunction(() => document.title === 'done' || document.title === 'error', null, {
          timeout: 300_000,
        });
        if (errors.length > 0) throw new Error(`benchmark page failed: ${errors.join('; ')}`);
        const result = (await page.evaluate(
          () => (globalThis as { benchResult?: unknown }).benchResult,
        )) as FrameRatioResult;
        await page.close();
        out[`three.frame_ratio.${filtering}${suffix}`] = result.frameRatio;
        out[`three.sampling_ratio.${filtering}${suffix}`] = result.samplingRatio;
        out[`three.feedback_ratio.${filtering}${suffix}`] = result.feedbackRatio;
        out[`three.feedback_skipped_fraction.${filtering}${suffix}`] = result.feedbackSkipped;
        out[`three.feedback.readback_bytes.${filtering}${suffix}`] = result.readbackBytesPerFrame;
        out[`three.feedback.cpu_ms.${filtering}${suffix}`] = result.analysisMsPerFrame;
        out[`three.frame_ms.vt_${filtering}${suffix}`] = result.vtMs;
        out[`three.frame_ms.plain_${filtering}${suffix}_run`] = result.plainMs;
        if (still) {
          const stillSuffix = `${configSuffix}_still${modeSuffix}`;
          out[`three.frame_ratio.${filtering}${stillSuffix}`] = result.stillRatio;
          out[`three.still_vs_every_frame.${filtering}${configSuffix}${modeSuffix}`] =
            result.stillOverEveryFrame;
          out[`three.frame_ms.vt_${filtering}${stillSuffix}`] = result.stillVtMs;
          out[`three.feedback.still_pass_fraction.${filtering}${stillSuffix}`] = result.stillPassFraction;
        }
        if (
          filtering === 'bilinear' &&
          storage === 'auto' &&
          meshes === 1 &&
          query === '' &&
          modeSuffix === ''
        ) {
          out['three.upload_ratio'] = result.uploadRatio;
          out['three.upload.tessera_tiles_per_s'] = result.tesseraTilesPerSecond;
          out['three.upload.bare_tiles_per_s'] = result.bareTilesPerSecond;
        }
      }
      return out;
    });
  },
};
