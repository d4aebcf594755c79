import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { IndexedMaxHeap, IndexedMinHeap } from '../../../src/core/structures/indexed-heap';

/** One step of a random heap history; ids up to 80 with an initial capacity of 16 force growth. */
type Op =
  | { kind: 'set'; id: number; key: number }
  | { kind: 'delete'; id: number }
  | { kind: 'pop' }
  | { kind: 'clear' };

const opArb: fc.Arbitrary<Op> = fc.oneof(
  {
    weight: 6,
    arbitrary: fc.record({
      kind: fc.constant('set' as const),
      id: fc.nat(80),
      key: fc.integer({ min: -50, max: 50 }),
    }),
  },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('delete' as const), id: fc.nat(80) }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('pop' as const) }) },
  { weight: 1, arbitrary: fc.constant({ kind: 'clear' as const }) },
);

interface HeapUnderTest {
  readonly size: number;
  has(id: number): boolean;
  key(id: number): number;
  peek(): number;
  peekKey(): number;
  set(id: number, key: number): void;
  pop(): number;
  delete(id: number): void;
  clear(): void;
}

/**
 * Replays `ops` on `heap` and on a reference array kept sorted by `order`; after every step the
 * size, membership, keys and top key must agree, and a pop must return an id holding the top key.
 */
function checkAgainstSortedArray(
  heap: HeapUnderTest,
  ops: Op[],
  order: (a: number, b: number) => number,
): void {
  let ref: { id: number; key: number }[] = [];
  const sortRef = () => ref.sort((a, b) => order(a.key, b.key));
  for (const op of ops) {
    if (op.kind === 'set') {
      heap.set(op.id, op.key);
      ref = ref.filter((e) => e.id !== op.id);
      ref.push({ id: op.id, key: op.key });
      sortRef();
    } else if (op.kind === 'delete') {
      heap.delete(op.id);
      ref = ref.filter((e) => e.id !== op.id);
    } else if (op.kind === 'pop') {
      const id = heap.pop();
      if (ref.length === 0) {
        expect(id).toBe(-1);
      } else {
        const top = ref[0].key;
        const popped = ref.find((e) => e.id === id);
        expect(popped?.key).toBe(top);
        ref = ref.filter((e) => e.id !== id);
      }
    } else {
      heap.clear();
      ref = [];
    }
    expect(heap.size).toBe(ref.length);
    if (ref.length > 0) {
      expect(heap.peekKey()).toBe(ref[0].key);
      expect(heap.key(heap.peek())).toBe(ref[0].key);
    } else {
      expect(heap.peek()).toBe(-1);
    }
    for (const e of ref) expect(heap.key(e.id)).toBe(e.key);
  }
  for (let id = 0; id <= 80; id++) expect(heap.has(id)).toBe(ref.some((e) => e.id === id));
  // Draining yields the reference order (ids may differ only among equal keys).
  const drained: number[] = [];
  while (heap.size > 0) {
    const id = heap.pop();
    drained.push(ref.find((e) => e.id === id)!.key);
  }
  expect(drained).toEqual(ref.map((e) => e.key));
  expect(heap.pop()).toBe(-1);
}

const variants = [
  { name: 'IndexedMinHeap', make: () => new IndexedMinHeap(16), order: (a: number, b: number) => a - b },
  { name: 'IndexedMaxHeap', make: () => new IndexedMaxHeap(16), order: (a: number, b: number) => b - a },
];

describe.each(variants)('$name', ({ make, order }) => {
  it('property: matches a sorted array under random set/re-key/delete/pop/clear, growing past capacity', () => {
    fc.assert(
      fc.property(fc.array(opArb, { maxLength: 300 }), (ops) => {
        checkAgainstSortedArray(make(), ops, order);
      }),
    );
  });
});

describe('IndexedMinHeap', () => {
  it('re-keys an id up and down', () => {
    const heap = new IndexedMinHeap(4);
    heap.set(0, 5);
    heap.set(1, 3);
    heap.set(2, 4);
    heap.set(1, 9);
    expect(heap.peek()).toBe(2);
    heap.set(0, -1);
    expect([heap.pop(), heap.pop(), heap.pop()]).toEqual([0, 2, 1]);
  });
});

describe('IndexedMaxHeap', () => {
  it('pops the same ids, in the same order, as a min-heap given negated keys', () => {
    fc.assert(
      fc.property(fc.array(opArb, { maxLength: 200 }), (ops) => {
        const max = new IndexedMaxHeap(8);
        const min = new IndexedMinHeap(8);
        for (const op of ops) {
          if (op.kind === 'set') {
            max.set(op.id, op.key);
            min.set(op.id, -op.key);
          } else if (op.kind === 'delete') {
            max.delete(op.id);
            min.delete(op.id);
          } else if (op.kind === 'pop') {
            expect(max.pop()).toBe(min.pop());
          } else {
            max.clear();
            min.clear();
          }
        }
        while (min.size > 0) expect(max.pop()).toBe(min.pop());
        expect(max.size).toBe(0);
      }),
    );
  });
});
