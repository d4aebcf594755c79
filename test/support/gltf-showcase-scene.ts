/**
 * A glTF scene of real-looking content in the forms people ship, for comparing a streamed render
 * with three's own loaders (tests and the benchmark): photograph-like images (detail at every
 * scale) as UASTC + zstd, ETC1S, an rgba8 KTX2 (under `KHR_texture_basisu`, as three accepts it),
 * PNG and JPEG; a 40 m floor whose uv repeats 10 times; a normal-mapped sphere; crates drawn with
 * `EXT_mesh_gpu_instancing`; a poster read through its second uv set and `KHR_texture_transform`.
 * Seen by `SHOWCASE_CAMERA` (gltf-showcase-view.ts) the floor runs from the camera's feet to the horizon.
 */

import { Document, type Texture as GltfTexture, NodeIO } from '@gltf-transform/core';
import { EXTMeshGPUInstancing, KHRTextureBasisu, KHRTextureTransform } from '@gltf-transform/extensions';
import sharp from 'sharp';
import { cachedFixtureTexture, photoLikeImage } from './gltf-fixtures';
import { writeKtx2Fixture } from './ktx2-fixtures';

/** A height field's normals as a tangent-space normal map (linear rgba8). */
function normalMapOf(edge: number, seed: number): Uint8Array {
  const height = photoLikeImage(edge, [128, 128, 128], seed);
  const h = (x: number, y: number) => height[(((y + edge) % edge) * edge + ((x + edge) % edge)) * 4] / 255;
  const out = new Uint8Array(edge * edge * 4);
  for (let y = 0; y < edge; y++)
    for (let x = 0; x < edge; x++) {
      const dx = (h(x + 1, y) - h(x - 1, y)) * 4;
      const dy = (h(x, y + 1) - h(x, y - 1)) * 4;
      const length = Math.hypot(dx, dy, 1);
      const i = (y * edge + x) * 4;
      out[i] = Math.round((-dx / length) * 127.5 + 127.5);
      out[i + 1] = Math.round((-dy / length) * 127.5 + 127.5);
      out[i + 2] = Math.round((1 / length) * 127.5 + 127.5);
      out[i + 3] = 255;
    }
  return out;
}

/** Level `level` of `rgba` (edge `edge`) by 2x2 box filtering, level 0 being `rgba` itself. */
function boxLevel(rgba: Uint8Array, edge: number, level: number): Uint8Array {
  let data = rgba;
  let size = edge;
  for (let l = 0; l < level && size > 1; l++) {
    const half = size >> 1;
    const next = new Uint8Array(half * half * 4);
    for (let y = 0; y < half; y++)
      for (let x = 0; x < half; x++)
        for (let c = 0; c < 4; c++) {
          const at = (xx: number, yy: number) => data[(yy * size + xx) * 4 + c];
          next[(y * half + x) * 4 + c] =
            (at(2 * x, 2 * y) + at(2 * x + 1, 2 * y) + at(2 * x, 2 * y + 1) + at(2 * x + 1, 2 * y + 1) + 2) >>
            2;
        }
    data = next;
    size = half;
  }
  return data;
}

/** An image as a glTF texture file: PNG, or JPEG (quality 90) where `jpeg`. */
async function imageFile(
  uri: string,
  rgba: Uint8Array,
  edge: number,
  jpeg: boolean,
): Promise<{ uri: string; bytes: Uint8Array; mimeType: string }> {
  const image = sharp(Buffer.from(rgba), { raw: { width: edge, height: edge, channels: 4 } });
  const bytes = new Uint8Array(await (jpeg ? image.jpeg({ quality: 90 }) : image.png()).toBuffer());
  return { uri, bytes, mimeType: jpeg ? 'image/jpeg' : 'image/png' };
}

/**
 * The files of the scene (`<name>.gltf`, its `.bin` and the textures), textures `edge` texels
 * square. `images: 'png-jpeg'` writes the same images as the files most people have (the floor,
 * poster, normal map and sign as PNG, the sphere's colour and the crates as JPEG; no KTX2): the
 * originals a glTF baker or three's plain loaders start from.
 */
