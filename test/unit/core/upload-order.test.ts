import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { packPageId, pageX, pageY } from '../../../src/core/vt/page-id';
import {
  ReadyTileQueue,
  UploadDemand,
  type UploadOrder,
} from '../../../src/core/vt/scheduling/ready-tile-queue';
import { VirtualTextureStreamer } from '../../../src/core/vt/virtual-texture-streamer';
import { probeAllocations } from '../support/allocation-probe';
import { flush, ManualTileSource } from './fake-source';

/** A feedback buffer in which each page of `coverage` (page index -> pixels) appears that often. */
function feedbackOf(coverage: ReadonlyMap<number, number>): Uint32Array {
  const ids: number[] = [];
  for (const [page, pixels] of coverage) for (let i = 0; i < pixels; i++) ids.push(mip0(page));
  return new Uint32Array(ids);
}

/** Page `i` of mip 0 of an 8 x 8-page texture. */
const mip0 = (i: number) => packPageId(0, 0, i & 7, i >> 3);

/**
 * A streamer over an 8 x 8-page texture whose mips 1..3 are pinned and resident, so every mip-0
 * page falls back the same distance (1 mip) and only coverage and demand order them.
 */
async function pinnedStreamer(order: UploadOrder = 'priority') {
  const source = new ManualTileSource(8, 8);
  const streamer = new VirtualTextureStreamer({
    pool: { slotCount: 256 },
    maxConcurrentLoads: 256,
    uploadOrder: order,
    textures: [{ source, pinnedMipCount: 3 }],
  });
  streamer.beginFrame(1);
  streamer.update();
  source.settleAll();
  await flush();
  streamer.drainUploads(() => true, 1000);
  expect(streamer.stats().pinnedPages).toBe(16 + 4 + 1);
  return { source, streamer };
}

/** Drains one tile at a time and returns the page indices in upload order. */
function drainOneByOne(streamer: VirtualTextureStreamer): number[] {
  const order: number[] = [];
  const off = streamer.on('page-loaded', (e) => order.push(pageX(e.pageId) + 8 * pageY(e.pageId)));
  while (streamer.drainUploads(() => true, 1) > 0) {}
  off();
  return order;
}

/** Loads started for the requested pages, in the order the test settles them. */
function settleInOrder(source: ManualTileSource, arrival: readonly number[]): void {
  const pending = source.pending.splice(0);
  const byPage = new Map(pending.map((p) => [p.x + 8 * p.y, p]));
  for (const page of arrival) byPage.get(page)?.resolve(source.tile());
}

