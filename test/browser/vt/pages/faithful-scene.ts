import {
  BatchedMesh,
  Bone,
  DataTexture,
  DoubleSide,
  Float32BufferAttribute,
  InstancedMesh,
  Matrix4,
  Mesh,
  type Object3D,
  OrthographicCamera,
  PlaneGeometry,
  Scene,
  Skeleton,
  SkinnedMesh,
  Uint16BufferAttribute,
} from 'three';
import { positionLocal, uv, vec3 } from 'three/tsl';
import { MeshBasicNodeMaterial } from 'three/webgpu';
import { NO_REQUEST } from '../../../../src/core/vt/page-id';
import { virtualTexture } from '../../../../src/three/sampling/virtual-texture-node';
import { VirtualTextureSystem } from '../../../../src/three/virtual-texture-system';
import { createTestRenderer, requestedBackend } from '../../support/renderer';
import { TestTileSource } from '../test-content';

/**
 * Test page for a faithful feedback pass (feedback-faithful.spec.ts): one scene per `?case=`, seen
 * from straight above by an orthographic camera framing the world square x, z in [0, 1]
 * (screen right = +x, screen top = z 0). Virtual texture 0 (`a`) and 1 (`b`) are 16 x 16 pages.
 * Exposes `globalThis.faithful` with {@link grid}: the latest feedback as vt ids per feedback
 * pixel, rows from the top, -1 where nothing was requested.
 */
const params = new URLSearchParams(location.search);
const which = params.get('case') ?? 'displaced';
const size = 128;
const feedbackScale = 8;
const fw = size / feedbackScale;

const renderer = await createTestRenderer(size, size);
const isWebGPU = requestedBackend() === 'webgpu';
const system = new VirtualTextureSystem(renderer, {
  budgetBytes: 16 * 1024 * 1024,
  feedbackScale,
  // ?feedback=main-pass|separate-pass: where requests are written (default: the system's).
  feedbackMode: (params.get('feedback') ?? undefined) as 'main-pass' | 'separate-pass' | undefined,
});
const a = system.add(new TestTileSource({ widthPages: 16, heightPages: 16 }), { name: 'a' });
const b = system.add(new TestTileSource({ widthPages: 16, heightPages: 16 }), { name: 'b' });
const vtMaterial = (vt: typeof a) => {
  const material = new MeshBasicNodeMaterial({ side: DoubleSide });
  material.colorNode = virtualTexture(vt, uv(), { uvSpace: 'virtual' });
  return material;
};

const scene = new Scene();
/** A horizontal (XZ) plane of `w` x `d` centred at (x, y, z). */
function flat(w: number, d: number, x: number, y: number, z: number, segments = 1): PlaneGeometry {
  return new PlaneGeometry(w, d, segments, 1).rotateX(-Math.PI / 2).translate(x, y, z);
}
/** The plane of virtual texture `a` over the whole view. */
const addGround = () => scene.add(new Mesh(flat(1, 1, 0.5, 0, 0.5), vtMaterial(a)));
/** Calls of the counted mesh's and of the scene's onBeforeRender / onAfterRender. */
const calls = { before: 0, after: 0, sceneBefore: 0, sceneAfter: 0 };