export async function writeShowcaseScene(
  name: string,
  edge: number,
  { images = 'mixed' }: { images?: 'mixed' | 'png-jpeg' } = {},
): Promise<Record<string, Uint8Array>> {
  const plain = images === 'png-jpeg';
  const floor = plain
    ? await imageFile('floor.png', photoLikeImage(edge, [150, 120, 90], 11), edge, false)
    : await cachedFixtureTexture('uastc', 'floor', edge, [150, 120, 90], 11);
  const sphereColour = plain
    ? await imageFile('sphere.jpg', photoLikeImage(edge, [60, 110, 170], 12), edge, true)
    : await cachedFixtureTexture('etc1s', 'sphere', edge, [60, 110, 170], 12);
  const poster = await cachedFixtureTexture('png', 'poster', edge, [190, 70, 60], 13);
  const normals = normalMapOf(edge, 14);
  const sphereNormal = new Uint8Array(
    await sharp(Buffer.from(normals), { raw: { width: edge, height: edge, channels: 4 } })
      .png()
      .toBuffer(),
  );
  const crateImage = photoLikeImage(edge, [140, 100, 50], 15);
  const crate = new Uint8Array(
    await sharp(Buffer.from(crateImage), { raw: { width: edge, height: edge, channels: 4 } })
      .jpeg({ quality: 90 })
      .toBuffer(),
  );
  const signEdge = Math.max(64, edge >> 1);
  const signImage = photoLikeImage(signEdge, [70, 160, 80], 16);
  const sign = plain
    ? (await imageFile('sign.png', signImage, signEdge, false)).bytes
    : await writeKtx2Fixture({
        width: signEdge,
        height: signEdge,
        payload: 'rgba8',
        srgb: true,
        texelsOf: (level) => boxLevel(signImage, signEdge, level),
      });

  const doc = new Document();
  if (!plain) doc.createExtension(KHRTextureBasisu).setRequired(true);
  const transform = doc.createExtension(KHRTextureTransform);
  const instancing = doc.createExtension(EXTMeshGPUInstancing).setRequired(true);
  const buffer = doc.createBuffer().setURI(`${name}.bin`);
  const accessor = (type: 'VEC2' | 'VEC3' | 'SCALAR', array: Float32Array | Uint16Array) =>
    doc.createAccessor().setType(type).setArray(array).setBuffer(buffer);
  const texture = (uri: string, bytes: Uint8Array, mimeType: string) =>
    doc.createTexture(uri).setImage(bytes).setMimeType(mimeType).setURI(uri);
  const material = (id: string, base: GltfTexture) =>
    doc.createMaterial(id).setBaseColorTexture(base).setMetallicFactor(0).setRoughnessFactor(0.8);
  const scene = doc.createScene(name);
  const add = (
    meshName: string,
    geometry: { position: number[]; normal: number[]; uv: number[]; uv1?: number[]; index: number[] },
    mat: ReturnType<typeof material>,
    translation: [number, number, number],
  ) => {
    const primitive = doc
      .createPrimitive()
      .setAttribute('POSITION', accessor('VEC3', new Float32Array(geometry.position)))
      .setAttribute('NORMAL', accessor('VEC3', new Float32Array(geometry.normal)))
      .setAttribute('TEXCOORD_0', accessor('VEC2', new Float32Array(geometry.uv)))
      .setIndices(accessor('SCALAR', new Uint16Array(geometry.index)))
      .setMaterial(mat);
    if (geometry.uv1) primitive.setAttribute('TEXCOORD_1', accessor('VEC2', new Float32Array(geometry.uv1)));
    const node = doc
      .createNode(meshName)
      .setMesh(doc.createMesh(meshName).addPrimitive(primitive))
      .setTranslation(translation);
    scene.addChild(node);
    return node;
  };

  // The floor: 40 m square, uv 0..10 (the texture repeats every 4 m), trilinear and repeat as glTF's default sampler.
  const floorTexture = texture(floor.uri, floor.bytes, floor.mimeType);
  add(
    'floor',
    quad([-20, 0, 20], [40, 0, 0], [0, 0, -40], [0, 1, 0], 10),
    material('floor', floorTexture),
    [0, 0, 0],
  );

  const sphereMaterial = material(
    'sphere',
    texture(sphereColour.uri, sphereColour.bytes, sphereColour.mimeType),
  )
    .setNormalTexture(texture('sphere-normal.png', sphereNormal, 'image/png'))
    .setNormalScale(1);
  add('sphere', uvSphere(1.5, 48, 24), sphereMaterial, [-3.2, 1.5, -4]);

  const crates = add(
    'crates',
    box(1),
    material('crate', texture('crate.jpg', crate, 'image/jpeg')),
    [2.5, 0.5, -2],
  );
  crates.setExtension(
    'EXT_mesh_gpu_instancing',
    instancing.createInstancedMesh().setAttribute(
      'TRANSLATION',
      doc
        .createAccessor()
        .setType('VEC3')
        .setArray(new Float32Array([0, 0, 0, 1.3, 0, -0.6, 0.4, 1, -0.3, 2.4, 0, -3]))
        .setBuffer(buffer),
    ),
  );

  // The poster reads its second uv set, through a transform that shows the middle half of the image.
  const posterTexture = texture(poster.uri, poster.bytes, poster.mimeType);
  const posterMaterial = material('poster', posterTexture);
  const posterInfo = posterMaterial.getBaseColorTextureInfo();
  posterInfo?.setTexCoord(1);
  posterInfo?.setExtension(
    'KHR_texture_transform',
    transform.createTransform().setOffset([0.25, 0]).setScale([0.5, 1]).setTexCoord(1),
  );
  const posterQuad = quad([-2, 0, 0], [4, 0, 0], [0, 2.5, 0], [0, 0, 1], 1);
  add(
    'poster',
    { ...posterQuad, uv: posterQuad.uv.map(() => 0), uv1: posterQuad.uv },
    posterMaterial,
    [0.5, 0.6, -9],
  );

  const signTexture = plain
    ? texture('sign.png', sign, 'image/png')
    : texture('sign.ktx2', sign, 'image/ktx2');
  add(
    'sign',
    quad([-0.6, 0, 0], [1.2, 0, 0], [0, 1.2, 0], [0, 0, 1], 1),
    material('sign', signTexture),
    [-0.8, 0.3, -1.5],
  );

  const io = new NodeIO().registerExtensions([KHRTextureBasisu, KHRTextureTransform, EXTMeshGPUInstancing]);
  const { json, resources } = await io.writeJSON(doc);
  const files: Record<string, Uint8Array> = {
    [`${name}.gltf`]: new TextEncoder().encode(JSON.stringify(json)),
  };
  for (const [uri, bytes] of Object.entries(resources)) files[uri] = bytes;
  return files;
}

