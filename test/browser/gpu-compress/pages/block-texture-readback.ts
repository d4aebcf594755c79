/**
 * Test-side reads of a block-compressed texture: decoded texels through the GPU's own sampler
 * hardware (`textureLoad` in a compute pass, independent of the encoder), and raw blocks through
 * `copyTextureToBuffer`, for checking which slots were written.
 */

const DECODE_WGSL = (array: boolean) => /* wgsl */ `
struct Params { origin: vec2<u32>, size: u32, layer: u32, srgb: u32 };
@group(0) @binding(0) var blocks: ${array ? 'texture_2d_array<f32>' : 'texture_2d<f32>'};
@group(0) @binding(1) var<uniform> params: Params;

fn linearToSrgb(c: vec3<f32>) -> vec3<f32> {
  let high = 1.055 * pow(max(c, vec3<f32>(0.0031308)), vec3<f32>(1.0 / 2.4)) - 0.055;
  return select(high, c * 12.92, c <= vec3<f32>(0.0031308));
}

@vertex
fn vertexMain(@builtin(vertex_index) i: u32) -> @builtin(position) vec4<f32> {
  let p = vec2<f32>(f32((i << 1u) & 2u), f32(i & 2u));
  return vec4<f32>(p * 2.0 - 1.0, 0.0, 1.0);
}

@fragment
fn fragmentMain(@builtin(position) position: vec4<f32>) -> @location(0) vec4<f32> {
  let at = vec2<i32>(params.origin) + vec2<i32>(position.xy);
  var v = textureLoad(blocks, at, ${array ? 'i32(params.layer), ' : ''}0);
  if (params.srgb == 1u) { v = vec4<f32>(linearToSrgb(v.rgb), v.a); }
  return v;
}
`;

// One decode pipeline per device and view dimension: compiling one per read dominated the test.
const decodePipelines = new WeakMap<GPUDevice, Map<boolean, GPURenderPipeline>>();

function decodePipeline(device: GPUDevice, array: boolean): GPURenderPipeline {
  let byKind = decodePipelines.get(device);
  if (byKind === undefined) {
    byKind = new Map();
    decodePipelines.set(device, byKind);
  }
  let pipeline = byKind.get(array);
  if (pipeline === undefined) {
    const module = device.createShaderModule({ code: DECODE_WGSL(array) });
    pipeline = device.createRenderPipeline({
      layout: 'auto',
      vertex: { module, entryPoint: 'vertexMain' },
      fragment: { module, entryPoint: 'fragmentMain', targets: [{ format: 'rgba8unorm' }] },
      primitive: { topology: 'triangle-list' },
    });
    byKind.set(array, pipeline);
  }
  return pipeline;
}

async function mapped(device: GPUDevice, buffer: GPUBuffer): Promise<Uint8Array> {
  await buffer.mapAsync(GPUMapMode.READ);
  const bytes = new Uint8Array(buffer.getMappedRange()).slice();
  buffer.unmap();
  buffer.destroy();
  void device;
  return bytes;
}

/**
 * The `size²` texels at (x, y, layer) of `texture` as the GPU decodes them, rgba8 (sRGB formats
 * re-encoded to sRGB bytes, so they compare with the bytes that were compressed).
 */
export async function decodeSlot(
  device: GPUDevice,
  texture: GPUTexture,
  x: number,
  y: number,
  layer: number,
  size: number,
): Promise<Uint8Array> {
  // A render pass, not compute: SwiftShader's compute stage reads block-compressed textures wrong.
  const array = texture.depthOrArrayLayers > 1;
  const pipeline = decodePipeline(device, array);
  const target = device.createTexture({
    label: 'test:decode',
    size: [size, size],
    format: 'rgba8unorm',
    usage: GPUTextureUsage.RENDER_ATTACHMENT | GPUTextureUsage.COPY_SRC,
  });
  const params = device.createBuffer({
    label: 'test:decode',
    size: 32,
    usage: GPUBufferUsage.UNIFORM | GPUBufferUsage.COPY_DST,
  });
  device.queue.writeBuffer(
    params,
    0,
    new Uint32Array([x, y, size, layer, texture.format.endsWith('-srgb') ? 1 : 0]),
  );
  const group = device.createBindGroup({
    layout: pipeline.getBindGroupLayout(0),
    entries: [
      { binding: 0, resource: texture.createView({ dimension: array ? '2d-array' : '2d' }) },
      { binding: 1, resource: { buffer: params } },
    ],
  });
  const rowBytes = size * 4;
  const paddedRow = Math.ceil(rowBytes / 256) * 256;
  const read = device.createBuffer({
    label: 'test:decode',
    size: paddedRow * size,
    usage: GPUBufferUsage.COPY_DST | GPUBufferUsage.MAP_READ,
  });
  const encoder = device.createCommandEncoder();
  const pass = encoder.beginRenderPass({
    colorAttachments: [
      { view: target.createView(), loadOp: 'clear', storeOp: 'store', clearValue: [0, 0, 0, 0] },
    ],
  });
  pass.setPipeline(pipeline);
  pass.setBindGroup(0, group);
  pass.draw(3);
  pass.end();
  encoder.copyTextureToBuffer(
    { texture: target },
    { buffer: read, bytesPerRow: paddedRow, rowsPerImage: size },
    [size, size],
  );
  device.queue.submit([encoder.finish()]);
  const padded = await mapped(device, read);
  target.destroy();
  params.destroy();
  const bytes = new Uint8Array(rowBytes * size);
  for (let row = 0; row < size; row++)
    bytes.set(padded.subarray(row * paddedRow, row * paddedRow + rowBytes), row * rowBytes);
  return bytes;
}

/** Every block of array layer `layer` of `texture`, block rows top to bottom, unpadded. */
export async function readBlocks(
  device: GPUDevice,
  texture: GPUTexture,
  layer: number,
  blockBytes: number,
): Promise<Uint8Array> {
  const blocksWide = texture.width / 4;
  const blockRows = texture.height / 4;
  const rowBytes = blocksWide * blockBytes;
  const paddedRow = Math.ceil(rowBytes / 256) * 256;
  const read = device.createBuffer({
    label: 'test:blocks',
    size: paddedRow * blockRows,
    usage: GPUBufferUsage.COPY_DST | GPUBufferUsage.MAP_READ,
  });
  const encoder = device.createCommandEncoder();
  encoder.copyTextureToBuffer(
    { texture, origin: { x: 0, y: 0, z: layer } },
    { buffer: read, bytesPerRow: paddedRow, rowsPerImage: blockRows },
    { width: texture.width, height: texture.height, depthOrArrayLayers: 1 },
  );
  device.queue.submit([encoder.finish()]);
  const padded = await mapped(device, read);
  const bytes = new Uint8Array(rowBytes * blockRows);
  for (let row = 0; row < blockRows; row++)
    bytes.set(padded.subarray(row * paddedRow, row * paddedRow + rowBytes), row * rowBytes);
  return bytes;
}
