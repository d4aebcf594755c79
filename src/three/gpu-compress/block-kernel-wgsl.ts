import { BC1_ENCODER_WGSL } from './bc1-encoder-wgsl';
import { BC5_ENCODER_WGSL } from './bc5-encoder-wgsl';
import { BC7_MODE1_ENCODER_WGSL } from './bc7-mode1-encoder-wgsl';
import { BC7_MODE6_ENCODER_WGSL } from './bc7-mode6-encoder-wgsl';
import { type GpuBlockFormat, isSrgbBlockFormat } from './block-layout';

/** Workgroup side of the compression kernel, in blocks (one invocation per 4x4 block). */
export const KERNEL_WORKGROUP_SIDE = 8;

/**
 * What every encoder shares: the bindings, the block loader (one 4x4 block of the source tile as
 * 0..255 values, re-encoded to sRGB when the target format stores sRGB, because `textureLoad` of
 * an sRGB source returns linear values), the bit writer of one 128-bit block, and the entry point,
 * which writes the block's words at its place in the (row-padded) output.
 */
function kernelPrelude(srgbTarget: boolean, wordsPerBlock: number): string {
  return /* wgsl */ `
struct TileParams {
  origin: vec2<u32>,
  blocksPerSide: u32,
  rowStrideWords: u32,
};

@group(0) @binding(0) var sourceTile: texture_2d<f32>;
@group(1) @binding(0) var<storage, read_write> blockWords: array<u32>;
@group(1) @binding(1) var<uniform> params: TileParams;

const SRGB_TARGET: bool = ${srgbTarget};
const WORDS_PER_BLOCK: u32 = ${wordsPerBlock}u;

var<private> texels: array<vec4<f32>, 16>;
var<private> packed: array<u32, 4>;
var<private> bitCursor: u32;

fn linearToSrgb(c: vec3<f32>) -> vec3<f32> {
  let low = c * 12.92;
  let high = 1.055 * pow(max(c, vec3<f32>(0.0031308)), vec3<f32>(1.0 / 2.4)) - 0.055;
  return select(high, low, c <= vec3<f32>(0.0031308));
}

fn loadBlock(block: vec2<u32>) {
  let base = params.origin + block * 4u;
  for (var i = 0u; i < 16u; i++) {
    var v = textureLoad(sourceTile, vec2<i32>(base + vec2<u32>(i & 3u, i >> 2u)), 0);
    if (SRGB_TARGET) {
      v = vec4<f32>(linearToSrgb(v.rgb), v.a);
    }
    texels[i] = round(clamp(v, vec4<f32>(0.0), vec4<f32>(1.0)) * 255.0);
  }
}

// Appends the low 'count' bits of 'value' (count <= 32) at the cursor, least significant first.
fn putBits(value: u32, count: u32) {
  let word = bitCursor >> 5u;
  let shift = bitCursor & 31u;
  packed[word] |= value << shift;
  if (shift + count > 32u) {
    packed[word + 1u] |= value >> (32u - shift);
  }
  bitCursor += count;
}
`;
}

function kernelEntry(encodeCall: string): string {
  return /* wgsl */ `
@compute @workgroup_size(${KERNEL_WORKGROUP_SIDE}, ${KERNEL_WORKGROUP_SIDE})
fn main(@builtin(global_invocation_id) id: vec3<u32>) {
  if (id.x >= params.blocksPerSide || id.y >= params.blocksPerSide) {
    return;
  }
  loadBlock(id.xy);
  for (var w = 0u; w < 4u; w++) {
    packed[w] = 0u;
  }
  bitCursor = 0u;
  ${encodeCall};
  let base = id.y * params.rowStrideWords + id.x * WORDS_PER_BLOCK;
  for (var w = 0u; w < WORDS_PER_BLOCK; w++) {
    blockWords[base + w] = packed[w];
  }
}
`;
}

/** The whole WGSL module compressing one tile into `format` blocks (entry point `main`). */
export function compressionKernelSource(format: GpuBlockFormat): string {
  const srgb = isSrgbBlockFormat(format);
  switch (format) {
    case 'bc1-rgba-unorm':
    case 'bc1-rgba-unorm-srgb':
      return kernelPrelude(srgb, 2) + BC1_ENCODER_WGSL + kernelEntry('encodeBc1()');
    case 'bc5-rg-unorm':
      return kernelPrelude(false, 4) + BC5_ENCODER_WGSL + kernelEntry('encodeBc5()');
    default:
      return (
        kernelPrelude(srgb, 4) + BC7_MODE6_ENCODER_WGSL + BC7_MODE1_ENCODER_WGSL + kernelEntry('encodeBc7()')
      );
  }
}
