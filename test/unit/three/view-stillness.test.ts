import {
  Bone,
  BoxGeometry,
  Float32BufferAttribute,
  InstancedMesh,
  type Material,
  Matrix4,
  Mesh,
  MeshBasicMaterial,
  PerspectiveCamera,
  Scene,
  Skeleton,
  SkinnedMesh,
  Uint16BufferAttribute,
} from 'three';
import { describe, expect, it } from 'vitest';
import { ViewStillness } from '../../../src/three/feedback/view-stillness';
import { probeAllocations } from '../support/allocation-probe';

/** A scene with one mesh the pass draws (`drawnMaterial`) and one it does not. */
function setup() {
  const scene = new Scene();
  const camera = new PerspectiveCamera(60, 16 / 9, 0.1, 100);
  camera.position.set(0, 1, 5);
  const drawnMaterial = new MeshBasicMaterial();
  const plainMaterial = new MeshBasicMaterial();
  const drawnMesh = new Mesh(new BoxGeometry(), drawnMaterial);
  const plainMesh = new Mesh(new BoxGeometry(), plainMaterial);
  scene.add(drawnMesh, plainMesh);
  const drawn = (material: Material) => material === drawnMaterial;
  const stillness = new ViewStillness();
  const still = () => stillness.update(scene, camera, 80, 45, drawn);
  // The first frame always counts as a change; the second sees the same view.
  expect(still()).toBe(false);
  expect(still()).toBe(true);
  return { scene, camera, drawnMaterial, drawnMesh, plainMesh, stillness, still, drawn };
}

describe('ViewStillness', () => {
  it('counts still frames and sees camera moves, projection changes and layers', () => {
    const { camera, stillness, still } = setup();
    expect(still()).toBe(true);
    expect(stillness.stillFrames).toBe(2);
    // A position set since the last render: the check updates world matrices as render() would.
    camera.position.x += 0.001;
    expect(still()).toBe(false);
    expect(stillness.stillFrames).toBe(0);
    expect(still()).toBe(true);
    camera.fov = 50;
    camera.updateProjectionMatrix();
    expect(still()).toBe(false);
    camera.layers.enable(3);
    expect(still()).toBe(false);
    expect(still()).toBe(true);
  });

  it('sees the target size, markChanged, and only the meshes the pass draws', () => {
    const { scene, camera, drawnMesh, plainMesh, stillness, still, drawn } = setup();
    expect(stillness.update(scene, camera, 160, 90, drawn)).toBe(false);
    expect(still()).toBe(false);
    stillness.markChanged();
    expect(still()).toBe(false);
    expect(still()).toBe(true);
    // A mesh the pass does not draw may move freely.
    plainMesh.position.y = 3;
    plainMesh.material.needsUpdate = true;
    expect(still()).toBe(true);
    drawnMesh.rotation.z = 0.5;
    expect(still()).toBe(false);
    drawnMesh.visible = false;
    expect(still()).toBe(false);
    expect(still()).toBe(true);
    drawnMesh.visible = true;
    expect(still()).toBe(false);
    // A plain mesh switching to a drawn material enters the fingerprint.
    plainMesh.material = drawnMesh.material;
    expect(still()).toBe(false);
    // Added or removed, a drawn mesh changes the view.
    const extra = new Mesh(new BoxGeometry(), drawnMesh.material);
    scene.add(extra);
    expect(still()).toBe(false);
    scene.remove(extra);
    expect(still()).toBe(false);
    expect(still()).toBe(true);
  });

  it('sees material updates, geometry edits, morphs and instance matrices', () => {
    const { scene, drawnMaterial, drawnMesh, still } = setup();
    drawnMaterial.needsUpdate = true;
    expect(still()).toBe(false);
    drawnMaterial.transparent = true;
    expect(still()).toBe(false);
    drawnMesh.geometry.attributes.position.needsUpdate = true;
    expect(still()).toBe(false);
    drawnMesh.geometry = new BoxGeometry(2, 2, 2);
    expect(still()).toBe(false);
    expect(still()).toBe(true);
    drawnMesh.morphTargetInfluences = [0];
    expect(still()).toBe(false);
    expect(still()).toBe(true);
    drawnMesh.morphTargetInfluences[0] = 0.5;
    expect(still()).toBe(false);
    const instanced = new InstancedMesh(new BoxGeometry(), drawnMaterial, 4);
    scene.add(instanced);
    expect(still()).toBe(false);
    expect(still()).toBe(true);
    instanced.setMatrixAt(2, new Matrix4().makeTranslation(1, 0, 0));
    instanced.instanceMatrix.needsUpdate = true;
    expect(still()).toBe(false);
    expect(still()).toBe(true);
    instanced.count = 3;
    expect(still()).toBe(false);
  });

  it('treats a skinned mesh whose bones move as moving, and a still one as still', () => {
    const { scene, drawnMaterial, still } = setup();
    const geometry = new BoxGeometry();
    const count = geometry.attributes.position.count;
    geometry.setAttribute('skinIndex', new Uint16BufferAttribute(new Uint16Array(count * 4), 4));
    geometry.setAttribute(
      'skinWeight',
      new Float32BufferAttribute(new Float32Array(count * 4).fill(0.25), 4),
    );
    const root = new Bone();
    const tip = new Bone();
    root.add(tip);
    const skinned = new SkinnedMesh(geometry, drawnMaterial);
    skinned.add(root);
    skinned.bind(new Skeleton([root, tip]));
    scene.add(skinned);
    expect(still()).toBe(false);
    expect(still()).toBe(true);
    // Animating a bone (as an AnimationMixer does) moves the surface: the view is not still.
    tip.rotation.x = 0.3;
    expect(still()).toBe(false);
    expect(still()).toBe(true);
  });

  it('allocates nothing per frame once grown to the scene', async () => {
    const { scene, drawnMaterial, camera, still } = setup();
    for (let i = 0; i < 50; i++) {
      const mesh = new Mesh(new BoxGeometry(), drawnMaterial);
      mesh.position.set(i % 20, 0, Math.floor(i / 20));
      scene.add(mesh);
    }
    // Warm up: the first calls grow the array and let the JIT settle (its code and inline caches
    // live on the heap too).
    for (let i = 0; i < 5_000; i++) still();
    // 16 bytes per frame would grow the heap by 160 KB (or force a scavenge).
    const probe = await probeAllocations(10_000, (i) => {
      camera.position.x = i % 2;
      still();
    });
    expect(probe.heapGrowthBytes).toBeLessThan(64 * 1024);
  });
});
