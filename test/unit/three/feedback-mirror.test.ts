import { DataTexture, DoubleSide } from 'three';
import { positionLocal, vec4 } from 'three/tsl';
import { MeshBasicNodeMaterial, MeshStandardMaterial, NodeMaterial } from 'three/webgpu';
import { describe, expect, it } from 'vitest';
import { discardsPixels, syncMirror, syncMirrorState } from '../../../src/three/feedback/feedback-mirror';

describe('feedback mirrors', () => {
  it('see which materials discard pixels', () => {
    const plain = new MeshBasicNodeMaterial();
    expect(discardsPixels(plain)).toBe(false);
    expect(discardsPixels(new MeshStandardMaterial({ alphaTest: 0.5 }))).toBe(true);
    const masked = new MeshBasicNodeMaterial();
    masked.maskNode = positionLocal.x.greaterThan(0);
    expect(discardsPixels(masked)).toBe(true);
  });

  it('write through fragmentNode unless they must discard, then through outputNode with the alpha inputs', () => {
    const user = new MeshBasicNodeMaterial();
    user.positionNode = positionLocal.add(1);
    const mirror = new NodeMaterial();
    const output = vec4(0.5);
    syncMirror(user, mirror, output);
    expect(mirror.positionNode).toBe(user.positionNode);
    expect(mirror.fragmentNode).toBe(output);
    expect(mirror.outputNode).toBeNull();
    expect(mirror.alphaTest).toBe(0);

    const alphaMap = new DataTexture();
    user.alphaMap = alphaMap;
    user.alphaTest = 0.4;
    syncMirror(user, mirror, output);
    expect(mirror.fragmentNode).toBeNull();
    expect(mirror.outputNode).toBe(output);
    expect(mirror.alphaTest).toBe(0.4);
    expect((mirror as unknown as { alphaMap: unknown }).alphaMap).toBe(alphaMap);

    // Back to opaque: the alpha inputs go, so the mirror no longer samples the user's textures.
    user.alphaTest = 0;
    user.positionNode = null;
    syncMirror(user, mirror, output);
    expect(mirror.positionNode).toBeNull();
    expect((mirror as unknown as { alphaMap: unknown }).alphaMap).toBeNull();
    expect(mirror.fragmentNode).toBe(output);
  });

  it('copy per-draw state, and write no depth for transparent materials', () => {
    const user = new MeshBasicNodeMaterial({ side: DoubleSide, opacity: 0.3, transparent: true });
    const mirror = new NodeMaterial();
    syncMirrorState(user, mirror);
    expect(mirror.side).toBe(DoubleSide);
    expect(mirror.opacity).toBe(0.3);
    expect(mirror.depthWrite).toBe(false);
    user.transparent = false;
    syncMirrorState(user, mirror);
    expect(mirror.depthWrite).toBe(true);
  });
});
