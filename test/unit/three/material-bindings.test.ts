import { MeshBasicMaterial, type Texture } from 'three';
import type { TextureNode } from 'three/webgpu';
import { describe, expect, it } from 'vitest';
import { MaterialBindings } from '../../../src/three/streamed/sampling/material-bindings';
import { CpuLevelCache } from '../../../src/three/streamed/uploads/cpu-level-cache';
import { collectGarbage } from '../support/collect-garbage';

const first = { name: 'first' } as Texture;
const second = { name: 'second' } as Texture;

describe('MaterialBindings', () => {
  it('swaps the bound texture into every material property and node', () => {
    const bindings = new MaterialBindings();
    const material = new MeshBasicMaterial();
    const node = { value: null } as unknown as TextureNode;
    bindings.addProperty(material, 'map', first);
    bindings.addProperty(material, 'map', first);
    bindings.addNode(node, first);
    expect(bindings.size).toBe(2);
    bindings.bind(second);
    expect(material.map).toBe(second);
    expect(node.value).toBe(second);
    bindings.removeMaterial(material);
    bindings.bind(first);
    expect(material.map).toBe(second);
    expect(node.value).toBe(first);
  });

  it('does not keep a dropped material or node alive, and prunes it on the next bind', async () => {
    const bindings = new MaterialBindings();
    const kept = new MeshBasicMaterial();
    bindings.addProperty(kept, 'map', first);
    let dropped: MeshBasicMaterial | null = new MeshBasicMaterial();
    const droppedRef = new WeakRef(dropped);
    bindings.addProperty(dropped, 'map', first);
    bindings.addNode({ value: null } as unknown as TextureNode, first);
    dropped = null;
    await collectGarbage();
    expect(droppedRef.deref(), 'the bindings held the material').toBeUndefined();
    bindings.bind(second);
    expect(bindings.size).toBe(1);
    expect(kept.map).toBe(second);
  });
});

describe('CpuLevelCache', () => {
  it('drops copies finer than the finest kept level', () => {
    const cache = new CpuLevelCache(4);
    for (let level = 0; level < 4; level++) cache.set(level, new Uint8Array(4));
    cache.dropFinerThan(2);
    expect([0, 1, 2, 3].map((level) => cache.has(level))).toEqual([false, false, true, true]);
    cache.clear();
    expect(cache.get(3)).toBeNull();
  });
});
