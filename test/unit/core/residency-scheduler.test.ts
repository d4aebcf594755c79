import { describe, expect, it } from 'vitest';
import { TesseraConfigError, TileSourceError } from '../../../src/core/errors';
import { packPageId } from '../../../src/core/vt/page-id';
import { PageLoadState, ResidencyScheduler } from '../../../src/core/vt/scheduling/residency-scheduler';
import { flush, ManualTileSource } from './fake-source';

describe('ResidencyScheduler', () => {
  it('loads by fallback distance, then coverage, within the concurrency bound', async () => {
    const src = new ManualTileSource(16, 16);
    const s = new ResidencyScheduler({ maxConcurrentLoads: 2 });
    s.setSource(0, src);
    s.beginFrame(1);
    s.request(packPageId(0, 0, 1, 0), 1, 500);
    s.request(packPageId(0, 0, 2, 0), 3, 10);
    s.request(packPageId(0, 0, 3, 0), 1, 900);
    s.update();
    expect(src.pending.map((p) => p.x)).toEqual([2, 3]);
    expect(s.stats().inFlight).toBe(2);
    expect(s.stats().queued).toBe(1);
    src.settleAll();
    await flush();
    expect(s.stats().ready).toBe(2);
    const r = s.peekReady();
    expect(s.readyPage(r)).toBe(packPageId(0, 0, 2, 0));
    s.finishReady(r);
    s.update();
    expect(src.pending.map((p) => p.x)).toEqual([1]);
  });

  it('a texture whose loads fail holds a quarter of the loads while another texture waits, all of them when alone', async () => {
    const dead = new ManualTileSource(16, 16);
    const fine = new ManualTileSource(16, 16);
    const s = new ResidencyScheduler({ maxConcurrentLoads: 8 });
    s.setSource(0, dead);
    s.setSource(1, fine);
    s.beginFrame(1);
    // The dead texture's pages have nothing resident: they outrank every page of the other.
    for (let x = 0; x < 24; x++) s.request(packPageId(0, 0, x % 16, x >> 4), 16, 100);
    for (let x = 0; x < 4; x++) s.request(packPageId(1, 0, x, 0), 1, 100);
    s.update();
    // Not failing yet: strictly by priority, the dead texture takes every load.
    expect(dead.pending.length).toBe(8);
    expect(fine.pending.length).toBe(0);
    dead.settleAll(() => true);
    await flush();
    s.beginFrame(2);
    s.update();
    // Failing now: 2 of 8 loads (its retries and the rest of its pages wait), the other texture streams.
    expect(dead.pending.length).toBe(2);
    expect(fine.pending.length).toBe(4);
    fine.settleAll();
    dead.settleAll(() => true);
    await flush();
    for (let r = s.peekReady(); r >= 0; r = s.peekReady()) s.finishReady(r);
    s.beginFrame(3);
    s.update();
    // Alone in the queue, the failing texture may use every free load.
    expect(fine.pending.length).toBe(0);
    expect(dead.pending.length).toBe(8);
    // A load that succeeds ends the failing state: strictly by priority again.
    dead.settleAll();
    await flush();
    for (let r = s.peekReady(); r >= 0; r = s.peekReady()) s.finishReady(r);
    s.beginFrame(4);
    for (let x = 4; x < 8; x++) s.request(packPageId(1, 0, x, 0), 1, 100);
    s.update();
    expect(dead.pending.length).toBe(6);
    expect(fine.pending.length).toBe(2);
  });

  it('never loads a page twice at once and aborts pages no longer requested', async () => {
    const src = new ManualTileSource(16, 16);
    const s = new ResidencyScheduler({ abortAfterFrames: 2 });
    s.setSource(0, src);
    const id = packPageId(0, 1, 1, 1);
    for (let f = 1; f <= 3; f++) {
      s.beginFrame(f);
      s.noteFeedback();
      s.request(id, 2, 5);
      s.update();
    }
    expect(src.calls).toBe(1);
    expect(s.stateOf(id)).toBe(PageLoadState.Loading);
    const signal = src.pending[0].signal;
    for (let f = 4; f <= 6; f++) {
      s.beginFrame(f);
      s.noteFeedback(); // feedback arrives, without the page
      s.update();
    }
    expect(signal.aborted).toBe(true);
    expect(s.stateOf(id)).toBe(PageLoadState.Untracked);
    expect(s.stats().loadsAborted).toBe(1);
    await flush();
    expect(s.stats().inFlight).toBe(0);
  });

  it('does not abort a load while no feedback arrives (slow readbacks), however many frames pass', async () => {
    const src = new ManualTileSource(16, 16);
    const s = new ResidencyScheduler({ abortAfterFrames: 2 });
    s.setSource(0, src);
    const id = packPageId(0, 1, 1, 1);
    s.beginFrame(1);
    s.noteFeedback();
    s.request(id, 2, 5);
    s.update();
    const signal = src.pending[0].signal;
    for (let f = 2; f <= 40; f++) {
      s.beginFrame(f);
      if (f === 20) s.noteFeedback(); // one feedback without the page is not enough evidence
      s.update();
    }
    expect(s.stateOf(id)).toBe(PageLoadState.Loading);
    expect(signal.aborted).toBe(false);
    s.beginFrame(41);
    s.noteFeedback();
    s.update();
    expect(s.stateOf(id)).toBe(PageLoadState.Untracked);
    expect(signal.aborted).toBe(true);
  });

  it('retries with exponential backoff, then marks the page failed and reports it once', async () => {
    const src = new ManualTileSource(16, 16);
    const s = new ResidencyScheduler({ maxAttempts: 3, retryBaseFrames: 2, failedCooldownFrames: 50 });
    s.setSource(0, src);
    const failures: string[] = [];
    s.onFailure = (_id, e) => failures.push(e.code);
    const id = packPageId(0, 0, 0, 0);
    const startFrames: number[] = [];
    for (let f = 1; f <= 40; f++) {
      s.beginFrame(f);
      s.request(id, 1, 1);
      const before = src.calls;
      s.update();
      if (src.calls > before) startFrames.push(f);
      src.settleAll(() => true);
      await flush();
    }
    expect(startFrames).toEqual([1, 3, 7]); // backoff 2, then 4 frames
    expect(failures).toEqual(['tile-failed-permanently']);
    expect(s.stateOf(id)).toBe(PageLoadState.Failed);
    expect(s.isFailed(id)).toBe(true);
    expect([s.stats().failed, s.stats().failedTotal]).toEqual([1, 1]);
    // Requested again after the cool-down: retried; failed now drops, the total stays.
    s.beginFrame(60);
    s.request(id, 1, 1);
    s.update();
    expect(src.calls).toBe(4);
    expect(s.isFailed(id)).toBe(false);
    expect([s.stats().failed, s.stats().failedTotal]).toEqual([0, 1]);
  });

  it('gives up at once on a non-retryable error', async () => {
    const src = new ManualTileSource(4, 4);
    const s = new ResidencyScheduler();
    s.setSource(0, src);
    let failed = 0;
    s.onFailure = () => failed++;
    s.beginFrame(1);
    s.request(packPageId(0, 0, 0, 0), 1, 1);
    s.update();
    src.pending.splice(0)[0].reject(new TileSourceError('corrupt', 'bad', false));
    await flush();
    expect(failed).toBe(1);
  });

  it('rejects invalid options', () => {
    expect(() => new ResidencyScheduler({ maxConcurrentLoads: 0 })).toThrow(TesseraConfigError);
    expect(() => new ResidencyScheduler({ maxAttempts: 1.5 })).toThrow(TesseraConfigError);
  });
});
