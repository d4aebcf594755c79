import type { BufferGeometry, Camera, Material, Matrix4, Mesh, Object3D, Scene } from 'three';

/** Numbers kept at first: a camera and ~10 meshes; grows by doubling with the scene. */
const INITIAL_VALUES = 512;

/**
 * Tells whether what a separate feedback pass would draw changed since the previous frame, so a
 * still view can render it less often ({@link FeedbackCollector}'s `stillInterval`). Each frame it
 * writes a fingerprint of the view into a typed array, comparing it with the previous frame's in
 * the same sweep (no allocation once the array has grown to the scene):
 *
 * - the scene object, the camera's world and projection matrices and layer mask, the feedback
 *   target size (a resize or `setFeedbackScale` changes it);
 * - every visible mesh whose material the pass mirrors (frustum and layers ignored, so a mesh
 *   entering the view or a layer changes the count): its id, world matrix, layer mask, each
 *   material's id, `version`, `transparent` and `side`, its geometry's id and the versions of its
 *   position and index attributes, morph influences, an instanced mesh's count and
 *   `instanceMatrix` version, a skinned mesh's bind matrix and bones' world matrices.
 *
 * A `BatchedMesh` (per-instance matrices live in three's internal texture) and an `ArrayCamera`
 * (XR) always count as moving. What the fingerprint cannot see, it misses: a TSL uniform animated
 * by the app (a uv scroll, a time-driven displacement in a `positionNode`), an attribute written
 * without a version bump. Such requests then follow at the still rate; set the interval to 1
 * for such scenes. Changes the system knows of (a material registered, filtering, mip bias, a
 * texture removed) are reported by {@link markChanged}.
 */
export class ViewStillness {
  /** Consecutive frames, up to and including the latest {@link update}, with nothing changed. */
  stillFrames = 0;
  private values = new Float64Array(INITIAL_VALUES);
  private length = 0;
  private cursor = 0;
  private differs = false;
  private forced = true;
  private drawn: (material: Material) => boolean = () => false;

  /** The next {@link update} counts as a change whatever it finds. */
  markChanged(): void {
    this.forced = true;
  }

  /**
   * Fingerprints the view of `scene` from `camera` for a `width x height` feedback target (in
   * feedback pixels), counting only meshes with a material for which `drawn` is true; updates the
   * world matrices first, as `renderer.render` would. Returns true when nothing changed since the
   * previous call (and no {@link markChanged} since).
   */
  update(
    scene: Scene,
    camera: Camera,
    width: number,
    height: number,
    drawn: (material: Material) => boolean,
  ): boolean {
    // As three's render does, so a position set since the last render counts this frame.
    if (scene.matrixWorldAutoUpdate) scene.updateMatrixWorld();
    if (camera.parent === null && camera.matrixWorldAutoUpdate) camera.updateMatrixWorld();
    this.cursor = 0;
    this.differs = this.forced;
    this.forced = false;
    this.drawn = drawn;
    this.put(scene.id);
    this.put(camera.id);
    this.putMatrix(camera.matrixWorld);
    this.putMatrix(camera.projectionMatrix);
    this.put(camera.layers.mask);
    this.put(width);
    this.put(height);
    if ((camera as { isArrayCamera?: boolean }).isArrayCamera) this.differs = true;
    this.visit(scene);
    if (this.cursor !== this.length) this.differs = true;
    this.length = this.cursor;
    this.stillFrames = this.differs ? 0 : this.stillFrames + 1;
    return !this.differs;
  }

  private visit(object: Object3D): void {
    // three draws nothing below an invisible object.
    if (!object.visible) return;
    if ((object as Mesh).isMesh) this.visitMesh(object as Mesh);
    const children = object.children;
    for (let i = 0; i < children.length; i++) this.visit(children[i]);
  }

  private visitMesh(mesh: Mesh): void {
    const material = mesh.material;
    let mirrored = false;
    if (Array.isArray(material)) {
      for (let i = 0; i < material.length; i++) if (this.drawn(material[i])) mirrored = true;
    } else {
      mirrored = this.drawn(material);
    }
    if (!mirrored) return;
    if ((mesh as { isBatchedMesh?: boolean }).isBatchedMesh) this.differs = true;
    this.put(mesh.id);
    this.putMatrix(mesh.matrixWorld);
    this.put(mesh.layers.mask);
    if (Array.isArray(material)) {
      for (let i = 0; i < material.length; i++) this.putMaterial(material[i]);
    } else {
      this.putMaterial(material);
    }
    this.putGeometry(mesh.geometry);
    const influences = mesh.morphTargetInfluences;
    if (influences !== undefined) for (let i = 0; i < influences.length; i++) this.put(influences[i]);
    const instanced = mesh as Partial<{
      isInstancedMesh: boolean;
      count: number;
      instanceMatrix: { version: number };
    }>;
    if (instanced.isInstancedMesh) {
      this.put(instanced.count!);
      this.put(instanced.instanceMatrix!.version);
    }
    const skinned = mesh as Partial<{
      isSkinnedMesh: boolean;
      bindMatrix: Matrix4;
      skeleton: { bones: Object3D[] };
    }>;
    if (skinned.isSkinnedMesh) {
      this.putMatrix(skinned.bindMatrix!);
      const bones = skinned.skeleton!.bones;
      for (let i = 0; i < bones.length; i++) this.putMatrix(bones[i].matrixWorld);
    }
  }

  private putMaterial(material: Material): void {
    this.put(material.id);
    this.put(material.version);
    this.put(material.transparent ? 1 : 0);
    this.put(material.side);
  }

  private putGeometry(geometry: BufferGeometry): void {
    this.put(geometry.id);
    const position = geometry.attributes.position;
    // An interleaved attribute's version is its buffer's.
    this.put(
      position === undefined
        ? -1
        : 'isInterleavedBufferAttribute' in position
          ? position.data.version
          : position.version,
    );
    this.put(geometry.index?.version ?? -1);
  }

  private putMatrix(matrix: Matrix4): void {
    const e = matrix.elements;
    for (let i = 0; i < 16; i++) this.put(e[i]);
  }

  /** Compares value `v` with the previous frame's at the cursor and stores it there. */
  private put(v: number): void {
    const i = this.cursor++;
    if (i >= this.values.length) {
      const grown = new Float64Array(this.values.length * 2);
      grown.set(this.values);
      this.values = grown;
    }
    // NaN never equals itself: a NaN in a matrix keeps the view moving, which is safe.
    if (this.values[i] !== v) {
      this.values[i] = v;
      this.differs = true;
    }
  }
}
