import {
  CompressedTexture,
  DataTexture,
  LinearFilter,
  Mesh,
  NearestFilter,
  NoColorSpace,
  OrthographicCamera,
  PlaneGeometry,
  RGBA_S3TC_DXT1_Format,
  RGBAFormat,
  Scene,
  SRGBColorSpace,
  type Texture,
  UnsignedByteType,
} from 'three';
import { MeshBasicNodeMaterial, RenderTarget, type WebGPURenderer } from 'three/webgpu';
import { TesseraError } from '../../../../src/core/errors';
import { ProceduralWorld } from '../../../../src/sources/procedural/procedural-world';
import { blockBytesOf, type GpuBlockFormat } from '../../../../src/three/gpu-compress/block-layout';
import { GpuTileCompressor } from '../../../../src/three/gpu-compress/gpu-tile-compressor';
import { createCompressedPoolTexture } from '../../../../src/three/residency/compressed-pool-texture';
import { createTestRenderer, gpuDevice } from '../../support/renderer';
import { decodeSlot, readBlocks } from './block-texture-readback';
import { type DetailContent, detailTile, lineFitPsnr, psnr } from './terrain-detail-content';

/**
 * Page for test/browser/gpu-compress: compresses generated terrain detail and photograph tiles
 * with the GpuTileCompressor into block pool textures and reads them back decoded by the GPU.
 */
const renderer: WebGPURenderer = await createTestRenderer(64, 64);
// Render to the canvas once: SwiftShader stalls mapAsync after a resize of a never-drawn canvas.
const scene = new Scene();
const camera = new OrthographicCamera(-1, 1, 1, -1, 0, 2);
renderer.render(scene, camera);

function sourceTexture(rgba: Uint8Array, size: number, srgb: boolean): DataTexture {
  const texture = new DataTexture(rgba, size, size, RGBAFormat, UnsignedByteType);
  texture.colorSpace = srgb ? SRGBColorSpace : NoColorSpace;
  texture.magFilter = NearestFilter;
  texture.minFilter = NearestFilter;
  texture.needsUpdate = true;
  renderer.initTexture(texture);
  return texture;
}

/** A block pool texture of `format`, `slotsPerRow x slotRows` slots of `tileSize`, allocated. */
function poolTexture(
  format: GpuBlockFormat,
  tileSize: number,
  slotsPerRow: number,
  slotRows: number,
  layers = 1,
) {
  const width = slotsPerRow * tileSize;
  const height = slotRows * tileSize;
  let texture: Texture;
  if (format === 'bc1-rgba-unorm' || format === 'bc1-rgba-unorm-srgb') {
    // BC1 is no VT pool format (yet): a plain three CompressedTexture allocated the same way.
    const bc1 = new CompressedTexture([], width, height, RGBA_S3TC_DXT1_Format, UnsignedByteType);
    bc1.name = 'test:pool:bc1';
    bc1.colorSpace = format.endsWith('-srgb') ? SRGBColorSpace : NoColorSpace;
    bc1.magFilter = LinearFilter;
    bc1.minFilter = LinearFilter;
    bc1.generateMipmaps = false;
    bc1.source.dataReady = false;
    bc1.needsUpdate = true;
    texture = bc1;
  } else {
    texture = createCompressedPoolTexture('test:pool', width, height, layers, format);
  }
  renderer.initTexture(texture);
  return texture;
}

const device = gpuDevice(renderer)!;
const gpu = (texture: Texture) =>
  (renderer.backend as unknown as { get(o: object): { texture: GPUTexture } }).get(texture).texture;

async function photoTiles(url: string, size: number): Promise<Uint8Array[]> {
  const blob = await (await fetch(url)).blob();
  const bitmap = await createImageBitmap(blob, { colorSpaceConversion: 'none', premultiplyAlpha: 'none' });
  const canvas = new OffscreenCanvas(bitmap.width, bitmap.height);
  const context = canvas.getContext('2d')!;
  context.drawImage(bitmap, 0, 0);
  // Sky, the horizon, shapes and text: four tiles across the image.
  const spots = [
    [0.1, 0.1],
    [0.4, 0.5],
    [0.7, 0.3],
    [0.25, 0.8],
  ];
  return spots.map(([u, v]) => {
    const x = Math.floor(u * (bitmap.width - size));
    const y = Math.floor(v * (bitmap.height - size));
    return new Uint8Array(context.getImageData(x, y, size, size).data.buffer);
  });
}