if (which === 'displaced') {
  // A plane over x in [0, 0.5] that its positionNode moves to x in [0.5, 1].
  const material = vtMaterial(a);
  material.positionNode = positionLocal.add(vec3(0.5, 0, 0));
  scene.add(new Mesh(flat(0.5, 1, 0.25, 0, 0.5), material));
} else if (which === 'instanced') {
  // Three 0.125-wide strips at x = 0.2, 0.5, 0.8 from one instanced mesh (geometry at x = 0).
  const mesh = new InstancedMesh(flat(0.125, 1, 0, 0, 0.5), vtMaterial(a), 3);
  [0.2, 0.5, 0.8].forEach((x, i) => {
    mesh.setMatrixAt(i, new Matrix4().makeTranslation(x, 0, 0));
  });
  scene.add(mesh);
} else if (which === 'batched') {
  // The same three strips as instances of one geometry in a BatchedMesh.
  const strip = flat(0.125, 1, 0, 0, 0.5);
  const mesh = new BatchedMesh(
    3,
    strip.getAttribute('position').count,
    strip.getIndex()?.count,
    vtMaterial(a),
  );
  const id = mesh.addGeometry(strip);
  [0.2, 0.5, 0.8].forEach((x) => {
    mesh.setMatrixAt(mesh.addInstance(id), new Matrix4().makeTranslation(x, 0, 0));
  });
  scene.add(mesh);
} else if (which === 'skinned') {
  // A strip over x in [0, 1], z in [0, 0.25]; its right half follows bone 1, posed 0.5 down in z.
  const geometry = flat(1, 0.25, 0.5, 0, 0.125, 4);
  const position = geometry.getAttribute('position');
  const indices: number[] = [];
  const weights: number[] = [];
  for (let i = 0; i < position.count; i++) {
    indices.push(position.getX(i) > 0.5 ? 1 : 0, 0, 0, 0);
    weights.push(1, 0, 0, 0);
  }
  geometry.setAttribute('skinIndex', new Uint16BufferAttribute(indices, 4));
  geometry.setAttribute('skinWeight', new Float32BufferAttribute(weights, 4));
  const root = new Bone();
  const child = new Bone();
  child.position.x = 0.5;
  root.add(child);
  const mesh = new SkinnedMesh(geometry, vtMaterial(a));
  mesh.add(root);
  mesh.bind(new Skeleton([root, child]));
  child.position.z = 0.5;
  scene.add(mesh);
} else if (which === 'alpha-test') {
  // Over the ground, a quad of texture b whose alpha map is 0 on its left half, alpha-tested at 0.5.
  addGround();
  const alpha = new DataTexture(new Uint8Array([0, 0, 0, 255, 255, 255, 255, 255]), 2, 1);
  alpha.needsUpdate = true;
  // ?occluder=1: a plain (non-virtual-texture) quad instead, which the feedback does not draw.
  const material =
    params.get('occluder') === '1' ? new MeshBasicNodeMaterial({ side: DoubleSide }) : vtMaterial(b);
  material.alphaMap = alpha;
  material.alphaTest = 0.5;
  scene.add(new Mesh(flat(1, 1, 0.5, 0.1, 0.5), material));
} else if (which === 'transparent') {
  // Over the ground: a plain transparent quad on the left half, a transparent one of b on the right.
  addGround();
  const plain = new MeshBasicNodeMaterial({ transparent: true, opacity: 0.5, side: DoubleSide });
  scene.add(new Mesh(flat(0.5, 1, 0.25, 0.1, 0.5), plain));
  const textured = vtMaterial(b);
  textured.transparent = true;
  textured.opacity = 0.5;
  scene.add(new Mesh(flat(0.5, 1, 0.75, 0.1, 0.5), textured));
} else if (which === 'callbacks') {
  addGround();
  const counted: Object3D = scene.children[0];
  counted.onBeforeRender = () => void calls.before++;
  counted.onAfterRender = () => void calls.after++;
  scene.onBeforeRender = () => void calls.sceneBefore++;
  scene.onAfterRender = () => void calls.sceneAfter++;
}

const camera = new OrthographicCamera(-0.5, 0.5, 0.5, -0.5, 0.1, 10);
camera.position.set(0.5, 2, 0.5);
camera.up.set(0, 0, -1);
camera.lookAt(0.5, 0, 0.5);
camera.updateProjectionMatrix();
camera.updateMatrixWorld();

let latest: { frame: number; ids: Uint32Array } | null = null;
system.events.on('feedback', ({ frame, ids }) => {
  latest = { frame, ids: ids.slice() };
});

/** One frame: the system's update (feedback pass) and the main render to the canvas. */
function step(): void {
  system.update(camera, scene);
  renderer.render(scene, camera);
}

/** Steps `frames` frames, then waits (up to 2 s) for the last one's feedback; returns its grid. */
async function run(frames: number): Promise<number[][]> {
  for (let i = 0; i < frames; i++) {
    step();
    await new Promise((resolve) => requestAnimationFrame(resolve));
  }
  const frame = system.stats().frame;
  const deadline = performance.now() + 2000;
  while (performance.now() < deadline && (latest === null || latest.frame < frame)) {
    await new Promise((resolve) => requestAnimationFrame(resolve));
  }
  return grid();
}

/** The latest feedback as vt ids (-1 = no request), rows from the top of the screen. */
function grid(): number[][] {
  const rows: number[][] = [];
  if (latest === null) return rows;
  for (let j = 0; j < fw; j++) {
    const row = isWebGPU ? j : fw - 1 - j;
    const out: number[] = [];
    for (let i = 0; i < fw; i++) {
      const id = latest.ids[row * fw + i];
      out.push(id === NO_REQUEST ? -1 : id >>> 28);
    }
    rows.push(out);
  }
  return rows;
}

Object.assign(globalThis, {
  faithful: { fw, ids: { a: a.id, b: b.id }, run, calls, frames: () => system.stats().frame },
});
document.title = 'ready';
