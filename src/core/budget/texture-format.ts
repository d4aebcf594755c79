import { TesseraConfigError } from '../errors';

/**
 * Every WebGPU texture format name (the `GPUTextureFormat` strings of the WebGPU spec, including the
 * optional-feature formats), spelled out here so `src/core` needs no WebGPU typings.
 */
export type TextureFormatName =
  // 8 bits per texel
  | 'r8unorm'
  | 'r8snorm'
  | 'r8uint'
  | 'r8sint'
  // 16 bits per texel
  | 'r16unorm'
  | 'r16snorm'
  | 'r16uint'
  | 'r16sint'
  | 'r16float'
  | 'rg8unorm'
  | 'rg8snorm'
  | 'rg8uint'
  | 'rg8sint'
  // 32 bits per texel
  | 'r32uint'
  | 'r32sint'
  | 'r32float'
  | 'rg16unorm'
  | 'rg16snorm'
  | 'rg16uint'
  | 'rg16sint'
  | 'rg16float'
  | 'rgba8unorm'
  | 'rgba8unorm-srgb'
  | 'rgba8snorm'
  | 'rgba8uint'
  | 'rgba8sint'
  | 'bgra8unorm'
  | 'bgra8unorm-srgb'
  | 'rgb9e5ufloat'
  | 'rgb10a2uint'
  | 'rgb10a2unorm'
  | 'rg11b10ufloat'
  // 64 bits per texel
  | 'rg32uint'
  | 'rg32sint'
  | 'rg32float'
  | 'rgba16unorm'
  | 'rgba16snorm'
  | 'rgba16uint'
  | 'rgba16sint'
  | 'rgba16float'
  // 128 bits per texel
  | 'rgba32uint'
  | 'rgba32sint'
  | 'rgba32float'
  // depth / stencil
  | 'stencil8'
  | 'depth16unorm'
  | 'depth24plus'
  | 'depth24plus-stencil8'
  | 'depth32float'
  | 'depth32float-stencil8'
  // BC (texture-compression-bc), 4x4 blocks
  | 'bc1-rgba-unorm'
  | 'bc1-rgba-unorm-srgb'
  | 'bc2-rgba-unorm'
  | 'bc2-rgba-unorm-srgb'
  | 'bc3-rgba-unorm'
  | 'bc3-rgba-unorm-srgb'
  | 'bc4-r-unorm'
  | 'bc4-r-snorm'
  | 'bc5-rg-unorm'
  | 'bc5-rg-snorm'
  | 'bc6h-rgb-ufloat'
  | 'bc6h-rgb-float'
  | 'bc7-rgba-unorm'
  | 'bc7-rgba-unorm-srgb'
  // ETC2 / EAC (texture-compression-etc2), 4x4 blocks
  | 'etc2-rgb8unorm'
  | 'etc2-rgb8unorm-srgb'
  | 'etc2-rgb8a1unorm'
  | 'etc2-rgb8a1unorm-srgb'
  | 'etc2-rgba8unorm'
  | 'etc2-rgba8unorm-srgb'
  | 'eac-r11unorm'
  | 'eac-r11snorm'
  | 'eac-rg11unorm'
  | 'eac-rg11snorm'
  // ASTC (texture-compression-astc), 16 bytes per block of any footprint
  | `astc-${AstcBlockFootprint}-unorm`
  | `astc-${AstcBlockFootprint}-unorm-srgb`;

/** The ASTC block footprints WebGPU exposes, `<width>x<height>` in texels. */
export type AstcBlockFootprint =
  | '4x4'
  | '5x4'
  | '5x5'
  | '6x5'
  | '6x6'
  | '8x5'
  | '8x6'
  | '8x8'
  | '10x5'
  | '10x6'
  | '10x8'
  | '10x10'
  | '12x10'
  | '12x12';

/** Storage shape of one format: a block of `blockWidth` x `blockHeight` texels takes `bytesPerBlock`. */
export interface TextureFormatInfo {
  /** Block width in texels (1 for uncompressed formats). */
  readonly blockWidth: number;
  /** Block height in texels (1 for uncompressed formats). */
  readonly blockHeight: number;
  /** Bytes of one block (bytes per texel for uncompressed formats). */
  readonly bytesPerBlock: number;
  /** True for block-compressed formats (BC, ETC2, EAC, ASTC). */
  readonly compressed: boolean;
}

const ASTC_FOOTPRINTS: readonly AstcBlockFootprint[] = [
  '4x4',
  '5x4',
  '5x5',
  '6x5',
  '6x6',
  '8x5',
  '8x6',
  '8x8',
  '10x5',
  '10x6',
  '10x8',
  '10x10',
  '12x10',
  '12x12',
];

