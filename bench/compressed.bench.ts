import {
  type PoolTexelFormat,
  slotBytesOfFormats,
  type UastcTarget,
} from '../src/core/vt/residency/pool-format';
import { planVirtualTextureBudget } from '../src/core/vt/vt-budget-plan';
import { flyOverPath } from '../src/sim/camera-paths';
import { FrameSimulator } from '../src/sim/frame-simulator';
import { normalToRedAlpha } from '../src/sources/color/normal-channels';
import {
  basisFormatOf,
  transcodedTileBytes,
  transcodeUastcTile,
} from '../src/three/transcode/uastc-transcode';
import { contentByte } from '../test/browser/vt/test-content';
import { loadNodeBasisTranscoder } from '../test/support/node-basis-transcoder';
import { encodeUastcBlocks, encodeUastcKtx2, uastcBlocksOf } from '../test/support/uastc-encoder';
import { withBenchBrowser } from './bench-browser';

/** Port of this benchmark's own Vite server (apart from the test server's and three.bench's). */
const BENCH_PORT = Number(process.env.TESSERA_BENCH_PORT ?? 5187) + 1;

/** Pool slots a virtual-texture share of `shareBytes` holds with `formats` as its layers (1080p-sized feedback). */
function poolSlotsAt(shareBytes: number, formats: readonly PoolTexelFormat[]): number {
  const plan = planVirtualTextureBudget({
    shareBytes,
    stagingBytes: 0,
    capacityBytes: shareBytes,
    tileSize: 128,
    layerCount: formats.length,
    slotBytes: slotBytesOfFormats(
      formats.map((format) => ({ target: 'bc7', format, fellBack: false })),
      128,
    ),
    feedbackWidth: 240,
    feedbackHeight: 135,
    readbackRowAlignment: 256,
    readbacksInFlight: 3,
    pageTableBytes: Math.min(4 << 20, shareBytes / 16),
    minPoolSlots: 21,
    maxTextureSize: 8192,
    maxArrayLayers: 256,
  });
  return plan.poolBytes / plan.slotBytes;
}

/**
 * Mip bias the pool forces on the demo's terrain (1024 x 1024 pages, 4 km, 30 texels per metre;
 * albedo + normal layers) at 1280 x 720, trilinear, in the simulator: three views (a still
 * oblique one from 25 m, a 60 m/s flight at 60 m, a 20 m/s flight at 12 m), the mean bias over
 * frames 60-300, the worst view reported, with the pool an rgba8 pair of layers or BC7 + BC5 in
 * the same share. `vt.pool.mip_bias.<share>mib.<format>` and the slot counts beside them.
 */
async function mipBiasByFormat(): Promise<Record<string, number>> {
  const TERRAIN = { widthPages: 1024, heightPages: 1024 };
  const WORLD = 1024 * 120;
  const perMetre = WORLD / 4096;
  const views = [
    { altitude: 25, pitch: -0.12, metresPerSecond: 0 },
    { altitude: 60, pitch: -0.18, metresPerSecond: 60 },
    { altitude: 12, pitch: -0.1, metresPerSecond: 20 },
  ];
  const formats: Record<string, PoolTexelFormat[]> = {
    rgba8: ['rgba8unorm-srgb', 'rgba8unorm'],
    bc7_bc5: ['bc7-rgba-unorm-srgb', 'bc5-rg-unorm'],
  };
  const out: Record<string, number> = {};
  for (const shareMib of [12, 16, 36]) {
    for (const [name, layers] of Object.entries(formats)) {
      const slots = poolSlotsAt(shareMib << 20, layers);
      let worst = 0;
      for (const view of views) {
        const frames = 300;
        const path = flyOverPath({
          worldWidth: WORLD,
          worldDepth: WORLD,
          seed: 21,
          frames,
          altitude: view.altitude * perMetre,
          pitch: view.pitch,
          speed: Math.max(1e-6, (view.metresPerSecond * perMetre) / 60),
        });
        const sim = new FrameSimulator({
          terrain: TERRAIN,
          path,
          poolSlots: slots,
          screenWidth: 1280,
          screenHeight: 720,
          filtering: 'trilinear',
          applyMipBias: true,
          uploadsPerFrame: 32,
        });
        let sum = 0;
        let samples = 0;
        for (let f = 0; f < frames; f += 10) {
          await sim.run(10);
          if (f >= 60) {
            sum += sim.streamer.stats().mipBias;
            samples++;
          }
        }
        sim.dispose();
        worst = Math.max(worst, sum / samples);
      }
      out[`vt.pool.mip_bias.${shareMib}mib.${name}`] = worst;
      out[`vt.pool.slots.${shareMib}mib.${name}`] = slots;
    }
  }
  return out;
}

