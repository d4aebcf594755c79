import { describe, expect, it } from 'vitest';
import { ShedLevelCache } from '../../../src/core/streaming/planning/shed-level-cache';

describe('ShedLevelCache', () => {
  it('keeps levels up to its byte bound, dropping the least recently shed first', () => {
    const cache = new ShedLevelCache(300);
    const a = new Uint8Array(100);
    const b = new Uint8Array(100);
    const c = new Uint8Array(150);
    cache.put(1, 0, a);
    cache.put(2, 0, b);
    expect(cache.bytes).toBe(200);
    cache.put(1, 1, c);
    expect(cache.bytes).toBe(250);
    expect(cache.take(1, 0)).toBeNull();
    expect(cache.take(2, 0)).toBe(b);
    expect(cache.take(2, 0), 'taken levels leave the cache').toBeNull();
    expect(cache.bytes).toBe(150);
  });

  it('never keeps a level larger than the bound, replaces a level put twice, forgets a texture', () => {
    const cache = new ShedLevelCache(100);
    cache.put(1, 0, new Uint8Array(101));
    expect(cache.bytes).toBe(0);
    cache.put(1, 2, new Uint8Array(40));
    cache.put(1, 2, new Uint8Array(30));
    cache.put(3, 2, new Uint8Array(10));
    expect(cache.bytes).toBe(40);
    cache.forget(1);
    expect(cache.bytes).toBe(10);
    expect(cache.take(3, 2)?.byteLength).toBe(10);
    expect(() => new ShedLevelCache(-1)).toThrow(expect.objectContaining({ code: 'invalid-size' }));
  });
});
