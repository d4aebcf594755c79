import { DataTexture, type Material } from 'three';
import { uv } from 'three/tsl';
import { MeshBasicNodeMaterial, type NodeMaterial, type WebGPURenderer } from 'three/webgpu';
import { describe, expect, it } from 'vitest';
import { FeedbackPass } from '../../../src/three/feedback/feedback-pass';
import type { SampledVirtualTexture } from '../../../src/three/sampling/virtual-texture-graph';
import { collectGarbage } from '../support/collect-garbage';

// The render-object hook is all the pass touches at construction; nothing renders here.
const renderer = {
  renderObject() {},
  getRenderObjectFunction: () => null,
  setRenderObjectFunction() {},
} as unknown as WebGPURenderer;

const vt = {
  id: 1,
  widthPages: 4,
  heightPages: 4,
  mipCount: 3,
  tileSize: 128,
  border: 4,
  pageTableIndirection: new DataTexture(),
  pageTableAtlas: new DataTexture(),
  pageTableGeometry: { tailMip: 0, dense: false },
  contentWidth: 480,
  contentHeight: 480,
  context: { maxAnisotropy: 1, feedbackLodOffset: 3, mipBias: 0 },
  layerIndex: () => 0,
} as unknown as SampledVirtualTexture;

function requestOf(pass: FeedbackPass, material: Material): NodeMaterial | undefined {
  const requests = (pass as unknown as { requests: WeakMap<Material, { material: NodeMaterial }> }).requests;
  return requests.get(material)?.material;
}

function countDisposals(material: NodeMaterial): { count: number } {
  const seen = { count: 0 };
  material.addEventListener('dispose', () => seen.count++);
  return seen;
}

describe('FeedbackPass request materials', () => {
  it('are not kept alive once the user material is gone', async () => {
    const pass = new FeedbackPass(renderer, 8, 8);
    let material: MeshBasicNodeMaterial | null = new MeshBasicNodeMaterial();
    pass.register(material, vt, { uv: uv(), maxU: 1, maxV: 1 });
    const request = new WeakRef(requestOf(pass, material)!);
    material = null;
    await collectGarbage();
    expect(request.deref(), 'the pass kept the request material alive').toBeUndefined();
    pass.dispose();
  });

  it('are disposed with the user material, and made again if it is registered again', () => {
    const pass = new FeedbackPass(renderer, 8, 8);
    const material = new MeshBasicNodeMaterial();
    pass.register(material, vt, { uv: uv(), maxU: 1, maxV: 1 });
    const first = requestOf(pass, material)!;
    const disposals = countDisposals(first);
    material.dispose();
    expect(disposals.count).toBe(1);
    expect(requestOf(pass, material)).toBeUndefined();
    pass.register(material, vt, { uv: uv(), maxU: 1, maxV: 1 });
    expect(requestOf(pass, material)).not.toBe(first);
    pass.dispose();
  });

  it('alive at dispose() are disposed once, and the user material is no longer watched', () => {
    const pass = new FeedbackPass(renderer, 8, 8);
    const material = new MeshBasicNodeMaterial();
    pass.register(material, vt, { uv: uv(), maxU: 1, maxV: 1 });
    const disposals = countDisposals(requestOf(pass, material)!);
    pass.dispose();
    expect(disposals.count).toBe(1);
    material.dispose();
    expect(disposals.count).toBe(1);
  });
});