/** Pages a pool of each format holds at one budget (64 MiB, 1080p-sized feedback), per MiB of budget. */
function pagesPerMib(): Record<string, number> {
  const formats: Record<string, PoolTexelFormat> = {
    rgba8: 'rgba8unorm-srgb',
    bc7: 'bc7-rgba-unorm-srgb',
    astc: 'astc-4x4-unorm-srgb',
    etc2: 'etc2-rgba8unorm-srgb',
  };
  const budget = 64 << 20;
  const out: Record<string, number> = {};
  for (const [name, format] of Object.entries(formats))
    out[`vt.pool.pages_per_mib.${name}`] = poolSlotsAt(budget, [format]) / (budget / (1 << 20));
  for (const name of ['bc7', 'astc', 'etc2']) {
    out[`vt.pool.pages_ratio.${name}_over_rgba8`] =
      out[`vt.pool.pages_per_mib.${name}`] / out['vt.pool.pages_per_mib.rgba8'];
  }
  return out;
}

/** A 128² tile of the analytic test content (page x, y of mip `mip`), borders included. */
function contentTile(mip: number, x: number, y: number): Uint8Array {
  const rgba = new Uint8Array(128 * 128 * 4);
  for (let j = 0; j < 128; j++) {
    for (let i = 0; i < 128; i++) {
      const o = (j * 128 + i) * 4;
      for (let c = 0; c < 3; c++) rgba[o + c] = contentByte(c, mip, x * 120 + i, y * 120 + j);
      rgba[o + 3] = 255;
    }
  }
  return rgba;
}

