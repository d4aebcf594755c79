/**
 * Side by side, same run, same scenes (issue #45): three's plain `GLTFLoader` + `KTX2Loader` on the
 * original PNG/JPEG glTF (`gltf_three.*`), Tessera on the `tessera gltf` output
 * (`gltf_baked.*`), and needle's `@needle-tools/gltf-progressive` 3.3.5 on needle's own pipeline
 * output (`gltf_peer.*`), and gltf-progressive again on that output rewritten into the LOD layout
 * its extension's schema documents (`gltf_peer_lods.*`: four texture LODs with sizes, made by
 * prepare.ts, not by needle); how each side is prepared: bench/gltf-peer/prepare.ts. Per tool, scene
 * (`showcase`, `large`) and backend of three's WebGPURenderer (`webgpu`, `webgl`), headless
 * Chromium at 1280x720 (`<tool>.<scene>.<backend>.*`):
 * - `first_frame_bytes`, `first_frame_requests`: what was served before the first frame on which
 *   every mesh showed its textures (the glTF, buffers and images; decoders not counted), and
 *   `first_textured_frame` (frames after `loadAsync` resolved); `first_frame_ratio` and
 *   `settled_ratio`: those bytes over the original files' (three's download);
 * - `settled_bytes`, `settled_requests`, `settled_frame`: until the run settled (Tessera:
 *   `whenSettled()`; gltf-progressive: the last frame that swapped a texture or mesh or had a
 *   request in flight, followed by 60 quiet frames; three: everything is there on frame 1);
 * - `gpu_bytes`: Tessera's budget count; the others' (and Tessera's `tracked_gpu_bytes`) by the
 *   independent GPU tracker (test/support/gpu-tracker.js);
 * - `psnr_overall`, `psnr_min_mesh`, `psnr.<mesh>` (showcase): the settled frame against three's
 *   frame of the original files, per mesh by a mask render (dB; 99: identical);
 * - `budget_quarter.*` (Tessera): the scene under 1/4 of its unconstrained run's GPU bytes:
 *   `gpu_bytes`, `over_budget_frames`, `settled_frame`, `psnr_overall`, `settled_bytes`;
 *   gltf-progressive has no budget: its `gpu_bytes` are what it takes.
 * Prepared files are cached in `.tmp/gltf-peer/` (the large scene's bake takes minutes), needle's
 * pipeline in `.tmp/needle-pipeline/` and its runtime in `.tmp/needle-runtime/`, installed from
 * the npm registry at the first run.
 */

import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { Page } from 'playwright-core';
import { withBenchBrowser } from './bench-browser';
import type { PeerRun } from './gltf-peer/page';
import { PEER_SCENES, type PeerScene, type PreparedScene, preparedScene } from './gltf-peer/prepare';

const WIDTH = 1280;
const HEIGHT = 720;
const PORT = 5188;
const NEEDLE_RUNTIME_VERSION = '3.3.5';
const NEEDLE_RUNTIME = new URL('../.tmp/needle-runtime/', import.meta.url).pathname;
const THREE_LIBS = new URL('../node_modules/three/examples/jsm/libs/', import.meta.url).pathname;
const TOOLS = ['original', 'tessera', 'needle', 'needle-lods'] as const;
type Tool = (typeof TOOLS)[number];
const BACKENDS = (['webgpu', 'webgl'] as const).filter(
  (backend) => process.env.GLTF_PEER_BACKENDS?.split(',').includes(backend) ?? true,
);

/** One answered request of a scene file: which tool's, bytes, and the page's phase and frame then. */
interface Served {
  tool: Tool;
  file: string;
  bytes: number;
  phase: string;
  afterFrame: number;
}

/** Installs gltf-progressive into `.tmp/needle-runtime/` once, without three (the page's is used). */
function installNeedleRuntime(): void {
  if (existsSync(`${NEEDLE_RUNTIME}node_modules/@needle-tools/gltf-progressive/lib/index.js`)) return;
  mkdirSync(NEEDLE_RUNTIME, { recursive: true });
  writeFileSync(
    `${NEEDLE_RUNTIME}package.json`,
    JSON.stringify({
      name: 'needle-runtime-bench',
      private: true,
      type: 'module',
      dependencies: { '@needle-tools/gltf-progressive': NEEDLE_RUNTIME_VERSION },
    }),
  );
  const install = spawnSync(
    'npm',
    ['install', '--no-audit', '--no-fund', '--omit=peer', '--ignore-scripts'],
    {
      cwd: NEEDLE_RUNTIME,
      encoding: 'utf8',
    },
  );
  if (install.status !== 0) throw new Error(`npm install of gltf-progressive failed: ${install.stderr}`);
}

