import { Ktx2Source } from '../../../src/sources/mips/ktx2-source';
import { encodeEtc1sKtx2 } from '../../support/etc1s-encoder';
import { writeKtx2Fixture } from '../../support/ktx2-fixtures';
import { encodeUastcKtx2 } from '../../support/uastc-encoder';
import { expect, test } from '../fixtures';

type Page = import('@playwright/test').Page;

const PAGE = 'test/browser/sources/pages/ktx2-streaming.html';

/** What the page's `stream()` returns. */
interface StreamRun {
  records: { frame: number; residentMip: number; pixel: number[] }[];
  format: string;
  storedFormat: string;
  fileBytes: number;
  openBytes: number;
  levelBytesRead: number;
  levelRequests: number;
  mipLevelCount: number;
  pinnedMip: number;
  budgetStreamed: number;
  trackedStreamed: number;
}

/** One answered request: the bytes sent and the frame the page had finished when it came. */
interface Served {
  range: string;
  bytes: number;
  afterFrame: number;
}

/**
 * Serves `files` at /ktx2/<name> answering Range (206) like a static host, or ignoring it, and
 * logs every answer with the last frame the page reported before it.
 */
async function serve(page: Page, files: Record<string, Uint8Array>, honourRange = true) {
  const served: Served[] = [];
  const frames: { frame: number; mip: number }[] = [];
  let frame = 0;
  await page.exposeFunction('markFrame', (f: number, mip: number) => {
    frame = f;
    frames.push({ frame: f, mip });
  });
  await page.route('**/ktx2/*', async (route) => {
    const name = new URL(route.request().url()).pathname.split('/').pop() as string;
    const file = files[name];
    if (file === undefined) return route.fulfill({ status: 404 });
    const match = /^bytes=(\d+)-(\d+)$/.exec(route.request().headers().range ?? '');
    if (!honourRange || match === null) {
      served.push({ range: 'whole', bytes: file.length, afterFrame: frame });
      return route.fulfill({
        status: 200,
        body: Buffer.from(file),
        headers: { 'content-type': 'application/octet-stream' },
      });
    }
    const start = Number(match[1]);
    const end = Math.min(Number(match[2]), file.length - 1);
    served.push({ range: `${start}-${end}`, bytes: end - start + 1, afterFrame: frame });
    return route.fulfill({
      status: 206,
      body: Buffer.from(file.subarray(start, end + 1)),
      headers: {
        'content-type': 'application/octet-stream',
        'content-range': `bytes ${start}-${end}/${file.length}`,
        'access-control-expose-headers': 'content-range',
      },
    });
  });
  return { served, frames };
}

async function stream(page: Page, url: string, frames: number): Promise<StreamRun> {
  await expect(page).toHaveTitle('ready');
  return page.evaluate(
    ([u, f]) =>
      (
        globalThis as never as { ktxPage: { stream(u: string, f: number): Promise<StreamRun> } }
      ).ktxPage.stream(u, f),
    [url, frames] as [string, number],
  );
}

/**
 * Bytes the GPU holds for a square `edge`² texture in a 16-byte 4x4 block format (BC7) resident
 * from `residentMip`: its pinned chain (pinnedMip to the last level) and, once finer levels
 * stream, the streamed chain (residentMip to the last level, a texture of its own, so the
 * coarse levels are there twice: the pinned chain stays bound-ready for an instant drop). Whole
 * blocks: 2x2 and 1x1 levels take one 16-byte block each.
 */
function expectedBlockChainBytes(run: StreamRun, edge: number, residentMip: number, blockBytes = 16): number {
  const chain = (from: number) => {
    let bytes = 0;
    for (let level = from; level < run.mipLevelCount; level++)
      bytes += Math.ceil(Math.max(1, edge >> level) / 4) ** 2 * blockBytes;
    return bytes;
  };
  return chain(run.pinnedMip) + (residentMip < run.pinnedMip ? chain(residentMip) : 0);
}

const near = (a: number[], b: number[], tolerance = 12) =>
  a.slice(0, 3).every((v, i) => Math.abs(v - b[i]) <= tolerance);

