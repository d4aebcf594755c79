import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { IntrusiveList } from '../../../src/core/structures/intrusive-list';
import { PageIndexMap } from '../../../src/core/structures/page-index-map';

describe('PageIndexMap', () => {
  it('property: behaves as a Map under random set/delete (backward-shift deletion)', () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(fc.boolean(), fc.nat(40), fc.nat(1000)), { maxLength: 300 }), (ops) => {
        const map = new PageIndexMap(48);
        const ref = new Map<number, number>();
        for (const [isSet, k, v] of ops) {
          const key = (k * 0x01001001) >>> 0; // spread ids like real page ids
          if (isSet) {
            expect(map.set(key, v)).toBe(true);
            ref.set(key, v);
          } else {
            map.delete(key);
            ref.delete(key);
          }
          expect(map.size).toBe(ref.size);
        }
        for (let k = 0; k <= 40; k++) {
          const key = (k * 0x01001001) >>> 0;
          expect(map.get(key)).toBe(ref.get(key) ?? -1);
        }
      }),
    );
  });

  it('refuses keys beyond its capacity', () => {
    const map = new PageIndexMap(2);
    expect(map.set(1, 1)).toBe(true);
    expect(map.set(2, 2)).toBe(true);
    expect(map.set(3, 3)).toBe(false);
    expect(map.set(2, 5)).toBe(true);
    expect(map.get(2)).toBe(5);
  });
});

describe('IntrusiveList', () => {
  it('keeps insertion order and removes in O(1)', () => {
    const list = new IntrusiveList(8);
    for (const id of [3, 1, 4, 5]) list.pushBack(id);
    list.remove(4);
    list.pushBack(3);
    const order: number[] = [];
    for (let id = list.head; id >= 0; id = list.next(id)) order.push(id);
    expect(order).toEqual([1, 5, 3]);
    expect(list.popFront()).toBe(1);
    expect(list.size).toBe(2);
    list.clear();
    expect(list.head).toBe(-1);
    expect(list.tail).toBe(-1);
  });
});