/**
 * A quad from `origin` along `u` and `v` (metres), normal `normal`, uv 0..`repeat` (glTF's uv
 * origin is the image's top-left: v grows along -`v`).
 */
function quad(
  origin: number[],
  u: number[],
  v: number[],
  normal: number[],
  repeat: number,
): { position: number[]; normal: number[]; uv: number[]; index: number[] } {
  const corner = (a: number, b: number) => [0, 1, 2].map((i) => origin[i] + a * u[i] + b * v[i]);
  return {
    position: [...corner(0, 0), ...corner(1, 0), ...corner(1, 1), ...corner(0, 1)],
    normal: [...normal, ...normal, ...normal, ...normal],
    uv: [0, repeat, repeat, repeat, repeat, 0, 0, 0],
    index: [0, 1, 2, 0, 2, 3],
  };
}

/** A unit-ish cube of edge `size` (m), each face uv 0..1. */
function box(size: number) {
  const h = size / 2;
  const faces: [number[], number[], number[]][] = [
    [
      [h, -h, h],
      [0, 0, -size],
      [0, size, 0],
    ],
    [
      [-h, -h, -h],
      [0, 0, size],
      [0, size, 0],
    ],
    [
      [-h, h, h],
      [size, 0, 0],
      [0, 0, -size],
    ],
    [
      [-h, -h, -h],
      [size, 0, 0],
      [0, 0, size],
    ],
    [
      [-h, -h, h],
      [size, 0, 0],
      [0, size, 0],
    ],
    [
      [h, -h, -h],
      [-size, 0, 0],
      [0, size, 0],
    ],
  ];
  const out = { position: [] as number[], normal: [] as number[], uv: [] as number[], index: [] as number[] };
  for (const [origin, u, v] of faces) {
    const n = [u[1] * v[2] - u[2] * v[1], u[2] * v[0] - u[0] * v[2], u[0] * v[1] - u[1] * v[0]];
    const length = Math.hypot(n[0], n[1], n[2]);
    const face = quad(
      origin,
      u,
      v,
      n.map((c) => c / length),
      1,
    );
    const base = out.position.length / 3;
    out.position.push(...face.position);
    out.normal.push(...face.normal);
    out.uv.push(...face.uv);
    out.index.push(...face.index.map((i) => i + base));
  }
  return out;
}

/** A uv sphere of `radius` (m): u around, v from the north pole. */
function uvSphere(radius: number, segments: number, rings: number) {
  const out = { position: [] as number[], normal: [] as number[], uv: [] as number[], index: [] as number[] };
  for (let r = 0; r <= rings; r++) {
    const theta = (r / rings) * Math.PI;
    for (let s = 0; s <= segments; s++) {
      const phi = (s / segments) * 2 * Math.PI;
      const n = [-Math.cos(phi) * Math.sin(theta), Math.cos(theta), Math.sin(phi) * Math.sin(theta)];
      out.position.push(n[0] * radius, n[1] * radius, n[2] * radius);
      out.normal.push(...n);
      out.uv.push((s / segments) * 2, r / rings);
    }
  }
  for (let r = 0; r < rings; r++)
    for (let s = 0; s < segments; s++) {
      const a = r * (segments + 1) + s;
      const b = a + segments + 1;
      out.index.push(a, b, a + 1, b, b + 1, a + 1);
    }
  return out;
}