function plain(bytesPerTexel: number): TextureFormatInfo {
  return { blockWidth: 1, blockHeight: 1, bytesPerBlock: bytesPerTexel, compressed: false };
}

function block(width: number, height: number, bytes: number): TextureFormatInfo {
  return { blockWidth: width, blockHeight: height, bytesPerBlock: bytes, compressed: true };
}

function buildFormatTable(): Record<TextureFormatName, TextureFormatInfo> {
  const table: Partial<Record<TextureFormatName, TextureFormatInfo>> = {};
  const bySize: [number, TextureFormatName[]][] = [
    [1, ['r8unorm', 'r8snorm', 'r8uint', 'r8sint', 'stencil8']],
    [
      2,
      [
        'r16unorm',
        'r16snorm',
        'r16uint',
        'r16sint',
        'r16float',
        'rg8unorm',
        'rg8snorm',
        'rg8uint',
        'rg8sint',
        'depth16unorm',
      ],
    ],
    [
      4,
      [
        'r32uint',
        'r32sint',
        'r32float',
        'rg16unorm',
        'rg16snorm',
        'rg16uint',
        'rg16sint',
        'rg16float',
        'rgba8unorm',
        'rgba8unorm-srgb',
        'rgba8snorm',
        'rgba8uint',
        'rgba8sint',
        'bgra8unorm',
        'bgra8unorm-srgb',
        'rgb9e5ufloat',
        'rgb10a2uint',
        'rgb10a2unorm',
        'rg11b10ufloat',
        // Implementations may back depth24plus with 24-bit depth in 32 bits or with depth32float: 4 bytes.
        'depth24plus',
        'depth32float',
      ],
    ],
    [
      // Counted at the worst case across backends: D3D12 and Metal store D24S8/D32S8 as 8-byte texels
      // (depth32 + stencil8 + 24 bits of padding), so the budget never under-counts them.
      8,
      [
        'depth24plus-stencil8',
        'depth32float-stencil8',
        'rg32uint',
        'rg32sint',
        'rg32float',
        'rgba16unorm',
        'rgba16snorm',
        'rgba16uint',
        'rgba16sint',
        'rgba16float',
      ],
    ],
    [16, ['rgba32uint', 'rgba32sint', 'rgba32float']],
  ];
  for (const [bytes, names] of bySize) for (const name of names) table[name] = plain(bytes);
  const blocks: [number, TextureFormatName[]][] = [
    [
      8,
      [
        'bc1-rgba-unorm',
        'bc1-rgba-unorm-srgb',
        'bc4-r-unorm',
        'bc4-r-snorm',
        'etc2-rgb8unorm',
        'etc2-rgb8unorm-srgb',
        'etc2-rgb8a1unorm',
        'etc2-rgb8a1unorm-srgb',
        'eac-r11unorm',
        'eac-r11snorm',
      ],
    ],
    [
      16,
      [
        'bc2-rgba-unorm',
        'bc2-rgba-unorm-srgb',
        'bc3-rgba-unorm',
        'bc3-rgba-unorm-srgb',
        'bc5-rg-unorm',
        'bc5-rg-snorm',
        'bc6h-rgb-ufloat',
        'bc6h-rgb-float',
        'bc7-rgba-unorm',
        'bc7-rgba-unorm-srgb',
        'etc2-rgba8unorm',
        'etc2-rgba8unorm-srgb',
        'eac-rg11unorm',
        'eac-rg11snorm',
      ],
    ],
  ];
  for (const [bytes, names] of blocks) for (const name of names) table[name] = block(4, 4, bytes);
  for (const footprint of ASTC_FOOTPRINTS) {
    const [w, h] = footprint.split('x').map(Number);
    table[`astc-${footprint}-unorm`] = block(w, h, 16);
    table[`astc-${footprint}-unorm-srgb`] = block(w, h, 16);
  }
  return table as Record<TextureFormatName, TextureFormatInfo>;
}

const FORMAT_TABLE = buildFormatTable();

/** Every format name Tessera can account for (for exhaustive tests and validation). */
export const TEXTURE_FORMAT_NAMES: readonly TextureFormatName[] = Object.keys(
  FORMAT_TABLE,
) as TextureFormatName[];

/**
 * Block shape and size of `format`.
 * @throws TesseraConfigError('invalid-option') for a name that is not a WebGPU texture format.
 */
export function textureFormatInfo(format: TextureFormatName): TextureFormatInfo {
  const info = Object.hasOwn(FORMAT_TABLE, format) ? FORMAT_TABLE[format] : undefined;
  if (info === undefined) {
    throw new TesseraConfigError('invalid-option', `Unknown texture format '${String(format)}'.`);
  }
  return info;
}
