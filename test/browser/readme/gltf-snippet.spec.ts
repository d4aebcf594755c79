/**
 * The glTF block of the guide the README links to (`docs/streamed-textures.md`, "glTF scenes"),
 * copied literally as a page's module: it makes its renderer, scene and camera, streams `castle.glb`,
 * then moves to `harbour.glb` with a load-while-release transition. Served beside it, two glTF
 * files made here (one unlit quad filling the guide's view, a PNG checker each: red and white for
 * the castle, blue and yellow for the harbour). Once it has run, the page shows the harbour,
 * textured (its colours on 90% of the canvas, the rest their blends at the squares' edges; no
 * grey, no castle), with no page, console or GPU error. `TESSERA_GLTF_GUIDE=<path>` reads another file. On the webgl project
 * WebGPU is hidden, so three's renderer falls back to WebGL2 by itself, as in a browser without it.
 */

import { readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { Document, NodeIO } from '@gltf-transform/core';
import { KHRMaterialsUnlit } from '@gltf-transform/extensions';
import sharp from 'sharp';
import { extractCodeBlock } from '../../package/support/readme-snippet';
import { screenshotPixels } from '../demo/demo-page';
import { expect, test } from '../fixtures';
import { fallBackWithoutWebGPU, writeSnippetPage } from './snippet-page';

const ROOT = resolve(import.meta.dirname, '../../..');
/** Served by the test server (the repository root); ignored by git. */
const PAGE_DIR = 'test-results/readme-gltf';

/** A 256² checker of two colours, 32-texel squares, as PNG bytes. */
async function checker(a: readonly number[], b: readonly number[]): Promise<Uint8Array> {
  const edge = 256;
  const rgba = new Uint8Array(edge * edge * 4);
  for (let y = 0; y < edge; y++)
    for (let x = 0; x < edge; x++) {
      const c = ((x >> 5) + (y >> 5)) % 2 === 0 ? a : b;
      rgba.set([c[0], c[1], c[2], 255], (y * edge + x) * 4);
    }
  const png = await sharp(Buffer.from(rgba), { raw: { width: edge, height: edge, channels: 4 } })
    .png()
    .toBuffer();
  return new Uint8Array(png);
}

/** A .glb of one unlit quad, x -4..4, y -1.5..5 at z 0 (the guide's camera, at (0, 1.6, 5), sees only it). */
async function quadGlb(name: string, png: Uint8Array): Promise<Uint8Array> {
  const doc = new Document();
  const unlit = doc.createExtension(KHRMaterialsUnlit);
  const buffer = doc.createBuffer();
  const accessor = (type: 'VEC3' | 'VEC2' | 'SCALAR', array: Float32Array | Uint16Array) =>
    doc.createAccessor().setType(type).setArray(array).setBuffer(buffer);
  const texture = doc.createTexture(name).setImage(png).setMimeType('image/png');
  const material = doc
    .createMaterial(name)
    .setBaseColorTexture(texture)
    .setExtension('KHR_materials_unlit', unlit.createUnlit());
  const primitive = doc
    .createPrimitive()
    .setAttribute(
      'POSITION',
      accessor('VEC3', new Float32Array([-4, -1.5, 0, 4, -1.5, 0, 4, 5, 0, -4, 5, 0])),
    )
    .setAttribute('TEXCOORD_0', accessor('VEC2', new Float32Array([0, 1, 1, 1, 1, 0, 0, 0])))
    .setIndices(accessor('SCALAR', new Uint16Array([0, 1, 2, 0, 2, 3])))
    .setMaterial(material);
  doc.createScene(name).addChild(doc.createNode(name).setMesh(doc.createMesh(name).addPrimitive(primitive)));
  return new NodeIO().registerExtensions([KHRMaterialsUnlit]).writeBinary(doc);
}

/** Shares of the castle's colours (red, white), the harbour's (blue, yellow), and grey, in a screenshot. */
function shares(pixels: { data: Buffer; width: number; height: number; channels: number }) {
  const counts = { castle: 0, harbour: 0, grey: 0 };
  const n = pixels.width * pixels.height;
  for (let i = 0; i < n; i++) {
    const o = i * pixels.channels;
    const [r, g, b] = [pixels.data[o], pixels.data[o + 1], pixels.data[o + 2]];
    if (b > r + 80 || (r > 170 && g > 140 && b < 90)) counts.harbour++;
    else if ((r > 150 && g < 90 && b < 90) || Math.min(r, g, b) > 200) counts.castle++;
    else if (Math.max(r, g, b) - Math.min(r, g, b) < 12) counts.grey++;
  }
  return { castle: counts.castle / n, harbour: counts.harbour / n, grey: counts.grey / n };
}

test('the glTF guide snippet, literally: castle, then a transition to the harbour, shown textured', async ({
  page,
  backend,
}) => {
  // TESSERA_GLTF_GUIDE=<path> reads another Markdown file (a draft, or an older guide to see it fail).
  const guide = readFileSync(
    resolve(ROOT, process.env.TESSERA_GLTF_GUIDE ?? 'docs/streamed-textures.md'),
    'utf8',
  );
  const code = extractCodeBlock(guide, '## glTF scenes', 'ts', 'registerGltfTextureStreaming(');
  const dir = writeSnippetPage(PAGE_DIR, code);
  writeFileSync(
    join(dir, 'castle.glb'),
    await quadGlb('castle', await checker([220, 30, 30], [245, 245, 245])),
  );
  writeFileSync(
    join(dir, 'harbour.glb'),
    await quadGlb('harbour', await checker([30, 70, 230], [235, 205, 30])),
  );

  await fallBackWithoutWebGPU(page, backend);
  await page.goto(`/${PAGE_DIR}/index.html`, { waitUntil: 'load' });
  const canvas = 'canvas';
  await expect(page.locator(canvas)).toBeAttached();
  let seen = { castle: 1, harbour: 0, grey: 1 };
  await expect
    .poll(
      async () => {
        seen = shares(await screenshotPixels(page, canvas, `${PAGE_DIR}/${backend}.png`));
        return seen.harbour;
      },
      { timeout: 60_000, intervals: [500] },
    )
    .toBeGreaterThan(0.9);
  console.log(`[${backend}] glTF guide snippet, shown at the end: ${JSON.stringify(seen)}`);
  expect(seen.castle).toBeLessThan(0.01);
  expect(seen.grey).toBeLessThan(0.01);
  const backendUsed = await page.evaluate(() => (navigator as { gpu?: unknown }).gpu !== undefined);
  expect(backendUsed).toBe(backend === 'webgpu');
});