/**
 * Serves each tool's files at /gltf-peer/<tool>/<name>, answering Range (206) like a static host,
 * and gltf-progressive's CDN decoder URLs from three's own copies (nothing outside is reachable).
 */
async function serve(page: Page, scene: PreparedScene): Promise<Served[]> {
  const served: Served[] = [];
  let phase = 'load';
  let frame = 0;
  await page.exposeFunction('markFrame', (p: string, f: number) => {
    phase = p;
    frame = f;
  });
  await page.route(/\/gltf-peer\/(original|tessera|needle|needle-lods)\/[^/]+$/, async (route) => {
    const [tool, name] = new URL(route.request().url()).pathname.split('/').slice(-2) as [Tool, string];
    const file = scene[tool][name];
    if (file === undefined) return route.fulfill({ status: 404 });
    const match = /^bytes=(\d+)-(\d+)$/.exec(route.request().headers().range ?? '');
    if (match === null) {
      served.push({ tool, file: name, bytes: file.length, phase, afterFrame: frame });
      return route.fulfill({ status: 200, body: Buffer.from(file) });
    }
    const start = Number(match[1]);
    const end = Math.min(Number(match[2]), file.length - 1);
    served.push({ tool, file: name, bytes: end - start + 1, phase, afterFrame: frame });
    return route.fulfill({
      status: 206,
      body: Buffer.from(file.subarray(start, end + 1)),
      headers: {
        'content-range': `bytes ${start}-${end}/${file.length}`,
        'access-control-expose-headers': 'content-range',
      },
    });
  });
  // gltf-progressive probes its Draco CDN when imported and loads decoders from CDNs by default;
  // the page points it at three's copies, and this answers the probe.
  await page.route(/^https:\/\/(www\.gstatic\.com|cdn\.needle\.tools)\//, (route) => {
    const name = new URL(route.request().url()).pathname.split('/').pop() as string;
    const path = name.startsWith('draco') ? `${THREE_LIBS}draco/gltf/${name}` : `${THREE_LIBS}basis/${name}`;
    return existsSync(path) ? route.fulfill({ path }) : route.fulfill({ status: 404 });
  });
  return served;
}

interface ThreeRun {
  gpuBytes: number;
  names: string[];
  maskCounts: number[];
  gpuBytesAfterDispose: number;
}

