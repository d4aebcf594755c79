import { describe, expect, it } from 'vitest';
import {
  MemoryRangeReader,
  PrefixedRangeReader,
  type RangeReader,
} from '../../../src/sources/io/range-reader';

/** A reader over `bytes` that records the ranges it was asked for. */
function recording(bytes: Uint8Array): RangeReader & { reads: [number, number][] } {
  const inner = new MemoryRangeReader(bytes);
  const reads: [number, number][] = [];
  return {
    reads,
    length: inner.length,
    read(start, end, signal) {
      reads.push([start, end]);
      return inner.read(start, end, signal);
    },
  };
}

describe('PrefixedRangeReader', () => {
  const file = Uint8Array.from({ length: 100 }, (_, i) => i);
  const signal = new AbortController().signal;

  it('answers from the bytes it holds, reads only what lies past them, and joins a straddling range', async () => {
    const inner = recording(file);
    const reader = new PrefixedRangeReader(inner, file.slice(0, 40));
    expect([...(await reader.read(10, 20, signal))]).toEqual([...file.slice(10, 20)]);
    expect([...(await reader.read(0, 40, signal))]).toEqual([...file.slice(0, 40)]);
    expect(inner.reads).toEqual([]);
    expect([...(await reader.read(30, 60, signal))]).toEqual([...file.slice(30, 60)]);
    expect([...(await reader.read(70, 90, signal))]).toEqual([...file.slice(70, 90)]);
    expect(inner.reads).toEqual([
      [40, 60],
      [70, 90],
    ]);
    expect(reader.length).toBe(100);
  });

  it('rejects with the signal reason once aborted', async () => {
    const controller = new AbortController();
    controller.abort(new Error('gone'));
    const reader = new PrefixedRangeReader(recording(file), file.slice(0, 40));
    await expect(reader.read(0, 10, controller.signal)).rejects.toThrow('gone');
  });
});
