import { afterEach, describe, expect, it, vi } from 'vitest';
import { TextureBudget } from '../../../src/core/budget/texture-budget';
import { TextureStreamingSystem } from '../../../src/three/streamed/texture-streaming-system';
import { ownSystemRuntime } from '../../../src/three/tessera-runtime';
import { CountingSource, fakeWebGl2Renderer } from '../support/fake-webgl2-renderer';

afterEach(() => {
  vi.restoreAllMocks();
});

describe('the runtime a system makes for itself', () => {
  it('is made around the deprecated shared budget, not beside it', () => {
    vi.spyOn(console, 'warn').mockImplementation(() => {});
    const budget = new TextureBudget({ budgetBytes: 64 << 20 });
    const streaming = new TextureStreamingSystem(fakeWebGl2Renderer(), { budget });
    // One budget: the system's, its runtime's and the one given are the same object.
    expect(streaming.runtime.budget).toBe(budget);
    expect(streaming.budget).toBe(budget);
    // What the system reserves (its placeholders) is in the given budget.
    streaming.add(new CountingSource(256, 256, { bytes: 0, levels: 0 }), { name: 'one' });
    expect(budget.liveBytes).toBeGreaterThan(0);
    streaming.dispose();
    expect(budget.liveBytes).toBe(0);
    // Disposing the system (and its own runtime) leaves the caller's budget usable.
    const handle = budget.reserve('streamed', 1024);
    expect(budget.liveBytes).toBe(1024);
    budget.release(handle);
  });

  it('makes a budget of budgetBytes when given none', () => {
    const streaming = new TextureStreamingSystem(fakeWebGl2Renderer(), { budgetBytes: 32 << 20 });
    expect(streaming.budget).toBe(streaming.runtime.budget);
    expect(streaming.runtime.budget.budgetBytes).toBe(32 << 20);
    streaming.dispose();
  });

  it('adopts the given budget whatever budgetBytes says, and keeps the transcoder options', () => {
    const budget = new TextureBudget({ budgetBytes: 8 << 20 });
    const runtime = ownSystemRuntime(1 << 20, { budget, transcodeWorkers: 1 });
    expect(runtime.budget).toBe(budget);
    runtime.dispose();
    const fresh = ownSystemRuntime(1 << 20, {});
    expect(fresh.budget).not.toBe(budget);
    expect(fresh.budget.budgetBytes).toBe(1 << 20);
    fresh.dispose();
  });
});
