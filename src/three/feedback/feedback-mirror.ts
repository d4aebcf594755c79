import type { Material } from 'three';
import type { NodeMaterial } from 'three/webgpu';

/*
 * What the feedback pass copies from a user's material onto the material it draws that mesh with
 * (a request material, or an occluder of its own), so the feedback sees the surface the main pass
 * draws: where its vertices go and which of its pixels survive.
 *
 * Instancing (InstancedMesh, BatchedMesh), skinning and morph targets need nothing here: three's
 * NodeMaterial.setupPosition applies them from the *object* being drawn, whatever its material.
 * What lives on the material is copied: `positionNode`, `vertexNode` and `displacementMap`, and
 * everything three's setupDiffuseColor reads to discard a pixel (alpha test, alpha map, opacity,
 * mask, alpha hash). The discard rule itself stays three's: a mirror that must discard leaves
 * `fragmentNode` null, so three builds its diffuse colour and discards exactly as for the user's
 * material, and writes the request through `outputNode` instead.
 */

/** The material properties the mirror reads, present or not on any given material type. */
type Loose = Record<string, unknown>;

/** Vertex-stage properties copied as they are (nodes, textures, numbers). */
const VERTEX_KEYS = [
  'positionNode',
  'vertexNode',
  'displacementMap',
  'displacementScale',
  'displacementBias',
];

/** Properties three's setupDiffuseColor reads to compute alpha and discard. */
const ALPHA_KEYS = [
  'colorNode',
  'opacityNode',
  'alphaTestNode',
  'maskNode',
  'alphaHash',
  'vertexColors',
  'map',
  'alphaMap',
  'color',
];

/** Defaults a mirror goes back to when the user's material stops having the property. */
const DEFAULTS: Loose = {
  positionNode: null,
  vertexNode: null,
  displacementMap: null,
  displacementScale: 1,
  displacementBias: 0,
  colorNode: null,
  opacityNode: null,
  alphaTestNode: null,
  maskNode: null,
  alphaHash: false,
  vertexColors: false,
  map: null,
  alphaMap: null,
  color: undefined,
};

/** True when three may discard pixels of `material` (so its mirror must discard the same ones). */
export function discardsPixels(material: Material): boolean {
  const m = material as unknown as Loose;
  return material.alphaTest > 0 || m.alphaTestNode != null || m.maskNode != null || m.alphaHash === true;
}

/**
 * Copies the vertex stage and discard inputs of `user` onto `mirror`, which writes `output` per
 * pixel, and marks it for rebuild. Call when `user.version` changed (allocates: node graphs).
 */
export function syncMirror(user: Material, mirror: NodeMaterial, output: NodeMaterial['fragmentNode']): void {
  const from = user as unknown as Loose;
  const to = mirror as unknown as Loose;
  for (const key of VERTEX_KEYS) to[key] = from[key] ?? DEFAULTS[key];
  const discards = discardsPixels(user);
  for (const key of ALPHA_KEYS) to[key] = discards ? (from[key] ?? DEFAULTS[key]) : DEFAULTS[key];
  mirror.alphaTest = discards ? user.alphaTest : 0;
  // Without a fragmentNode three runs setupDiffuseColor (and its discards) before the outputNode.
  mirror.fragmentNode = discards ? null : output;
  mirror.outputNode = discards ? output : null;
  mirror.needsUpdate = true;
}

/**
 * Per-draw state that three reads as uniforms or pipeline state, not as a rebuild: copied every
 * draw (plain assignments, no allocation). A transparent surface writes no depth in the feedback,
 * so what lies behind it still requests where it shows through.
 */
export function syncMirrorState(user: Material, mirror: NodeMaterial): void {
  mirror.side = user.side;
  mirror.opacity = user.opacity;
  mirror.depthTest = user.depthTest;
  mirror.depthWrite = user.depthWrite && !user.transparent;
  if (mirror.alphaTest > 0 && user.alphaTest > 0) mirror.alphaTest = user.alphaTest;
}
