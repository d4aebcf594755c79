import {
  BufferGeometry,
  InstancedMesh,
  InterleavedBuffer,
  InterleavedBufferAttribute,
  Matrix4,
  Mesh,
  MeshBasicMaterial,
  PerspectiveCamera,
  PlaneGeometry,
  Scene,
} from 'three';
import { describe, expect, it } from 'vitest';
import { geometryUvDensity, ScreenNeedProjector } from '../../../src/three/streamed/screen-need';

function camera(): PerspectiveCamera {
  const c = new PerspectiveCamera(60, 1, 0.1, 100);
  c.position.set(0, 0, 10);
  c.updateMatrixWorld();
  return c;
}

describe('screen need of an InstancedMesh', () => {
  it('is the need of its nearest visible instance, as if it were a separate mesh', () => {
    const geometry = new PlaneGeometry(1, 1);
    const material = new MeshBasicMaterial();
    const scene = new Scene();
    const instanced = new InstancedMesh(geometry, material, 3);
    // Far, near (scaled 2x), and one behind the camera (culled).
    instanced.setMatrixAt(0, new Matrix4().makeTranslation(0, 0, -20));
    instanced.setMatrixAt(
      1,
      new Matrix4().makeTranslation(1, 0, 4).multiply(new Matrix4().makeScale(2, 2, 2)),
    );
    instanced.setMatrixAt(2, new Matrix4().makeTranslation(0, 0, 20));
    scene.add(instanced);
    const single = new Mesh(geometry, material);
    single.position.set(1, 0, 4);
    single.scale.setScalar(2);
    scene.add(single);
    scene.updateMatrixWorld(true);
    const projector = new ScreenNeedProjector();
    projector.begin(camera(), 720);
    const px = projector.projectedPx(instanced, scene);
    const extent = projector.uvExtent;
    const alone = projector.projectedPx(single, scene);
    expect(px).toBeGreaterThan(0);
    expect(px).toBeCloseTo(alone, 6);
    expect(extent).toBeCloseTo(projector.uvExtent, 6);
    // Only the far instance left: a smaller need, not the union's bounding sphere.
    instanced.count = 1;
    const far = projector.projectedPx(instanced, scene);
    expect(far).toBeGreaterThan(0);
    expect(far).toBeLessThan(px / 3);
    // No instance in view: no need.
    instanced.setMatrixAt(0, new Matrix4().makeTranslation(0, 0, 20));
    expect(projector.projectedPx(instanced, scene)).toBe(0);
  });
});

describe('UV density of a geometry', () => {
  it('reads interleaved positions and UVs (as glTF files store them) like separate ones', () => {
    const plain = new PlaneGeometry(2, 2);
    const position = plain.getAttribute('position');
    const uv = plain.getAttribute('uv');
    // x y z u v per vertex, one buffer.
    const data = new Float32Array(position.count * 5);
    for (let i = 0; i < position.count; i++)
      data.set([position.getX(i), position.getY(i), position.getZ(i), uv.getX(i), uv.getY(i)], i * 5);
    const buffer = new InterleavedBuffer(data, 5);
    const interleaved = new BufferGeometry();
    interleaved.setAttribute('position', new InterleavedBufferAttribute(buffer, 3, 0));
    interleaved.setAttribute('uv', new InterleavedBufferAttribute(buffer, 2, 3));
    interleaved.setIndex(plain.getIndex());
    expect(geometryUvDensity(plain)).toBeCloseTo(0.5, 6);
    expect(geometryUvDensity(interleaved)).toBeCloseTo(geometryUvDensity(plain), 9);
  });
});
