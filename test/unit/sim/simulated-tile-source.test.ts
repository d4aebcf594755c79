import { describe, expect, it } from 'vitest';
import { isAbortError, TileSourceError } from '../../../src/core/errors';
import { SimulatedTileSource } from '../../../src/sim/simulated-tile-source';

async function settle(): Promise<void> {
  await new Promise((resolve) => setImmediate(resolve));
}

describe('SimulatedTileSource', () => {
  it('settles loads after the latency, in frames', async () => {
    const source = new SimulatedTileSource({ widthPages: 8, heightPages: 8, latencyFrames: 3, layers: 2 });
    let done = false;
    const promise = source.load(0, 1, 1, new AbortController().signal).then((data) => {
      done = true;
      return data;
    });
    for (let f = 1; f <= 2; f++) {
      source.advanceTo(f);
      await settle();
      expect(done).toBe(false);
    }
    source.advanceTo(3);
    await settle();
    expect(done).toBe(true);
    const data = await promise;
    expect(data.layers).toHaveLength(2);
    expect(data.layers[0].byteLength).toBe(128 * 128 * 4);
    expect(source.stats).toMatchObject({ started: 1, succeeded: 1, inFlight: 0 });
  });

  it('fails at the seeded rate, deterministically', async () => {
    const outcomes = async (seed: number) => {
      const source = new SimulatedTileSource({
        widthPages: 8,
        heightPages: 8,
        latencyFrames: 1,
        failureProbability: 0.3,
        seed,
      });
      const results = Array.from({ length: 400 }, () =>
        source.load(0, 0, 0, new AbortController().signal).then(
          () => 'ok',
          (error: unknown) => (error instanceof TileSourceError && error.retryable ? 'failed' : 'other'),
        ),
      );
      source.advanceTo(1);
      return Promise.all(results);
    };
    const a = await outcomes(11);
    expect(a).toEqual(await outcomes(11));
    const failed = a.filter((r) => r === 'failed').length;
    expect(a.includes('other')).toBe(false);
    expect(failed).toBeGreaterThan(80);
    expect(failed).toBeLessThan(160);
  });

  it('rejects promptly with an abort error when the signal aborts', async () => {
    const source = new SimulatedTileSource({ widthPages: 8, heightPages: 8, latencyFrames: 5 });
    const controller = new AbortController();
    const promise = source.load(0, 0, 0, controller.signal);
    controller.abort();
    await expect(promise).rejects.toSatisfy(isAbortError);
    source.advanceTo(10);
    expect(source.stats).toMatchObject({ aborted: 1, succeeded: 0, inFlight: 0 });
    await expect(source.load(0, 0, 0, controller.signal)).rejects.toSatisfy(isAbortError);
  });

  it('settles at once with zero latency and aborts pending loads on dispose', async () => {
    const source = new SimulatedTileSource({ widthPages: 8, heightPages: 8, latencyFrames: 0 });
    await expect(source.load(0, 0, 0, new AbortController().signal)).resolves.toBeDefined();
    const slow = new SimulatedTileSource({ widthPages: 8, heightPages: 8, latencyFrames: 4 });
    const pending = slow.load(0, 0, 0, new AbortController().signal);
    slow.dispose();
    await expect(pending).rejects.toSatisfy(isAbortError);
  });
});