interface QualityReport {
  /** PSNR per content kind (mean squared error over its tiles), dB. */
  psnr: Record<string, number>;
  /** Per content kind, the PSNR ceiling of any one-line-per-block encoder (`lineFitPsnr`), dB. */
  lineFit: Record<string, number>;
  /** Tiles compressed in the one submit. */
  tiles: number;
}

/**
 * Compresses every content kind (and the photograph's tiles) in one batch into distinct slots of
 * one pool, then decodes each slot on the GPU and compares it with the rgba8 source.
 */
async function quality(
  format: GpuBlockFormat,
  tileSize: number,
  seed: number,
  photos: Record<string, string>,
  bc7Modes: 'mode6' | 'mode6+mode1' = 'mode6+mode1',
): Promise<QualityReport> {
  const srgb = format.endsWith('-srgb');
  const kinds: DetailContent[] = format === 'bc5-rg-unorm' ? ['normals'] : ['grass', 'pebbles', 'road'];
  const tiles: { kind: string; rgba: Uint8Array }[] = [];
  for (const kind of kinds)
    for (let i = 0; i < 2; i++) tiles.push({ kind, rgba: detailTile(kind, tileSize, seed + i) });
  // The demo's terrain as the CPU procedural source makes it today (albedo; normals for BC5).
  const world = new ProceduralWorld({ seed: 7, widthPages: 64, tileSize });
  for (const [x, y] of [
    [21, 40],
    [50, 9],
  ]) {
    const albedo = new Uint8Array(tileSize * tileSize * 4);
    const normal = new Uint8Array(tileSize * tileSize * 4);
    world.generateTile(0, x, y, albedo, normal);
    tiles.push({ kind: 'demo-world', rgba: format === 'bc5-rg-unorm' ? normal : albedo });
  }
  if (format !== 'bc5-rg-unorm') {
    for (const [kind, url] of Object.entries(photos)) {
      for (const rgba of await photoTiles(url, tileSize)) tiles.push({ kind, rgba });
    }
  }
  const slotsPerRow = 4;
  const pool = poolTexture(format, tileSize, slotsPerRow, Math.ceil(tiles.length / slotsPerRow));
  const compressor = GpuTileCompressor.create(renderer, { format, tileSize, batchTiles: 16, bc7Modes });
  const sources = tiles.map((tile) => sourceTexture(tile.rgba, tileSize, srgb));
  for (let i = 0; i < sources.length; i++) {
    compressor.compress(sources[i], pool, {
      x: (i % slotsPerRow) * tileSize,
      y: Math.floor(i / slotsPerRow) * tileSize,
    });
  }
  compressor.flush();
  const submitted = compressor.submittedTiles;
  const channels = format === 'bc5-rg-unorm' ? 2 : 3;
  const error: Record<string, { sum: number; n: number }> = {};
  for (let i = 0; i < tiles.length; i++) {
    const decoded = await decodeSlot(
      device,
      gpu(pool),
      (i % slotsPerRow) * tileSize,
      Math.floor(i / slotsPerRow) * tileSize,
      0,
      tileSize,
    );
    const mse = 65025 / 10 ** (psnr(tiles[i].rgba, decoded, channels) / 10);
    error[tiles[i].kind] ??= { sum: 0, n: 0 };
    const entry = error[tiles[i].kind];
    entry.sum += mse;
    entry.n++;
  }
  compressor.dispose();
  for (const source of sources) source.dispose();
  pool.dispose();
  const report: Record<string, number> = {};
  const lineFit: Record<string, number> = {};
  for (const [kind, { sum, n }] of Object.entries(error)) {
    report[kind] = 10 * Math.log10(65025 / (sum / n));
    let bound = 0;
    for (const tile of tiles)
      if (tile.kind === kind) bound += 65025 / 10 ** (lineFitPsnr(tile.rgba, tileSize) / 10);
    lineFit[kind] = 10 * Math.log10(65025 / (bound / n));
  }
  return { psnr: report, lineFit, tiles: submitted };
}

