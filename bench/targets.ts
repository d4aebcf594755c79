/**
 * What `docs/benchmarks.md` says about each benchmark besides its figures: which figure keys it
 * writes, what it measures, and the targets the issues and the README set for its figures.
 * `bench/write-benchmarks-doc.ts` reads these tables; the figures themselves come only from
 * `npm run bench -- --json`.
 */

/** One benchmark's section in `docs/benchmarks.md`. */
export interface BenchmarkDescription {
  /** Title of the section, after the benchmark's name. */
  title: string;
  /**
   * Patterns of the figure keys the benchmark writes (`*` matches any run of characters, dots
   * included). A key goes to the benchmark whose matching pattern has the most literal characters.
   */
  keys: readonly string[];
  /**
   * What is measured and how (Markdown, printed above the table). Without it the section quotes
   * the doc comment that opens the benchmark's module, if there is one.
   */
  about?: string;
  /** Markdown bullets printed below the table. */
  notes?: readonly string[];
  /** Runs in headless Chromium: the section names Chromium's version. */
  browser?: boolean;
  /**
   * Figures split into columns by one dot-separated segment of the key (for example the backend):
   * `at` is the segment's index, `names` maps its values to column headers, in column order.
   */
  columns?: { at: number; names: Readonly<Record<string, string>> };
}

/** A target for the figures whose key matches `key` (`*` as in `BenchmarkDescription.keys`). */
export interface FigureTarget {
  key: string;
  /** As a reader checks it, with units: `>= 40 dB`, `<= 1.1x`. */
  target: string;
  /** Where the target was set (an issue number, the README). */
  from: string;
}

/** What the imagery section says below its table (the accounting of issue 44 item 4). */
const IMAGERY_NOTES: readonly string[] = [
  'Where the extra requests came from (issue 44 item 4), counted in one run of this bench at the ' +
    'old design (pages of 256 with a border of 4, 248-texel payloads, borders always read from the ' +
    'neighbouring tiles; commit 3a4ba7e with this instrumentation, WebGPU, 960x540): Tessera 247 ' +
    'requests = 142 `view` + 101 `ring` + 4 `finer` (the pinned z1 pages, fetched at step 0), 0 ' +
    '`coarser`, 0 `refetch`; the baseline 146, all `view` (= `view_tiles`, the floor). The whole ' +
    'excess (1.69x requests, 1.64x bytes) was the ring: a 248-texel page straddles up to four ' +
    'tiles, the pages covering a view reach up to a page past its edge and their borders into the ' +
    "next tiles. Trilinear's coarser mip cost nothing (its pages are the previous step's view), the " +
    'tile cache fetched nothing twice, and nothing is prefetched. Pages aligned to the tiles with ' +
    'borders read from all eight neighbours read more (326 requests).',
  'The fix, in the product: pages of 264 with a border of 4 (`tileSize` may now be any multiple ' +
    'of 4) hold one tile each, and a border reads a neighbouring tile only when it is already ' +
    "loaded or loading, else repeats the page's edge until that tile arrives, when the page is " +
    'written again (`page-refreshed`; `TileSource.watchPages`). Now 150 requests = 130 `view` + 20 ' +
    '`finer` (the pinned z1 and z2 pages fetched at step 0, which steps 1 and 2 then show) and no ' +
    'ring: 1.03x requests and 1.01x bytes at 960x540 (at both budgets, on both backends, with and ' +
    'without 80 ms of latency) and 1.00x at 1920x1080, where a view holds enough tiles that the ' +
    'pinned pages are its own, and where Tessera is sharp in as many frames as the baseline (9; 10 ' +
    'against 9 with 80 ms). The price is uploads, not requests: pages written again when a ' +
    'neighbour arrives after them (14 of 164 uploads at 64 MiB, 378 of 793 at 1920x1080 and ' +
    '56 MiB). The seam test (`imagery-seams.spec.ts`) passes unchanged: page edges as exact as the ' +
    'rest once settled.',
  'Frames to sharp are the feedback latency: `feedback_frames_median` is 4, the frames between ' +
    "the camera move and the analysis of the new view's feedback (main-pass feedback read back " +
    'through a ring of 3, on SwiftShader), and the first page is mapped one frame later ' +
    '(`first_page_frames_median`); the baseline asks for its tiles in the frame the camera moves. ' +
    'Loads now start as the feedback is analysed rather than at the next `update()`, and refreshes ' +
    'start at once; requesting children ahead would cost requests the baseline does not make. ' +
    'Reaching 1.0x at 960x540, where the baseline is sharp in 4 frames, needs the feedback read ' +
    'back within about a frame.',
  "At about the baseline's GPU bytes (`tessera_small`: 63 slots of 264² at 24 MiB on WebGPU, 21 " +
    "of them pinned) the mip bias rose to about 0.7 on the zoom path (the previous step's pages " +
    'still count in the working set over the 16 jitter frames), so pages were evicted and composed ' +
    'again from the tile cache (about 90 refreshes and reloads, no extra requests) and the view ' +
    'sharpened later than at 64 MiB. At 26 MiB (72 slots, GPU peak 19.8 MiB, 1.08x the ' +
    "baseline's; one more WebGPU run) the bias stayed at 0, requests and bytes were the same, and " +
    'sharp still took 7 frames (1.75x) with 74 pages written again: a small budget keeps an eighth ' +
    'of itself for staging (about 11 tiles of 264²), so loads go in waves and more pages are ' +
    'composed before their neighbours start, then refreshed.',
  'Two runs: the 960x540 keys without a latency suffix (both backends) come from a run alone on ' +
    'the machine at 4ad711c; the `_80ms`, `_1080p` and `_1080p_80ms` keys (WebGPU) from a run at ' +
    'a17c41f that shared the 2-core machine with other work (load average 15-20), whose `frame_ms` ' +
    'and `*_ms` figures and ratios are noise; request, byte and page counts are not, and frame ' +
    'counts only somewhat (they depend on how fast tiles decode between frames). Frame times are ' +
    'counted in animation frames here, so they come in steps of 16.7 ms: 66.7 against 50 ms is ' +
    'one more vsync interval per frame.',
  'One virtual texture now holds z12 with 264-texel pages (4096 pages of 256 a side); the path ' +
    'still stops at z11 so that its figures compare with the earlier ones.',
  'The burst figures (`burst_*`) come from a run with `IMAGERY_BURST` on; this run left it off.',
];