test.describe('KTX2 streamed by HTTP Range', () => {
  test('BC7: header and coarsest levels before the first textured frame, mip 2 view downloads <= 1/8 of the file', async ({
    page,
    openPage,
  }, testInfo) => {
    // 512² fills the 128² view at 4 texels a pixel: the view needs mip 2.
    const file = await writeKtx2Fixture({ width: 512, height: 512, payload: 'bc7' });
    const log = await serve(page, { 'bc7.ktx2': file });
    await openPage(PAGE);
    const run = await stream(page, '/ktx2/bc7.ktx2', 40);
    expect(run.format).toBe('bc7-rgba-unorm-srgb');
    const firstTextured = run.records.find((r) => r.residentMip < run.mipLevelCount);
    expect(firstTextured, 'a textured frame').toBeDefined();
    const before = log.served.filter((s) => s.afterFrame < (firstTextured?.frame ?? 0));
    const firstFrameBytes = before.reduce((sum, s) => sum + s.bytes, 0);
    // The metadata request, then the pinned chain (levels <= 64 texels) in one request.
    expect(before.length).toBe(2);
    expect(before[0].range).toBe('0-1023');
    let pinnedBytes = 0;
    for (let level = run.pinnedMip; level < run.mipLevelCount; level++) {
      const edge = Math.max(1, 512 >> level);
      pinnedBytes += Math.ceil(edge / 4) ** 2 * 16;
    }
    expect(firstFrameBytes).toBeLessThanOrEqual(1024 + pinnedBytes + 16 * run.mipLevelCount);
    // Coarsest first: the first level request starts at the coarsest level (smallest offsets).
    const starts = log.served.slice(1).map((s) => Number(s.range.split('-')[0]));
    expect(starts[0]).toBe(Math.min(...starts));
    const last = run.records[run.records.length - 1];
    expect(last.residentMip).toBe(2);
    const totalBytes = log.served.reduce((sum, s) => sum + s.bytes, 0);
    const ratio = totalBytes / file.length;
    expect(ratio).toBeLessThanOrEqual(1 / 8);
    // Level 2's colour (blue, sRGB-decoded then encoded back) is what the view shows.
    expect(near(last.pixel, [1, 1, 255]), `pixel ${last.pixel}`).toBe(true);
    // Exact budget accounting for a block format: the independent tracker agrees on both backends.
    expect(run.budgetStreamed).toBe(expectedBlockChainBytes(run, 512, 2));
    expect(run.trackedStreamed).toBe(run.budgetStreamed);
    testInfo.annotations.push({
      type: 'figures',
      description: `first frame ${firstFrameBytes} B, mip-2 view ${totalBytes} B of ${file.length} (${ratio.toFixed(4)})`,
    });
    console.log(
      `[ktx2 ${testInfo.project.name}] first_frame_bytes=${firstFrameBytes} mip2_bytes=${totalBytes} file=${file.length} ratio=${ratio.toFixed(4)} requests=${log.served.length}`,
    );
  });

  test('BC7 + zstd (zstddec loaded in the page): streams to mip 2 and renders its colour', async ({
    page,
    openPage,
  }) => {
    const file = await writeKtx2Fixture({
      width: 512,
      height: 512,
      payload: 'bc7',
      supercompression: 'zstd',
    });
    await serve(page, { 'zstd.ktx2': file });
    await openPage(PAGE);
    const run = await stream(page, '/ktx2/zstd.ktx2', 30);
    const last = run.records[run.records.length - 1];
    expect(last.residentMip).toBe(2);
    expect(near(last.pixel, [1, 1, 255]), `pixel ${last.pixel}`).toBe(true);
    expect(run.budgetStreamed).toBe(expectedBlockChainBytes(run, 512, 2));
    expect(run.trackedStreamed).toBe(run.budgetStreamed);
  });

  test('UASTC + zstd: transcoded in the workers to BC7, header and coarsest levels before the first textured frame, renders', async ({
    page,
    openPage,
  }, testInfo) => {
    // One colour with per-texel noise (+-8): zstd cannot fold the file into the first request.
    const rgba = new Uint8Array(512 * 512 * 4);
    let seed = 12345;
    const noise = () => {
      seed = (seed * 1103515245 + 12345) >>> 0;
      return ((seed >>> 24) % 17) - 8;
    };
    for (let i = 0; i < rgba.length; i += 4) rgba.set([24 + noise(), 64 + noise(), 232 + noise(), 255], i);
    const file = await encodeUastcKtx2(rgba, 512, 512, { srgb: true, quality: 0, mipmaps: true, zstd: true });
    const { layout } = new Ktx2Source(file);
    expect(layout.supercompression).toBe('zstd');
    expect(file.length).toBeGreaterThan(64 * 1024);
    const log = await serve(page, { 'uastc.ktx2': file });
    await openPage(PAGE);
    const run = await stream(page, '/ktx2/uastc.ktx2', 40);
    expect(run.storedFormat).toBe('uastc-4x4-srgb');
    // SwiftShader offers BC on both backends: the same choice as a VT pool's colour layer.
    expect(run.format).toBe('bc7-rgba-unorm-srgb');
    const firstTextured = run.records.find((r) => r.residentMip < run.mipLevelCount);
    expect(firstTextured, 'a textured frame').toBeDefined();
    const before = log.served.filter((s) => s.afterFrame < (firstTextured?.frame ?? 0));
    expect(before.length).toBe(2);
    expect(before[0].range).toBe('0-1023');
    // The second request is exactly the stored (zstd) pinned chain, level pinnedMip to the last,
    // less what the first request already read (the coarsest levels follow the metadata).
    const pinnedStart = Math.max(layout.levelOffsets[layout.levelCount - 1], 1024);
    const pinnedEnd = layout.levelOffsets[run.pinnedMip] + layout.levelLengths[run.pinnedMip] - 1;
    expect(before[1].range).toBe(`${pinnedStart}-${pinnedEnd}`);
    const last = run.records[run.records.length - 1];
    expect(last.residentMip).toBe(2);
    // The page reads a linear render target: the sRGB texels come back decoded.
    const linear = [24, 64, 232].map((c) => {
      const v = c / 255;
      return 255 * (v <= 0.04045 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4);
    });
    expect(near(last.pixel, linear, 6), `pixel ${last.pixel} vs ${linear}`).toBe(true);
    // The budget counts the transcoded BC7 chains exactly (1 byte a texel in whole blocks, not
    // rgba8's 4), and the independent tracker agrees on both backends.
    expect(run.budgetStreamed).toBe(expectedBlockChainBytes(run, 512, 2));
    expect(run.trackedStreamed).toBe(run.budgetStreamed);
    const totalBytes = log.served.reduce((sum, s) => sum + s.bytes, 0);
    const firstFrameBytes = before[0].bytes + before[1].bytes;
    console.log(
      `[ktx2-uastc ${testInfo.project.name}] first_frame_bytes=${firstFrameBytes} mip2_bytes=${totalBytes} file=${file.length} ratio=${(totalBytes / file.length).toFixed(4)} budget=${run.budgetStreamed}`,
    );
  });

  test('ETC1S (BasisLZ): codebooks with the metadata, levels by Range transcoded in the workers to ETC1 blocks (ETC2 RGB8), renders', async ({
    page,
    openPage,
  }, testInfo) => {
    // One colour with per-texel noise (+-8): the levels are larger than the opening request.
    const rgba = new Uint8Array(512 * 512 * 4);
    let seed = 777;
    const noise = () => {
      seed = (seed * 1103515245 + 12345) >>> 0;
      return ((seed >>> 24) % 17) - 8;
    };
    for (let i = 0; i < rgba.length; i += 4) rgba.set([200 + noise(), 120 + noise(), 40 + noise(), 255], i);
    const file = await encodeEtc1sKtx2(rgba, 512, 512, { srgb: false, quality: 128 });
    const { layout } = new Ktx2Source(file);
    expect(layout.supercompression).toBe('basislz');
    expect(layout.levelOffsets[1]).toBeGreaterThan(4096);
    const log = await serve(page, { 'etc1s.ktx2': file });
    await openPage(PAGE);
    const run = await stream(page, '/ktx2/etc1s.ktx2', 40);
    expect(run.storedFormat).toBe('etc1s');
    // SwiftShader offers ETC2 on both backends: ETC2 first, as three's KTX2Loader orders ETC1S.
    expect(run.format).toBe('etc2-rgb8unorm');
    const last = run.records[run.records.length - 1];
    expect(last.residentMip).toBe(2);
    expect(near(last.pixel, [200, 120, 40], 10), `pixel ${last.pixel}`).toBe(true);
    // Every request lies before level 1's data: levels 0 and 1 were never downloaded.
    for (const s of log.served.slice(1))
      expect(Number(s.range.split('-')[1])).toBeLessThan(layout.levelOffsets[1]);
    // ETC1 blocks are 8 bytes: the budget counts them exactly, the tracker agrees on both backends.
    expect(run.budgetStreamed).toBe(expectedBlockChainBytes(run, 512, 2, 8));
    expect(run.trackedStreamed).toBe(run.budgetStreamed);
    const totalBytes = log.served.reduce((sum, s) => sum + s.bytes, 0);
    console.log(
      `[ktx2-etc1s ${testInfo.project.name}] open=${log.served[0].bytes} mip2_bytes=${totalBytes} file=${file.length} requests=${log.served.length}`,
    );
  });

  test('rgba8: a server that ignores Range gives one whole download, and the texture still streams', async ({
    page,
    openPage,
  }) => {
    const file = await writeKtx2Fixture({ width: 256, height: 256, payload: 'rgba8' });
    const log = await serve(page, { 'plain.ktx2': file }, false);
    const warnings: string[] = [];
    page.on('console', (m) => {
      if (m.type() === 'warning') warnings.push(m.text());
    });
    await openPage(PAGE);
    const run = await stream(page, '/ktx2/plain.ktx2', 30);
    expect(log.served).toHaveLength(1);
    expect(log.served[0].range).toBe('whole');
    expect(warnings.filter((w) => w.includes('ignores HTTP Range'))).toHaveLength(1);
    const last = run.records[run.records.length - 1];
    // 256² in a 128-pixel view: mip 1 (green).
    expect(last.residentMip).toBe(1);
    expect(near(last.pixel, [1, 255, 1]), `pixel ${last.pixel}`).toBe(true);
  });

  test('BC7 + zlib with corrupt fine levels: a typed error, that texture keeps its coarser level, the other streams on', async ({
    page,
    openPage,
  }) => {
    const options = { width: 512, height: 512, payload: 'bc7', supercompression: 'zlib' } as const;
    const good = await writeKtx2Fixture(options);
    const bad = good.slice();
    const { layout } = new Ktx2Source(good);
    // Levels 0..2 (finer than the pinned 64² level 3): 0xFF after the zlib header is a reserved
    // deflate block type, so inflation fails.
    for (let level = 0; level <= 2; level++) {
      const start = layout.levelOffsets[level];
      bad.fill(0xff, start + 2, start + layout.levelLengths[level]);
    }
    await serve(page, { 'bad.ktx2': bad, 'good.ktx2': good });
    await openPage(PAGE);
    await expect(page).toHaveTitle('ready');
    const run = await page.evaluate(() =>
      (
        globalThis as never as {
          ktxPage: {
            streamBadAndGood(
              a: string,
              b: string,
              f: number,
            ): Promise<{
              badMip: number;
              goodMip: number;
              badPinnedMip: number;
              pixel: number[];
              errors: { texture: string; code: string; cause: string }[];
            }>;
          };
        }
      ).ktxPage.streamBadAndGood('/ktx2/bad.ktx2', '/ktx2/good.ktx2', 30),
    );
    expect(run.goodMip).toBe(2);
    expect(run.badMip).toBe(run.badPinnedMip);
    expect(run.badPinnedMip).toBe(3);
    expect(run.errors.length).toBeGreaterThan(0);
    // The planner's 'texture-load-failed', caused by the source's typed error.
    for (const error of run.errors)
      expect(error).toEqual({ texture: 'bad', code: 'texture-load-failed', cause: 'decode-failed' });
    // The bad texture, in front, still shows its pinned level 3 (yellow).
    expect(near(run.pixel, [255, 255, 1]), `pixel ${run.pixel}`).toBe(true);
  });
});