/**
 * A 136² tile (rows padded from 544 to 768 bytes) rendered into an rgba8 render target,
 * compressed into slot (1, 1) of array layer 1 of a 3 x 2 x 2 BC7 array pool whose blocks were
 * all set to a known pattern first: reports what changed where, and the slot's PSNR against the
 * render target read back uncompressed.
 */
async function placement(): Promise<{
  changedOutside: number;
  unchangedInside: number;
  slotBlocks: number;
  psnr: number;
}> {
  const tileSize = 136;
  const format: GpuBlockFormat = 'bc7-rgba-unorm';
  const pool = poolTexture(format, tileSize, 3, 2, 2);
  const target = gpu(pool);
  const layerBytes = (target.width / 4) * (target.height / 4) * 16;
  const pattern = new Uint8Array(layerBytes);
  for (let i = 0; i < layerBytes; i++) pattern[i] = (i * 31 + 7) & 255;
  for (let layer = 0; layer < 2; layer++) {
    device.queue.writeTexture(
      { texture: target, origin: { x: 0, y: 0, z: layer } },
      pattern,
      { bytesPerRow: (target.width / 4) * 16, rowsPerImage: target.height / 4 },
      { width: target.width, height: target.height },
    );
  }
  // The source as the rendered tile source makes it: a material drawn into an rgba8 target.
  const content = sourceTexture(detailTile('pebbles', tileSize, 4242), tileSize, false);
  const renderTarget = new RenderTarget(tileSize, tileSize, { depthBuffer: false });
  renderTarget.texture.colorSpace = NoColorSpace;
  const quad = new Mesh(new PlaneGeometry(2, 2), new MeshBasicNodeMaterial({ map: content }));
  const tileScene = new Scene();
  tileScene.add(quad);
  renderer.setRenderTarget(renderTarget);
  renderer.render(tileScene, camera);
  renderer.setRenderTarget(null);
  const rendered = new Uint8Array(
    (await renderer.readRenderTargetPixelsAsync(renderTarget, 0, 0, tileSize, tileSize)) as Uint8Array,
  );
  const compressor = GpuTileCompressor.create(renderer, { format, tileSize, batchTiles: 4 });
  compressor.compress(renderTarget.texture, pool, { x: tileSize, y: tileSize, arrayLayer: 1 });
  compressor.flush();
  const decoded = await decodeSlot(device, target, tileSize, tileSize, 1, tileSize);
  let changedOutside = 0;
  let unchangedInside = 0;
  let slotBlocks = 0;
  const blocksWide = target.width / 4;
  for (let layer = 0; layer < 2; layer++) {
    const blocks = await readBlocks(device, target, layer, blockBytesOf(format));
    for (let b = 0; b < blocks.length / 16; b++) {
      const bx = b % blocksWide;
      const by = Math.floor(b / blocksWide);
      const inside = layer === 1 && bx >= 34 && bx < 68 && by >= 34 && by < 68;
      let same = true;
      for (let k = 0; k < 16; k++) if (blocks[b * 16 + k] !== pattern[b * 16 + k]) same = false;
      if (inside) {
        slotBlocks++;
        if (same) unchangedInside++;
      } else if (!same) changedOutside++;
    }
  }
  const result = { changedOutside, unchangedInside, slotBlocks, psnr: psnr(rendered, decoded, 3) };
  compressor.dispose();
  renderTarget.dispose();
  content.dispose();
  pool.dispose();
  return result;
}

/**
 * Two tiles side by side in one 256 x 128 source (as a batch rendered into one atlas target),
 * compressed by their `sourceOrigin` into slots 1 and 0: the PSNR of each slot against its half.
 */
