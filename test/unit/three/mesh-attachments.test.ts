import { DataTexture, Mesh, MeshBasicMaterial, PlaneGeometry } from 'three';
import { describe, expect, it } from 'vitest';
import type { MipPyramidSource } from '../../../src/core/streaming/mip-pyramid-source';
import { MeshAttachments } from '../../../src/three/streamed/sampling/mesh-attachments';
import { textureSampling } from '../../../src/three/streamed/sampling/texture-sampling';
import { StreamedTexture } from '../../../src/three/streamed/streamed-texture';
import { collectGarbage } from '../support/collect-garbage';

const placeholder = new DataTexture();
const source = { width: 64, height: 64, mipLevelCount: 7, format: 'rgba8unorm' } as MipPyramidSource;

function streamed(id: number): StreamedTexture {
  return new StreamedTexture(id, `t${id}`, source, 'persistent', false, placeholder, textureSampling({}));
}

describe('MeshAttachments', () => {
  it('binds the texture into the material, once per (mesh, texture), and moves a property between textures', () => {
    const attachments = new MeshAttachments();
    const a = streamed(1);
    const b = streamed(2);
    const mesh = new Mesh(new PlaneGeometry(), new MeshBasicMaterial());
    attachments.attach(mesh, a, 'map', [a, b]);
    attachments.attach(mesh, a, 'map', [a, b]);
    expect(attachments.size).toBe(1);
    expect(mesh.material.map).toBe(placeholder);
    attachments.attach(mesh, b, 'map', [a, b]);
    expect(a.bindings.size, 'b took map from a').toBe(0);
    attachments.detach(mesh);
    expect(attachments.size).toBe(0);
    expect(b.bindings.size).toBe(0);
  });

  it('does not keep a dropped mesh alive; its pair reads as dead', async () => {
    const attachments = new MeshAttachments();
    const texture = streamed(1);
    let mesh: Mesh | null = new Mesh(new PlaneGeometry(), new MeshBasicMaterial());
    attachments.attach(mesh, texture, 'map', [texture]);
    mesh = null;
    await collectGarbage();
    expect(attachments.meshAt(0), 'the attachments held the mesh').toBeUndefined();
    expect(texture.bindings.size, 'the material binding is left to prune').toBe(1);
    texture.bind(placeholder);
    expect(texture.bindings.size, 'pruned on the next bind').toBe(0);
    attachments.removeAt(0);
    expect(attachments.size).toBe(0);
  });
});