/**
 * Targets set by the issues and the README, most specific first (the first pattern that matches
 * a key gives its target).
 */
export const TARGETS: readonly FigureTarget[] = [
  { key: 'imagery.globe_z18.*.gpu_peak_bytes', target: '<= 100663296 (96 MiB)', from: 'issue 44' },
  { key: 'imagery.globe_z18.*.over_budget_frames', target: '0', from: 'issue 44' },
  { key: 'feedback.analyze.240x135.median_ms', target: '<= 0.05 ms', from: 'issue 3' },
  { key: 'pagetable.update32.median_ms', target: '<= 0.02 ms', from: 'issue 3' },
  { key: 'pagetable.update32.dirty_bytes', target: 'grows with the changes, not the table', from: 'issue 3' },
  { key: 'cache.*.ratio', target: '<= 1.15', from: 'issue 3' },
  { key: 'sim.teleport.ratio', target: '<= 1.2', from: 'issue 3' },
  {
    key: 'budget.transition.peak_bytes',
    target: '<= `rule_bytes` (max(before, after) + 10% of the budget)',
    from: 'issue 6',
  },
  { key: 'vt.page_table_bytes.4096p', target: '<= 8 MiB', from: 'issue 17' },
  { key: 'imagery.tessera_small.fetched_vs_baseline*', target: '<= 1.1x', from: 'issue 44' },
  { key: 'imagery.tessera_small.requests_vs_baseline*', target: '<= 1.1x', from: 'issue 44' },
  { key: 'imagery.tessera_small.sharp_frames_median_vs_baseline*', target: '<= 1.0x', from: 'issue 44' },
  { key: 'imagery.tessera_small.frame_ms_median_vs_baseline*', target: '<= 1.1x', from: 'issue 44' },
  { key: 'three.frame_ratio.bilinear', target: '<= 1.03', from: 'issue 41' },
  { key: 'three.frame_ratio.trilinear', target: '<= 1.10', from: 'issue 41' },
  { key: 'three.frame_ratio.trilinear_sparse', target: '<= 1.12', from: 'issue 41' },
  { key: 'three.frame_ratio.bilinear_400_meshes', target: '<= 1.05', from: 'issue 41' },
  { key: 'three.frame_ratio.bilinear_4000_meshes', target: '<= 1.05', from: 'issue 41' },
  { key: 'three.frame_ratio.bilinear_400_meshes_half_plain_webgl', target: '<= 1.15', from: 'issue 41' },
  { key: 'bake.parallel_speedup*', target: '>= 1.7', from: 'issue 17' },
  { key: 'vt.*.pool_efficiency', target: '>= 0.8', from: 'issue 12' },
  { key: 'demo.pool_efficiency.*', target: '>= 0.8', from: 'issue 12' },
  { key: 'transcode.uastc.*.us_per_tile', target: '<= 400 µs', from: 'issue 13' },
  { key: 'gltf.first_frame_bytes_per_texture_max', target: '<= 64 KiB', from: 'issue 15' },
  { key: 'gltf.mip2_download_ratio', target: '<= 0.125 (1/8)', from: 'issue 15' },
  { key: 'gltf.mip2_vram_ratio', target: '<= 0.125 (1/8)', from: 'issue 15' },
  { key: 'gltf.transition.peak_over_bound', target: '<= 1', from: 'issue 15' },
  { key: 'gltf_baked.showcase.*.first_frame_ratio', target: '<= 0.05', from: 'issue 45' },
  { key: 'gltf_baked.showcase.*.settled_ratio', target: "<= 0.4 (of three's)", from: 'issue 45' },
  { key: 'gltf_baked.showcase.*.budget_quarter.psnr_overall', target: '—', from: 'measured' },
  { key: 'gltf_baked.showcase.*.psnr_overall', target: '>= 45 dB; >= gltf-progressive', from: 'issue 45' },
  { key: 'gltf_baked.showcase.*.psnr_min_mesh', target: '>= 40 dB', from: 'issue 45' },
  { key: 'gltf_baked.showcase.*.psnr.*', target: '>= 40 dB', from: 'issue 45' },
  { key: 'gltf_baked.showcase.*.first_textured_frame', target: '<= 4', from: 'issue 45' },
  { key: 'gltf_baked.*.first_frame_bytes', target: '< gltf-progressive', from: 'issue 45' },
  { key: 'gltf_baked.*.budget_quarter.over_budget_frames', target: '0', from: 'issue 45' },
  { key: 'gltf_showcase.*.psnr_overall', target: '>= 40 dB', from: 'issue 31' },
  { key: 'gltf_showcase.*.psnr_min_mesh', target: '>= 35 dB', from: 'issue 31' },
  { key: 'gltf_showcase.*.psnr.*', target: '>= 35 dB', from: 'issue 31' },
  { key: 'gltf_showcase.*.first_textured_frame', target: '<= 4', from: 'issue 31' },
  { key: 'gltf_showcase.*.budget_*.settled_frame', target: '>= 0 (settles)', from: 'issue 31' },
  { key: 'gltf_showcase.*.budget_*.bytes_ratio', target: '<= 1.1x', from: 'issue 31' },
  { key: 'gltf_showcase.*.budget_*.over_budget_frames', target: '0', from: 'issue 31' },
  {
    key: 'soak.*.tessera.tessera_gpu_kib_per_1000_frames',
    target: '0 (no growth after warm-up)',
    from: 'issue 35',
  },
  {
    key: 'soak.*.tessera.gpu_objects_per_1000_frames',
    target: '~0 (no growth after warm-up)',
    from: 'issue 35',
  },
  {
    key: 'soak.*.tessera.heap_kib_per_1000_frames',
    target: '~0 (within noise, as `plain`)',
    from: 'issue 35',
  },
  { key: 'soak.*.*_repeat_delta', target: '~0 (flat once the path repeats)', from: 'issue 35' },
];

