import { Mesh, MeshBasicMaterial, PerspectiveCamera, PlaneGeometry, Scene } from 'three';
import { describe, expect, it } from 'vitest';
import { TextureStreamingSystem } from '../../../src/three/streamed/texture-streaming-system';
import { CountingSource, fakeWebGl2Renderer as fakeRenderer } from '../support/fake-webgl2-renderer';

const SIZES = [2048, 2048, 1024, 1024, 1024, 512, 512, 256];

/** A row of planes, one texture each, at several distances (so several needs and importances). */
function world(budgetBytes: number, shedLevelCacheBytes?: number) {
  const loads = { bytes: 0, levels: 0 };
  const streaming = new TextureStreamingSystem(fakeRenderer(), { budgetBytes, shedLevelCacheBytes });
  const scene = new Scene();
  const camera = new PerspectiveCamera(60, 1280 / 720, 0.1, 100);
  camera.position.set(0, 0, 2);
  camera.lookAt(0, 0, 0);
  SIZES.forEach((size, i) => {
    const texture = streaming.add(new CountingSource(size, size, loads), { name: `t${i}` });
    const mesh = new Mesh(new PlaneGeometry(2, 2), new MeshBasicMaterial());
    mesh.position.set((i - 3.5) * 0.8, (i % 2) - 0.5, -i * 0.5);
    scene.add(mesh);
    streaming.attach(mesh, texture);
  });
  scene.updateMatrixWorld();
  camera.updateMatrixWorld();
  return { streaming, scene, camera, loads };
}

/** Runs frames (letting loads resolve in between) until `whenSettled` resolves; its frame, or -1. */
async function settle(w: ReturnType<typeof world>, maxFrames = 400): Promise<number> {
  let settledAt = -1;
  void w.streaming.whenSettled().then((frame) => {
    settledAt = frame;
  });
  for (let i = 0; i < maxFrames && settledAt < 0; i++) {
    w.streaming.update(w.camera, w.scene);
    await new Promise((resolve) => setTimeout(resolve, 0));
  }
  return settledAt;
}

describe('TextureStreamingSystem below the view need', () => {
  it('settles at a quarter of the need within 1.1x the unconstrained download, and whenSettled resolves', async () => {
    const free = world(256 << 20);
    const freeFrame = await settle(free);
    expect(freeFrame).toBeGreaterThan(0);
    expect(free.streaming.isSettled).toBe(true);
    const need = free.streaming.budget.liveBytes;
    free.streaming.dispose();

    const budgetBytes = Math.floor(need / 4);
    const tight = world(budgetBytes);
    const settledAt = await settle(tight);
    expect(settledAt, 'whenSettled resolved').toBeGreaterThan(0);
    expect(tight.streaming.isSettled).toBe(true);
    expect(tight.loads.bytes).toBeLessThanOrEqual(1.1 * free.loads.bytes);
    expect(tight.streaming.budget.peakBytes).toBeLessThanOrEqual(budgetBytes);
    // It stays settled: nothing more is loaded while the view holds still.
    const loaded = tight.loads.bytes;
    for (let i = 0; i < 100; i++) {
      tight.streaming.update(tight.camera, tight.scene);
      await new Promise((resolve) => setTimeout(resolve, 0));
    }
    expect(tight.loads.bytes).toBe(loaded);
    expect(tight.streaming.isSettled).toBe(true);
    tight.streaming.dispose();
  });

  it('grows back from the shed level cache without loading from the source', async () => {
    const w = world(256 << 20, 64 << 20);
    await settle(w);
    const need = w.streaming.budget.liveBytes;
    const loadedAtNeed = w.loads.bytes;
    // Cut the budget to a quarter: the planner sheds levels into the CPU cache.
    w.streaming.budget.setBudget(Math.floor(need / 4));
    expect(await settle(w)).toBeGreaterThan(0);
    expect(w.streaming.stats().shedLevelBytes).toBeGreaterThan(0);
    expect(w.streaming.budget.liveBytes).toBeLessThanOrEqual(Math.floor(need / 4));
    // Room returns: every texture grows back to the need, from memory.
    w.streaming.budget.setBudget(256 << 20);
    expect(await settle(w)).toBeGreaterThan(0);
    expect(w.streaming.budget.liveBytes).toBe(need);
    expect(w.loads.bytes).toBe(loadedAtNeed);
    expect(w.streaming.stats().shedLevelBytes).toBe(0);
    w.streaming.dispose();

    // Without the cache the same cut and return loads the shed levels again.
    const uncached = world(256 << 20, 0);
    await settle(uncached);
    uncached.streaming.budget.setBudget(Math.floor(need / 4));
    await settle(uncached);
    uncached.streaming.budget.setBudget(256 << 20);
    await settle(uncached);
    expect(uncached.loads.bytes).toBeGreaterThan(loadedAtNeed);
    uncached.streaming.dispose();
  });

  it('rejects whenSettled on dispose', async () => {
    const w = world(256 << 20);
    const waiting = w.streaming.whenSettled();
    w.streaming.dispose();
    await expect(waiting).rejects.toMatchObject({ code: 'disposed' });
  });
});