async function atlasSource(): Promise<number[]> {
  const tileSize = 128;
  const halves = [detailTile('road', tileSize, 901), detailTile('grass', tileSize, 902)];
  const atlas = new Uint8Array(2 * tileSize * tileSize * 4);
  for (let y = 0; y < tileSize; y++) {
    for (let h = 0; h < 2; h++) {
      atlas.set(
        halves[h].subarray(y * tileSize * 4, (y + 1) * tileSize * 4),
        (y * 2 * tileSize + h * tileSize) * 4,
      );
    }
  }
  const source = new DataTexture(atlas, 2 * tileSize, tileSize, RGBAFormat, UnsignedByteType);
  source.needsUpdate = true;
  renderer.initTexture(source);
  const pool = poolTexture('bc7-rgba-unorm', tileSize, 2, 1);
  const compressor = GpuTileCompressor.create(renderer, { format: 'bc7-rgba-unorm', tileSize });
  compressor.compress(source, pool, { x: tileSize, y: 0 }, { x: 0, y: 0 });
  compressor.compress(source, pool, { x: 0, y: 0 }, { x: tileSize, y: 0 });
  compressor.flush();
  const result = [
    psnr(halves[0], await decodeSlot(device, gpu(pool), tileSize, 0, 0, tileSize), 3),
    psnr(halves[1], await decodeSlot(device, gpu(pool), 0, 0, 0, tileSize), 3),
  ];
  compressor.dispose();
  source.dispose();
  pool.dispose();
  return result;
}

function codeOf(run: () => unknown): string {
  try {
    run();
    return 'none';
  } catch (error) {
    return error instanceof TesseraError ? `${error.name}:${error.code}` : `untyped:${String(error)}`;
  }
}

/**
 * Bad arguments, each between two good tiles: the codes thrown, then whether both good tiles
 * still landed (PSNR of each) and how many were queued when flushed.
 */
async function badArguments(): Promise<{ codes: Record<string, string>; queued: number; psnr: number[] }> {
  const tileSize = 128;
  const format: GpuBlockFormat = 'bc7-rgba-unorm-srgb';
  const pool = poolTexture(format, tileSize, 2, 1);
  const wrongPool = poolTexture('bc5-rg-unorm', tileSize, 1, 1);
  const tiles = [detailTile('grass', tileSize, 77), detailTile('road', tileSize, 78)];
  const sources = tiles.map((rgba) => sourceTexture(rgba, tileSize, true));
  const small = sourceTexture(new Uint8Array(64 * 64 * 4), 64, true);
  const uncreated = new DataTexture(new Uint8Array(tileSize * tileSize * 4), tileSize, tileSize);
  const compressor = GpuTileCompressor.create(renderer, { format, tileSize, batchTiles: 8 });
  compressor.compress(sources[0], pool, { x: 0, y: 0 });
  const codes: Record<string, string> = {
    wrongPoolFormat: codeOf(() => compressor.compress(sources[1], wrongPool, { x: 0, y: 0 })),
    slotOffBlockGrid: codeOf(() => compressor.compress(sources[1], pool, { x: 2, y: 0 })),
    slotOutsidePool: codeOf(() => compressor.compress(sources[1], pool, { x: tileSize * 2, y: 0 })),
    slotNegative: codeOf(() => compressor.compress(sources[1], pool, { x: -4, y: 0 })),
    layerPastPool: codeOf(() => compressor.compress(sources[1], pool, { x: 0, y: 0, arrayLayer: 1 })),
    sourceTooSmall: codeOf(() => compressor.compress(small, pool, { x: 0, y: 0 })),
    sourceOriginOutside: codeOf(() => compressor.compress(sources[1], pool, { x: 0, y: 0 }, { x: 8, y: 0 })),
    sourceNotCreated: codeOf(() => compressor.compress(uncreated, pool, { x: 0, y: 0 })),
    sourceNotRgba8: codeOf(() => compressor.compress(pool, pool, { x: 0, y: 0 })),
    tileSizeNotBlocks: codeOf(() => GpuTileCompressor.create(renderer, { format, tileSize: 130 })),
    batchOfZero: codeOf(() => GpuTileCompressor.create(renderer, { format, tileSize, batchTiles: 0 })),
    unknownBc7Modes: codeOf(() =>
      GpuTileCompressor.create(renderer, { format, tileSize, bc7Modes: 'mode7' as 'mode6' }),
    ),
    unknownFormat: codeOf(() =>
      GpuTileCompressor.create(renderer, { format: 'bc3-rgba-unorm' as GpuBlockFormat, tileSize }),
    ),
  };
  compressor.compress(sources[1], pool, { x: tileSize, y: 0 });
  const queued = compressor.pendingTiles;
  compressor.flush();
  const results: number[] = [];
  for (let i = 0; i < 2; i++)
    results.push(psnr(tiles[i], await decodeSlot(device, gpu(pool), i * tileSize, 0, 0, tileSize), 3));
  compressor.dispose();
  codes.afterDispose = codeOf(() => compressor.compress(sources[0], pool, { x: 0, y: 0 }));
  codes.disposeTwice = codeOf(() => compressor.dispose());
  for (const texture of [...sources, small, pool, wrongPool]) texture.dispose();
  return { codes, queued, psnr: results };
}

