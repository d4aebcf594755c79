import { describe, expect, it } from 'vitest';
import { TypedEmitter } from '../../../src/core/structures/typed-emitter';

interface Events {
  tick: number;
}

describe('TypedEmitter', () => {
  it('calls the next listener when one removes itself during emit', () => {
    const emitter = new TypedEmitter<Events>();
    const calls: string[] = [];
    const offFirst = emitter.on('tick', () => {
      calls.push('first');
      offFirst();
    });
    emitter.on('tick', () => calls.push('second'));
    emitter.on('tick', () => calls.push('third'));
    emitter.emit('tick', 1);
    expect(calls).toEqual(['first', 'second', 'third']);
    calls.length = 0;
    emitter.emit('tick', 2);
    expect(calls).toEqual(['second', 'third']);
  });

  it('still calls a listener removed by an earlier one in the same emit, not in the next', () => {
    const emitter = new TypedEmitter<Events>();
    const calls: string[] = [];
    const second = (): void => {
      calls.push('second');
    };
    emitter.on('tick', () => {
      calls.push('first');
      emitter.off('tick', second);
    });
    emitter.on('tick', second);
    emitter.emit('tick', 1);
    emitter.emit('tick', 2);
    expect(calls).toEqual(['first', 'second', 'first']);
  });

  it('first calls a listener added during emit on the next emit', () => {
    const emitter = new TypedEmitter<Events>();
    const seen: number[] = [];
    let added = false;
    emitter.on('tick', () => {
      if (added) return;
      added = true;
      emitter.on('tick', (n) => seen.push(n));
    });
    emitter.emit('tick', 1);
    emitter.emit('tick', 2);
    expect(seen).toEqual([2]);
  });

  it('reports listeners and forgets them on off and clear', () => {
    const emitter = new TypedEmitter<Events>();
    const listener = (): void => {};
    expect(emitter.has('tick')).toBe(false);
    const off = emitter.on('tick', listener);
    expect(emitter.has('tick')).toBe(true);
    off();
    off();
    expect(emitter.has('tick')).toBe(false);
    emitter.on('tick', listener);
    emitter.clear();
    expect(emitter.has('tick')).toBe(false);
  });
});