/** The slice of the transcoder's KTX2File the baseline uses. */
interface Ktx2FileHandle {
  startTranscoding(): number;
  transcodeImage(
    dst: Uint8Array,
    level: number,
    layer: number,
    face: number,
    format: number,
    alpha: number,
    c0: number,
    c1: number,
  ): number;
  close(): void;
  delete(): void;
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

/**
 * Worker time per 128² tile of each target: the transcode call the worker makes, on the same
 * wasm, over 8 distinct tiles of the analytic content (encoded with Basis's UASTC encoder),
 * medians of 15 rounds; opaque (`alpha: false`) and with alpha. Two-channel targets run on the
 * same tiles as normal maps (red and green as x and y), stored both ways.
 */
async function transcodeTimes(): Promise<Record<string, number>> {
  const basis = await loadNodeBasisTranscoder();
  const files: Uint8Array[] = [];
  for (let t = 0; t < 8; t++)
    files.push(await encodeUastcKtx2(contentTile(t % 3, t, 7 - t), 128, 128, { srgb: true }));
  const tiles = files.map(uastcBlocksOf);
  // The same content as normal maps: x, y in red and green, and as the baker stores them for
  // UASTC, x in red (green, blue) and y in alpha.
  const normalsRedGreen: Uint8Array[] = [];
  const normalsRedAlpha: Uint8Array[] = [];
  for (let t = 0; t < 8; t++) {
    const rgba = contentTile(t % 3, t, 7 - t);
    normalsRedGreen.push(await encodeUastcBlocks(rgba, 128, 128, { srgb: false, normal: true }));
    const redAlpha = normalToRedAlpha(rgba);
    normalsRedAlpha.push(await encodeUastcBlocks(redAlpha, 128, 128, { srgb: false, normal: true }));
  }
  const out: Record<string, number> = {};
  // The baseline: what three's KTX2Loader runs per level (KTX2File.transcodeImage), on the same
  // tiles as one-level files. The machine is shared and noisy: every round times each variant
  // once, interleaved, and the medians over rounds are reported.
  const KTX2File = (basis as unknown as { KTX2File: new (data: Uint8Array) => Ktx2FileHandle }).KTX2File;
  const opened = files.map((file) => {
    const handle = new KTX2File(file);
    handle.startTranscoding();
    return handle;
  });
  const perTile = (run: () => void): number => {
    const start = performance.now();
    run();
    return ((performance.now() - start) * 1000) / tiles.length;
  };
  for (const target of ['bc7', 'astc', 'etc2', 'bc5', 'eac-rg11', 'rgba8'] as UastcTarget[]) {
    const format = basisFormatOf(basis, target);
    const output = new Uint8Array(transcodedTileBytes(target, 128));
    const twoChannel = target === 'bc5' || target === 'eac-rg11';
    // The content is opaque: as a layer with `alpha: false`; `_alpha` is the default `alpha: true`.
    // Two-channel targets: a normal map as the baker stores it (y in alpha: straight from the
    // transcoder); `_red_green` one stored in red and green (decoded, then re-encoded here).
    const opaque = () => {
      for (const tile of twoChannel ? normalsRedAlpha : tiles)
        transcodeUastcTile(basis, format, target, tile, output, 128, twoChannel, twoChannel);
    };
    const redGreen = () => {
      for (const tile of normalsRedGreen) transcodeUastcTile(basis, format, target, tile, output, 128, false);
    };
    const alpha = () => {
      for (const tile of tiles) transcodeUastcTile(basis, format, target, tile, output, 128, true);
    };
    const loader = () => {
      for (const handle of opened) handle.transcodeImage(output, 0, 0, 0, format, 0, -1, -1);
    };
    opaque();
    const rounds = {
      opaque: [] as number[],
      alpha: [] as number[],
      loader: [] as number[],
      rg: [] as number[],
    };
    for (let r = 0; r < 15; r++) {
      rounds.opaque.push(perTile(opaque));
      if (twoChannel) rounds.rg.push(perTile(redGreen));
      else {
        rounds.alpha.push(perTile(alpha));
        rounds.loader.push(perTile(loader));
      }
    }
    out[`transcode.uastc.${target}.us_per_tile`] = median(rounds.opaque);
    if (twoChannel) out[`transcode.uastc.${target}_red_green.us_per_tile`] = median(rounds.rg);
    else {
      out[`transcode.uastc.${target}_alpha.us_per_tile`] = median(rounds.alpha);
      out[`transcode.uastc.${target}.ktx2loader_us_per_tile`] = median(rounds.loader);
    }
  }
  for (const handle of opened) {
    handle.close();
    handle.delete();
  }
  return out;
}

/** Tessera's BC7 upload path over a bare writeTexture loop, in Chromium on WebGPU. */
async function uploadRatio(): Promise<Record<string, number>> {
  return withBenchBrowser(BENCH_PORT, async (browser) => {
    const page = await browser.newPage();
    const failed = new Promise<never>((_, reject) =>
      page.on('pageerror', (error) => reject(new Error(`benchmark page failed: ${error.message}`))),
    );
    await page.goto(`http://localhost:${BENCH_PORT}/bench/three/compressed-upload.html`);
    await Promise.race([
      page.waitForFunction(() => document.title === 'done', null, { timeout: 300_000 }),
      failed,
    ]);
    const result = (await page.evaluate(() => (globalThis as { benchResult?: unknown }).benchResult)) as {
      tesseraTilesPerSecond: number;
      bareTilesPerSecond: number;
      uploadRatio: number;
    };
    return {
      'three.upload_ratio.bc7': result.uploadRatio,
      'three.upload.bc7.tessera_tiles_per_s': result.tesseraTilesPerSecond,
      'three.upload.bc7.bare_tiles_per_s': result.bareTilesPerSecond,
    };
  });
}

/**
 * The block-compressed pool: pages per MiB of budget per pool format, UASTC transcode time per
 * tile per target (worker time), and the BC7 upload path against a bare writeTexture loop.
 */
export default {
  name: 'compressed',
  async run(): Promise<Record<string, number>> {
    return {
      ...pagesPerMib(),
      ...(await mipBiasByFormat()),
      ...(await transcodeTimes()),
      ...(await uploadRatio()),
    };
  },
};