async function runScene(
  page: Page,
  name: PeerScene,
  backend: 'webgpu' | 'webgl',
  prepared: PreparedScene,
  out: Record<string, number>,
): Promise<void> {
  const served = await serve(page, prepared);
  const query = new URLSearchParams({
    backend,
    w: String(WIDTH),
    h: String(HEIGHT),
    scene: name,
    ...prepared.entries,
  });
  await page.goto(`http://localhost:${PORT}/bench/gltf-peer/page.html?${query}`);
  await page.waitForFunction(() => document.title === 'ready', null, { timeout: 120_000 });
  type PeerPage = {
    three(phase: string): Promise<ThreeRun>;
    tessera(budget: number, phase: string): Promise<PeerRun>;
    needle(phase: string, tool: string): Promise<PeerRun>;
  };
  const call = <T>(fn: keyof PeerPage, ...args: (string | number)[]) =>
    page.evaluate(
      ([f, a]) =>
        (
          (globalThis as never as { peerPage: Record<string, (...x: unknown[]) => Promise<unknown>> })
            .peerPage[f as string] as (...x: unknown[]) => Promise<unknown>
        )(...(a as unknown[])),
      [fn, args] as const,
    ) as Promise<T>;
  const three = await call<ThreeRun>('three', 'three');
  const tessera = await call<PeerRun>('tessera', 1 << 30, 'tessera');
  const quarter = await call<PeerRun>('tessera', Math.floor(tessera.gpuBytes / 4), 'quarter');
  const needle = await call<PeerRun>('needle', 'needle', 'needle');
  const needleLods = await call<PeerRun>('needle', 'needle-lods', 'needle-lods');
  console.error(`[gltf-peer] ${name} ${backend}: three mask pixels per mesh ${three.maskCounts.join(' ')}`);

  const of = (phase: string, keep: (x: Served) => boolean = () => true) => {
    const list = served.filter((x) => x.phase === phase && keep(x));
    return { bytes: list.reduce((sum, x) => sum + x.bytes, 0), requests: list.length };
  };
  const figures = (key: string, phase: string, run: PeerRun | null) => {
    const k = `${key}.${name}.${backend}`;
    const all = of(phase);
    if (run === null) {
      // three shows nothing textured before everything is downloaded and decoded: frame 1.
      out[`${k}.first_frame_bytes`] = all.bytes;
      out[`${k}.first_frame_requests`] = all.requests;
      out[`${k}.first_textured_frame`] = 1;
      out[`${k}.settled_bytes`] = all.bytes;
      out[`${k}.settled_requests`] = all.requests;
      out[`${k}.settled_frame`] = 1;
      out[`${k}.gpu_bytes`] = three.gpuBytes;
      return;
    }
    const first = of(phase, (x) => x.afterFrame < run.firstTexturedFrame);
    out[`${k}.first_frame_bytes`] = first.bytes;
    out[`${k}.first_frame_requests`] = first.requests;
    out[`${k}.first_textured_frame`] = run.firstTexturedFrame;
    out[`${k}.settled_bytes`] = all.bytes;
    out[`${k}.settled_requests`] = all.requests;
    out[`${k}.settled_frame`] = run.settledAt;
    out[`${k}.gpu_bytes`] = run.gpuBytes;
    out[`${k}.tracked_gpu_bytes`] = run.trackedGpuBytes;
    out[`${k}.psnr_overall`] = run.overall;
    out[`${k}.psnr_min_mesh`] = Math.min(...Object.values(run.perMesh).filter((x) => !Number.isNaN(x)));
    if (name === 'showcase')
      for (const [mesh, value] of Object.entries(run.perMesh)) out[`${k}.psnr.${mesh}`] = value;
  };
  // Tessera first: a row of the doc's side-by-side table takes its target from its first key.
  figures('gltf_baked', 'tessera', tessera);
  figures('gltf_peer', 'needle', needle);
  figures('gltf_peer_lods', 'needle-lods', needleLods);
  figures('gltf_three', 'three', null);
  const originalBytes = of('three').bytes;
  for (const key of ['gltf_baked', 'gltf_peer', 'gltf_peer_lods']) {
    const k = `${key}.${name}.${backend}`;
    out[`${k}.first_frame_ratio`] = out[`${k}.first_frame_bytes`] / originalBytes;
    out[`${k}.settled_ratio`] = out[`${k}.settled_bytes`] / originalBytes;
  }
  const q = `gltf_baked.${name}.${backend}.budget_quarter`;
  out[`${q}.budget_bytes`] = Math.floor(tessera.gpuBytes / 4);
  out[`${q}.gpu_bytes`] = quarter.gpuBytes;
  out[`${q}.over_budget_frames`] = quarter.overBudgetFrames;
  out[`${q}.settled_frame`] = quarter.settledAt;
  out[`${q}.psnr_overall`] = quarter.overall;
  out[`${q}.settled_bytes`] = of('quarter').bytes;
}

export default {
  name: 'gltf-peer',
  async run(): Promise<Record<string, number>> {
    installNeedleRuntime();
    // GLTF_PEER_SCENES / GLTF_PEER_BACKENDS (comma-separated) run a part, when checking a change.
    const only = process.env.GLTF_PEER_SCENES?.split(',') ?? PEER_SCENES;
    const scenes: [PeerScene, PreparedScene][] = [];
    for (const name of PEER_SCENES) if (only.includes(name)) scenes.push([name, await preparedScene(name)]);
    return withBenchBrowser(PORT, async (browser) => {
      const out: Record<string, number> = {};
      for (const [name, prepared] of scenes) {
        for (const backend of BACKENDS) {
          const page = await browser.newPage();
          await page.addInitScript({
            path: fileURLToPath(new URL('../test/support/gpu-tracker.js', import.meta.url)),
          });
          const errors: string[] = [];
          page.on('pageerror', (error) => errors.push(error.stack ?? error.message));
          page.on('console', (message) => {
            if (message.type() === 'error') errors.push(message.text());
          });
          try {
            await runScene(page, name, backend, prepared, out);
          } finally {
            await page.close();
          }
          if (errors.length > 0)
            throw new Error(`benchmark page failed (${name}, ${backend}): ${errors.join('; ')}`);
        }
      }
      return out;
    });
  },
};