/** The sections of `docs/benchmarks.md`, by benchmark name (`name` of its `*.bench.ts`). */
export const BENCHMARKS: Readonly<Record<string, BenchmarkDescription>> = {
  'globe-z18': {
    title: 'One globe from orbit to street level (z18), under 96 MiB',
    keys: ['imagery.globe_z18.*'],
    browser: true,
    columns: { at: 2, names: { webgpu: 'WebGPU', webgl: 'WebGL2' } },
    about:
      '`ImageryGlobe` over the deterministic tile server (test/support/imagery/globe-tiles.ts: zooms ' +
      '0-18, each tile drawn from its z/x/y: grid lines, labels, seeded noise) in a ' +
      '`VirtualTextureSystem` of 96 MiB with pages of 264 (one 256-texel tile each), 640x360, on both ' +
      "backends; the browser test's page " +
      '(test/browser/sources/pages/imagery-globe.ts) flies its stops: the whole Earth, zoom 18 over ' +
      "Paris, 260 km up beside the region's centre where its edge crosses the view, a jump to Sydney " +
      'at zoom 18. Per stop: `frames` from arriving until settled with no region moving (3 frames in ' +
      "a row), `gpu_peak_bytes` (the system's own exact count during the stop), `psnr` of the settled " +
      "frame against plain three.js drawing the server's tiles at the stop's zooms; for the flight, " +
      '`over_budget_frames`, `region_moves`, `requests`.',
  },
  'bake-parallel': {
    title: 'Baking on worker threads',
    keys: ['bake.parallel*'],
  },
  budget: {
    title: 'A scene transition under one budget, and the stale sweep',
    keys: ['budget.*'],
    about:
      'A demo-like scene switch simulated in Node (`FakeBackend`, loads completing after 2 frames): a ' +
      '128 MiB budget, three regions of 40 streamed textures (256..2048 texels, rgba8 and BC7, full ' +
      'chains, 10 core each). Region 0 streams until settled, then `SceneTransition` moves to region 1 ' +
      'in the `load-while-release` order and, for comparison, the `naive` one (load everything, then ' +
      'release). `rule_bytes` is max(resident before, resident after) + 10% of the budget; ' +
      '`frames_to_ready` counts frames until the destination is ready. `budget.sweep.ms`: median time ' +
      'of one `StaleSweep` pass over 10,000 managed textures, mostly not yet stale.',
  },
  compressed: {
    title: 'Block-compressed pools and UASTC transcoding',
    keys: ['vt.pool.*', 'transcode.*', 'three.upload.bc7.*', 'three.upload_ratio.bc7'],
  },
  core: {
    title: 'Feedback analysis and page-table updates',
    keys: ['feedback.*', 'pagetable.*'],
    about:
      'Node, no GPU. `feedback.analyze.240x135.*`: `FeedbackAnalyzer.analyze` on a 240x135 feedback ' +
      'buffer (1/8 of 1080p) of a fly-over: a camera 300 texels above a 1024x1024-page ground texture, ' +
      'pitched down 25 degrees, mips from the screen-space footprint of a pixel as the GPU pass ' +
      'computes them, sky requesting nothing; median of 200 repetitions of 10 calls. ' +
      '`pagetable.update32.*`: 32 map / unmap operations on a `PageTable` of that texture with its ' +
      'pinned levels resident (pages of mips 0..2 around the camera), median time and the dirty bytes ' +
      'they leave to upload.',
  },
  'demo-bias': {
    title: "The demo's pool and mip bias per pool format",
    keys: ['demo.pool.*'],
    browser: true,
  },
  'demo-efficiency': {
    title: "Pool efficiency on the demo's views",
    keys: ['demo.pool_efficiency.*', 'demo.mip_bias.*', 'demo.resident_pages.*', 'demo.settle_frames.*'],
    browser: true,
  },
  gltf: {
    title: 'KTX2 glTF textures streamed against KTX2Loader',
    keys: ['gltf.*'],
    browser: true,
  },
  'gltf-peer': {
    title: "glTF side by side: Tessera, needle's gltf-progressive and three's GLTFLoader",
    keys: ['gltf_baked.*', 'gltf_peer.*', 'gltf_peer_lods.*', 'gltf_three.*'],
    browser: true,
    columns: {
      at: 0,
      names: {
        gltf_baked: 'Tessera',
        gltf_peer: 'gltf-progressive',
        gltf_peer_lods: 'gltf-progressive, 4 LODs (layout made here)',
        gltf_three: 'three GLTFLoader',
      },
    },
    about:
      "Two scenes, each prepared by each tool's own pipeline (`bench/gltf-peer/prepare.ts`, cached in " +
      "`.tmp/gltf-peer/`), drawn in one page per backend by three's `WebGPURenderer` at 1280x720 in " +
      'headless Chromium (SwiftShader), rows `<scene>.<backend>.<figure>`:\n\n' +
      '- `showcase`: the showcase scene (`test/support/gltf-showcase-scene.ts`, `images: png-jpeg`): six ' +
      '2048² photograph-like textures as people ship them (floor, poster, sphere normal map and a ' +
      '1024² sign as PNG, sphere colour and instanced crates as JPEG quality 90; 24.8 MB), a 40 m ' +
      'floor with uv repeated 10 times, a poster read through uv set 1 and `KHR_texture_transform`; ' +
      'camera 1.7 m above the floor;\n' +
      '- `large`: 48 photograph-like 2048² textures (24 PNG, 24 JPEG quality 90; 805 MB as rgba8) on ' +
      'an 8 x 6 wall of unit quads seen obliquely, the nearest visible 2.8 m away, the farthest 7 m; the two columns on the left (12 quads) out of view.\n\n' +
      '**Tessera**: `bakeGltfFile` (`tessera gltf`), default options: every texture UASTC + ' +
      'Zstandard (colour included; ETC1S not used), one `.ktx2` per texture beside a `.glb`, ' +
      'loaded by `registerGltfTextureStreaming(loader, streaming).load(url)` (1 GiB budget), settled ' +
      'by `whenSettled()`. **gltf-progressive**: `@needle-tools/gltf-progressive` 3.3.5 as its README ' +
      "shows (`useNeedleProgressive(loader, renderer)`, decoders pointed at three's copies) on the " +
      "output of needle's offline pipeline `@needle-tools/gltf-build-pipeline` 1.4.11 " +
      '(`make-progressive.mjs` then `pack-gltf.mjs`, what its `index.mjs` runs): each texture ' +
      'becomes a 128 px preview in the glTF plus one full-resolution LOD `.glb`, meshes over 32 ' +
      'vertices get mesh LODs, geometry is Draco-compressed; `toktx` is not available here, so ' +
      'textures stay PNG/JPEG (as on any machine without KTX-Software). The pipeline requires ' +
      'sharp ^0.32.6, whose install script downloads libvips from github.com (`getaddrinfo ' +
      'ENOTFOUND github.com` here); it is installed with sharp overridden to 0.35.5 (binaries ' +
      'from npm), the only change. Its runtime reads `renderer.renderLists` (a WebGLRenderer ' +
      "member): the page gives it WebGPURenderer's own render list. Settled: 60 frames with no " +
      'request in flight and nothing swapped. **gltf-progressive, 4 LODs**: the same runtime on the ' +
      "pipeline's output rewritten by `prepare.ts` (not by needle) into the layout the " +
      '`NEEDLE_progressive` schema documents (several LODs, each with its size), which pipeline 1.4.11 does not ' +
      "write: each texture's LODs at 1, 1/2, 1/4 and 1/8 of its edge with `width` and `height` " +
      '(lanczos3, same image type), so it can choose a level by screen size. **three**: `GLTFLoader` + `KTX2Loader` on the original ' +
      'files, the reference of every PSNR (per mesh by a mask render; 99 dB: identical).\n\n' +
      'Bytes are counted where served (scene files only, decoders not): `first_frame_*` before the ' +
      'first frame on which every mesh showed textures, `*_ratio` over the original files. ' +
      "`gpu_bytes`: Tessera's budget count, the others' by the independent GPU tracker. " +
      '`budget_quarter.*`: Tessera under 1/4 of its unconstrained `gpu_bytes`; gltf-progressive has ' +
      'no budget (its `gpu_bytes` are what it takes). Targets apply to the Tessera column.',
    notes: [
      "gltf-progressive's poster (showcase) is wrong once its full-resolution LOD arrives: the poster reads uv " +
        "set 1 through `KHR_texture_transform`, and the runtime copies a LOD texture's `offset` and `repeat` " +
        'from the texture it replaces but not its `channel` (uv set), so the LOD samples uv set 0 (3.3.5, ' +
        '`copySettings` in `lib/extension.js`). Its other meshes match three because it ends on the same ' +
        'full-resolution PNG/JPEG files three loads.',
      "Tessera's figures are UASTC colour transcoded to BC7 on SwiftShader (1 byte a texel) and only the mips " +
        'the view needs; gltf-progressive and three upload rgba8 (4 bytes a texel) with generated mips, hence ' +
        'the GPU bytes.',
      'First textured frame: every tool shows a texture on the first frame after `loadAsync` resolves ' +
        '(gltf-progressive: its 128 px previews inside the glTF; Tessera: the coarsest levels, which ' +
        "`tessera gltf` puts in the glTF's buffer; three: the whole files).",
      'Settled PSNR against gltf-progressive: on the large scene its pipeline output ends on the original ' +
        'files for every mesh in view (its one LOD is the original image), identical to three, and its ' +
        "4-LOD layout on resized PNG/JPEG at 61 dB; Tessera's UASTC levels give 54 dB overall, 51 dB at " +
        'worst: above the 45/40 dB targets, below gltf-progressive. On the showcase Tessera is higher ' +
        'only because gltf-progressive draws the poster wrong (its other meshes are identical to three).',
    ],
  },
  'gltf-showcase': {
    title: "glTF scene of real-looking images against three's own loaders",
    keys: ['gltf_showcase.*'],
    browser: true,
    columns: { at: 1, names: { webgpu: 'WebGPU', webgl: 'WebGL2' } },
    about:
      'The showcase scene (`test/support/gltf-showcase-scene.ts`): six 2048² photograph-like ' +
      'textures, a 40 m floor (UASTC + zstd, uv repeated 10 times), a sphere (ETC1S base colour, PNG ' +
      'normal map), instanced crates (JPEG), a poster read through uv set 1 and ' +
      '`KHR_texture_transform` (PNG), a sign (rgba8 KTX2 under `KHR_texture_basisu`); 1280x720, ' +
      'perspective camera 1.7 m above the floor. Streamed: `registerGltfTextureStreaming` + ' +
      '`TextureStreamingSystem` as the README shows (256 MiB budget, settled by `whenSettled()`); ' +
      "baseline: three's `GLTFLoader` + `KTX2Loader` on the same files in the same page, on both " +
      'backends of `WebGPURenderer`.\n\n' +
      "- `psnr_overall`, `psnr_min_mesh`, `psnr.<mesh>`: the settled streamed frame against three's " +
      '(99 dB: identical);\n' +
      '- `first_frame_bytes`: every byte served before the first textured frame (the glTF and its ' +
      'buffer included), against `three_bytes` (three shows nothing before it has downloaded all);\n' +
      "- `settled_bytes`: bytes served until `whenSettled()` resolved; `gpu_bytes` (the budget's " +
      "exact count) against `three_gpu_bytes` (what three's render added, by the independent GPU " +
      'tracker);\n' +
      '- `first_textured_frame`: frames after `loadAsync` resolved; `settled_frame`: the frame ' +
      '`whenSettled()` resolved;\n' +
      "- `budget_half.*`, `budget_quarter.*`: the same scene under 1/2 and 1/4 of the unconstrained run's " +
      'GPU bytes: `settled_frame` (-1: never), `bytes_ratio` (download over the unconstrained ' +
      "run's), `over_budget_frames`, `gpu_bytes`.",
    notes: [
      'The PNG and JPEG images are read whole before `loadAsync` resolves (their levels are generated ' +
        'from the decoded image), so they make most of the bytes before the first frame; the KTX2 files ' +
        'are read by Range, their coarsest levels with the metadata.',
      'The same checks at 640x360 with 512² textures run in the browser tests ' +
        '(`test/browser/gltf/gltf-fidelity.spec.ts`, both backends), which assert the targets.',
    ],
  },
  soak: {
    title: "A long session: the demo's tour, heap and GPU objects every 500 frames",
    keys: ['soak.*'],
    browser: true,
    columns: { at: 1, names: { webgpu: 'WebGPU', webgl: 'WebGL2' } },
    notes: [
      'Before the demo disposed its dropped meshes (terrain chunks, replaced region props), three kept ' +
        'their render objects: a tester-like path (teleports, transitions, budget changes, low fast ' +
        "flight) grew three's per-object uniform buffers by about 50 a cycle of 71 frames and the heap " +
        'by about 4 KiB a frame; see docs/long-sessions.md and `test/browser/demo/demo-soak.spec.ts`.',
      'A frame costs 0.15-0.45 s on SwiftShader, so the full 10,000 frames on both backends and both ' +
        'variants take about two hours; `SOAK_FRAMES` shortens a run. This run: 5,000 frames (two ' +
        'tour loops and a bit) per backend and variant, the Tessera and plain runs side by side on the ' +
        '2 cores (hence the slower frames).',
    ],
  },
  imagery: {
    title: 'A web map zoomed from the whole Earth to z11, against one texture per tile',
    keys: ['imagery.*'],
    browser: true,
    about:
      "A Web Mercator map (256² JPEG tiles from a local XYZ server: the Earth map of Debian's " +
      'xplanet-images for z0-z3, seeded detail below) on a plane, zoomed one zoom per step from the ' +
      'whole Earth (z0) to z11 about Paris, 50 frames a step, one per animation frame, on both ' +
      'backends of `WebGPURenderer` (`_webgl` keys: WebGL2), at 960x540 with no added latency (keys ' +
      'without a suffix), and where the run has them at 1920x1080 (`_1080p`) and with 80 ms before ' +
      'every tile answer (`_80ms`). Baseline (`baseline`, written for the bench as web map engines ' +
      'draw tiles): one mesh and one mipmapped `Texture` per visible tile (screen-space-error ' +
      'quadtree, parents drawn until children load, an LRU of twice the visible tiles, 6 requests per ' +
      'host). Tessera: `VirtualTextureSystem` (pages of 264 with a 4-texel border: each page one ' +
      '256-texel tile; trilinear) over `ImageryTileSource(new XyzPyramid(...))` at a 64 MiB budget ' +
      "(`tessera`, 960x540 only) and at about the baseline's peak (`tessera_small`: 24 MiB at " +
      '960x540, 56 MiB at 1920x1080).\n\n' +
      '- `gpu_peak_mib`, `gpu_mean_mib`: the independent GPU tracker (Tessera: its `tessera:` ' +
      "labels; the baseline: every byte above the renderer's own);\n" +
      '- `fetched_mib`, `fetched_bytes_per_frame`, `requests`: what the server sent;\n' +
      "- `requests_<cause>`: the server's log, each request classed by the step it came in: `view` " +
      '(a tile the view shows at its zoom), `ring` (its zoom, outside the view), `coarser`, `finer` ' +
      '(at step 0: the pinned z1 pages), `startup`; `refetch` counts, across them, tiles fetched ' +
      'again; `imagery.view_tiles`: the tiles the views show, each once (the floor);\n' +
      "- `sharp_frames_*`, `sharp_ms_*`: from a step's start to the last frame that changed what " +
      'is drawn (Tessera: a page mapped or refreshed); `settle_frames_*`: until `whenSettled()` ' +
      '(Tessera) or every visible tile at its wanted zoom (baseline); `feedback_frames_median`, ' +
      "`first_page_frames_median` (Tessera): until the new view's feedback was analysed, and until " +
      'its first page was mapped;\n' +
      '- `*_vs_baseline`: Tessera over the baseline; `burst_*`: requests and decoded tiles per second ' +
      'with 6 requests in flight per host.',
    notes: IMAGERY_NOTES,
  },
  'gpu-compress': {
    title: 'GPU compression of rendered tiles',
    keys: ['rvt.compress.*', 'rvt.copy_rgba8.*'],
    browser: true,
  },
  'mip-rule': {
    title: "What each filtering mode's mip rule asks of the pool",
    keys: ['vt.bilinear.*', 'vt.trilinear.*', 'vt.anisotropic.*'],
    about:
      "The simulator (no GPU) on the demo's terrain (1024 x 1024 pages, 4 km, 30 texels per metre) seen " +
      "from 25 m at 1280 x 720 with the demo's 128 MiB pool (783 slots) and no mip bias, on still views at " +
      'three pitches (-0.5, -0.25, -0.12 rad). Per filtering mode and pitch: `pages_per_frame`, the ' +
      'distinct pages requested per feedback frame, and `pool_efficiency` (resident pages the feedback ' +
      'touched in the last jitter cycle / resident pages, as `stats().poolEfficiency`) once the view has ' +
      'streamed in. Before the shared mip rule every mode requested the anisotropic footprint: the ' +
      '`anisotropic` figures are what bilinear and trilinear pools held then.',
    columns: { at: 1, names: { bilinear: 'bilinear', trilinear: 'trilinear', anisotropic: 'anisotropic' } },
  },
  'page-table': {
    title: 'Sparse page-table GPU bytes after a fly-over',
    keys: ['vt.page_table_*'],
    about:
      'The simulator (no GPU): a virtual texture of 1024² or 4096² pages after a 1080p fly-over ' +
      '(anisotropic mip rule, feedback at 1/8, the mip bias on, a 2048-slot pool), read once the view ' +
      "has settled at the path's end. The simulator's table grows its atlas by doubling as the binding " +
      'does, so `page_table_bytes` is what the GPU would hold (indirection plus atlas at its capacity); ' +
      '`_used` counts only the stored blocks; `_dense` is the dense table it replaced (4 bytes per page ' +
      'at every mip). `three_vts`: three textures (4096², 4096², 1024² pages) on three paths, summed.',
  },
  'png-codec': {
    title: "The tests' PNG codec against sharp",
    keys: ['png_codec.*'],
  },
  pool: {
    title: 'Eviction and page-use cost of the pool',
    keys: ['pool.*'],
  },
  rvt: {
    title: 'Runtime virtual textures: tiles rendered per second',
    keys: ['rvt.render_only.*', 'rvt.cpu_procedural.*', 'rvt.render_compress.*'],
    browser: true,
  },
  sim: {
    title: "The default policy against Belady's optimum, time to sharp, upload order, staging",
    keys: ['cache.*', 'sim.*', 'vt.upload_order.*', 'vt.staging*'],
  },
  'sources-browser': {
    title: 'Archive tiles decoded in the browser',
    keys: ['sources.archive.*browser*', 'sources.archive.*vs_webp_pool_ratio*'],
    browser: true,
  },
  'sources-ktx2': {
    title: 'KTX2 levels by HTTP Range',
    keys: ['sources.ktx2*'],
  },
  'sources-uastc': {
    title: 'UASTC archives: bytes, bake rate, inflation, quality',
    keys: [
      'sources.archive.*.bytes_per_tile',
      'sources.archive.*.inflate_us_per_tile',
      'bake.webp.*',
      'bake.uastc*',
    ],
  },
  sources: {
    title: 'Tile sources and the baker',
    keys: [
      'sources.procedural.*',
      'sources.archive.*.tiles_per_s',
      'bake.image_*',
      'bake.megapixels_per_s',
      'bake.procedural_*',
    ],
  },
  three: {
    title: "The binding's frame cost against a plain texture",
    keys: ['three.*'],
    browser: true,
    notes: [
      "Keys without a mode suffix: WebGPU with the main-pass feedback (the default there); `_separate_pass`: WebGPU with the separate feedback pass; `_webgl`: WebGL2 (always the separate pass), batches timed to the GPU's completion (a one-pixel `readPixels`). `_400_meshes_half_plain`: 400 meshes, every other one keeping the ordinary texture in the virtual-texture variants.",
      "`_still` keys (separate pass only, same page and batches as the key without `_still`): a still camera with the default `stillFeedbackInterval` (4), each timed batch after 17 untimed still frames, so the pass rests 3 frames in 4 (`three.feedback.still_pass_fraction.*`: passes rendered per timed frame); the keys without `_still` render the pass every frame (interval 1, a moving view's cost); `three.still_vs_every_frame.*`: the still frame over the every-frame one, per batch pair. The 2026-12-06 run shared its 2 cores with other jobs (load average 16-18): the same page's plain frame took 47 ms in one run and 91 ms in the next, so these figures are noise-bound. WebGPU's separate pass measured 0.83x (bilinear), 1.03x (trilinear) and 0.86x (400 meshes, half plain) resting against every frame. On WebGL2 the every-frame pass itself is within the noise here (`feedback_ratio.*_webgl` 0.93-1.01: 80 x 45 feedback pixels at 640 x 360 cost SwiftShader little), so resting shows no gain: a second WebGL2-only run gave 1.27x, 1.04x and 1.15x, and a check with the still variant at interval 1 (same work as every frame, only the warm-up differs) gave 1.04x against 1.14x at interval 4 (16 batches each, bilinear): differences of that size are the machine's, not the pass's.",
      '`three.feedback.readback_bytes.*`: bytes mapped per feedback readback delivered (main pass: the compacted list; separate pass: the feedback image), `three.feedback.cpu_ms.*`: CPU time analysing one, both at 640 x 360 unless the key says `_1280x720`.',
      "On SwiftShader the main pass costs every pixel of a virtual-texture material its whole request branch, taken or not: with the branch's condition made uniformly false the sampling ratio stayed at 1.18, against 1.05 with the branch emptied (one run each, 2026-12-06, bilinear, 640 x 360), so SwiftShader runs a branch's body under a lane mask whatever the condition. A GPU skips a branch no lane of a wave takes (not measurable here); there the per-pixel cost is the tile test (two integer remainders) and the body runs for one pixel in `feedbackScale`² (1 in 64 by default).",
    ],
  },
};