describe('upload order', () => {
  it('property: tiles upload by demand, then the coverage of their latest request, whatever the arrival order', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.uniqueArray(fc.integer({ min: 0, max: 63 }), { minLength: 2, maxLength: 24 }).chain((pages) =>
          fc.record({
            pages: fc.constant(pages),
            arrival: fc.shuffledSubarray(pages, { minLength: pages.length, maxLength: pages.length }),
            first: fc.array(fc.integer({ min: 1, max: 9 }), {
              minLength: pages.length,
              maxLength: pages.length,
            }),
            later: fc.array(fc.integer({ min: 1, max: 9 }), {
              minLength: pages.length,
              maxLength: pages.length,
            }),
            // 2: in the latest feedback; 1: only in the one before; 0: in neither (left the view).
            demand: fc.array(fc.integer({ min: 0, max: 2 }), {
              minLength: pages.length,
              maxLength: pages.length,
            }),
          }),
        ),
        async ({ pages, arrival, first, later, demand }) => {
          const { source, streamer } = await pinnedStreamer();
          streamer.beginFrame(2);
          streamer.submitFeedback(feedbackOf(new Map(pages.map((p, i) => [p, first[i]]))));
          streamer.update();
          settleInOrder(source, arrival);
          await flush();
          // Two later feedbacks re-request with new coverage: the upload order must use it.
          const before = new Map<number, number>();
          const latest = new Map<number, number>();
          pages.forEach((p, i) => {
            if (demand[i] >= 1) before.set(p, later[i]);
            if (demand[i] === 2) latest.set(p, later[i]);
          });
          streamer.beginFrame(3);
          streamer.submitFeedback(feedbackOf(before));
          streamer.submitFeedback(feedbackOf(latest));
          const order = drainOneByOne(streamer);
          expect(order.length).toBe(pages.length); // a free slot each: even unwanted tiles upload
          const key = (page: number) => {
            const i = pages.indexOf(page);
            return demand[i] * 100 + (demand[i] >= 1 ? later[i] : first[i]);
          };
          for (let i = 1; i < order.length; i++)
            expect(key(order[i - 1])).toBeGreaterThanOrEqual(key(order[i]));
          streamer.dispose();
        },
      ),
      { numRuns: 60 },
    );
  });

  it("'arrival' order (the baseline) uploads in the order loads completed", async () => {
    const { source, streamer } = await pinnedStreamer('arrival');
    streamer.beginFrame(2);
    streamer.submitFeedback(
      feedbackOf(
        new Map([
          [5, 1],
          [9, 8],
          [20, 3],
          [33, 5],
        ]),
      ),
    );
    streamer.update();
    settleInOrder(source, [20, 5, 33, 9]);
    await flush();
    expect(drainOneByOne(streamer)).toEqual([20, 5, 33, 9]);
  });

  it('uploads the pinned fallback before any page the feedback asks for', async () => {
    const source = new ManualTileSource(8, 8);
    const streamer = new VirtualTextureStreamer({
      pool: { slotCount: 256 },
      maxConcurrentLoads: 256,
      textures: [{ source, pinnedMipCount: 1 }],
    });
    streamer.beginFrame(1);
    streamer.submitFeedback(
      feedbackOf(
        new Map([
          [3, 50],
          [12, 40],
        ]),
      ),
    );
    streamer.update();
    // The page the view asks for lands first; the root (the pinned fallback) after it.
    const pending = source.pending.splice(0);
    for (const p of [...pending].reverse()) p.resolve(source.tile());
    await flush();
    const mips: number[] = [];
    streamer.on('page-loaded', (e) => mips.push((e.pageId >>> 24) & 0xf));
    while (streamer.drainUploads(() => true, 1) > 0) {}
    expect(mips[0]).toBe(3); // the root of an 8 x 8-page texture
    expect(mips.length).toBe(pending.length);
  });
});

describe('ReadyTileQueue', () => {
  it('keeps its order with no allocation per tile: add, re-key, lazy demand drops, peek, delete', async () => {
    const n = 512;
    const requestedAt = new Int32Array(n);
    const queue = new ReadyTileQueue(n, requestedAt);
    let feedbacks = 0;
    let checksum = 0;
    const cycle = (i: number) => {
      const r = i % n;
      if (queue.has(r)) queue.delete(r);
      requestedAt[r] = feedbacks;
      queue.add(r, (i * 7919) % 1000, feedbacks);
      queue.rekey((i * 31) % n, i % 97, feedbacks);
      if (i % 64 === 0) feedbacks++;
      const top = queue.peek(feedbacks);
      checksum += top;
      if (i % 3 === 0 && top >= 0) queue.delete(top);
    };
    await probeAllocations(40_000, cycle); // warm the JIT: compiled code lives on the heap too
    const probe = await probeAllocations(40_000, (i) => cycle(40_000 + i));
    expect(probe.collections).toBe(0);
    expect(probe.heapGrowthBytes).toBeLessThan(32 * 1024);
    expect(checksum).toBeGreaterThan(0);
  });

  it('pops the best demand class first, then the largest priority', () => {
    const requestedAt = new Int32Array(8);
    const queue = new ReadyTileQueue(8, requestedAt);
    // Records 0..3 requested at feedback 0, 4..5 at 1, 6..7 at 2; now 2 feedbacks arrived.
    requestedAt.set([0, 0, 0, 0, 1, 1, 2, 2]);
    const priorities = [5, 9, 1, 7, 3, 8, 2, 6];
    for (let r = 0; r < priorities.length; r++) queue.add(r, priorities[r], 0);
    expect(queue.demandOf(0, 2)).toBe(UploadDemand.Unwanted);
    expect(queue.demandOf(4, 2)).toBe(UploadDemand.Recent);
    expect(queue.demandOf(6, 2)).toBe(UploadDemand.Now);
    const order: number[] = [];
    for (let r = queue.peek(2); r >= 0; r = queue.peek(2)) {
      order.push(r);
      queue.delete(r);
    }
    expect(order).toEqual([7, 6, 5, 4, 1, 3, 0, 2]);
  });
});