/**
 * GPU objects created while compressing three batches of the same eight sources after a first
 * one: bind groups, buffers, textures, views, pipelines and shader modules (all should be 0), and
 * command encoders (one per submit).
 */
async function steadyState(): Promise<Record<string, number>> {
  const tileSize = 128;
  const format: GpuBlockFormat = 'bc7-rgba-unorm';
  const pool = poolTexture(format, tileSize, 4, 2);
  const sources = Array.from({ length: 8 }, (_, i) =>
    sourceTexture(detailTile('grass', tileSize, 500 + i), tileSize, false),
  );
  const compressor = GpuTileCompressor.create(renderer, { format, tileSize, batchTiles: 8 });
  const batch = () => {
    for (let i = 0; i < 8; i++)
      compressor.compress(sources[i], pool, { x: (i % 4) * tileSize, y: Math.floor(i / 4) * tileSize });
  };
  batch(); // a full batch submits itself
  await device.queue.onSubmittedWorkDone();
  const counts: Record<string, number> = {};
  const restore: (() => void)[] = [];
  const count = (target: Record<string, unknown>, name: string) => {
    const original = target[name] as (...args: unknown[]) => unknown;
    counts[name] = 0;
    target[name] = function (this: unknown, ...args: unknown[]) {
      counts[name]++;
      return original.apply(this, args);
    };
    restore.push(() => {
      target[name] = original;
    });
  };
  const deviceMethods = device as unknown as Record<string, unknown>;
  for (const name of [
    'createBindGroup',
    'createBuffer',
    'createTexture',
    'createComputePipeline',
    'createShaderModule',
    'createCommandEncoder',
  ])
    count(deviceMethods, name);
  count(GPUTexture.prototype as unknown as Record<string, unknown>, 'createView');
  for (let b = 0; b < 3; b++) batch();
  for (const undo of restore) undo();
  await device.queue.onSubmittedWorkDone();
  compressor.dispose();
  for (const texture of [...sources, pool]) texture.dispose();
  return counts;
}

/** Creates a compressor and reports its GPU bytes; `disposeHeld` frees it. */
let held: GpuTileCompressor | null = null;
function createHeld(format: GpuBlockFormat, tileSize: number, batchTiles: number): number {
  held = GpuTileCompressor.create(renderer, { format, tileSize, batchTiles });
  return held.gpuBytes;
}
function disposeHeld(): void {
  held?.dispose();
  held = null;
}

function support(): { bc7: boolean; createCode: string } {
  return {
    bc7: GpuTileCompressor.isSupported(renderer, 'bc7-rgba-unorm'),
    createCode: codeOf(() => GpuTileCompressor.create(renderer, { format: 'bc7-rgba-unorm', tileSize: 128 })),
  };
}

Object.assign(globalThis, {
  compressLab: {
    atlasSource,
    steadyState,
    quality,
    placement,
    badArguments,
    createHeld,
    disposeHeld,
    support,
  },
});
document.title = 'ready';
