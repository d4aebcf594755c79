/**
 * The KTX2 `vkFormat`s a streamed texture takes as stored, with the Data Format Descriptor colour
 * model each must declare (KHR Data Format spec, `khr_df_model_e`), and the Basis Universal models
 * recognised only to refuse them clearly.
 */

import type { StreamedTextureFormat } from '../../core/streaming/mip-pyramid-source';

/** DFD colour models (`khr_df_model_e`) this reader checks. */
export const DFD_MODEL = {
  unspecified: 0,
  rgbsda: 1,
  bc1a: 128,
  bc3: 130,
  bc4: 131,
  bc5: 132,
  bc7: 134,
  etc2: 161,
  astc: 162,
  etc1s: 163,
  uastc: 166,
} as const;

/** DFD transfer function of sRGB-encoded data (`KHR_DF_TRANSFER_SRGB`). */
export const DFD_TRANSFER_SRGB = 2;

/** One accepted vkFormat: the WebGPU format it uploads as, and what its DFD must say. */
export interface Ktx2FormatEntry {
  /** The GPU format the levels are uploaded as. */
  readonly format: StreamedTextureFormat;
  /** The DFD colour model the file must declare. */
  readonly colorModel: number;
}

/** vkFormat -> entry. BC1 RGB (131/132) and ETC2 RGB8A1 are absent: WebGPU has no exact match. */
const VK_FORMATS: ReadonlyMap<number, Ktx2FormatEntry> = new Map<number, Ktx2FormatEntry>([
  [37, { format: 'rgba8unorm', colorModel: DFD_MODEL.rgbsda }],
  [43, { format: 'rgba8unorm-srgb', colorModel: DFD_MODEL.rgbsda }],
  [133, { format: 'bc1-rgba-unorm', colorModel: DFD_MODEL.bc1a }],
  [134, { format: 'bc1-rgba-unorm-srgb', colorModel: DFD_MODEL.bc1a }],
  [137, { format: 'bc3-rgba-unorm', colorModel: DFD_MODEL.bc3 }],
  [138, { format: 'bc3-rgba-unorm-srgb', colorModel: DFD_MODEL.bc3 }],
  [139, { format: 'bc4-r-unorm', colorModel: DFD_MODEL.bc4 }],
  [140, { format: 'bc4-r-snorm', colorModel: DFD_MODEL.bc4 }],
  [141, { format: 'bc5-rg-unorm', colorModel: DFD_MODEL.bc5 }],
  [142, { format: 'bc5-rg-snorm', colorModel: DFD_MODEL.bc5 }],
  [145, { format: 'bc7-rgba-unorm', colorModel: DFD_MODEL.bc7 }],
  [146, { format: 'bc7-rgba-unorm-srgb', colorModel: DFD_MODEL.bc7 }],
  [147, { format: 'etc2-rgb8unorm', colorModel: DFD_MODEL.etc2 }],
  [148, { format: 'etc2-rgb8unorm-srgb', colorModel: DFD_MODEL.etc2 }],
  [151, { format: 'etc2-rgba8unorm', colorModel: DFD_MODEL.etc2 }],
  [152, { format: 'etc2-rgba8unorm-srgb', colorModel: DFD_MODEL.etc2 }],
  [153, { format: 'eac-r11unorm', colorModel: DFD_MODEL.etc2 }],
  [154, { format: 'eac-r11snorm', colorModel: DFD_MODEL.etc2 }],
  [155, { format: 'eac-rg11unorm', colorModel: DFD_MODEL.etc2 }],
  [156, { format: 'eac-rg11snorm', colorModel: DFD_MODEL.etc2 }],
  [157, { format: 'astc-4x4-unorm', colorModel: DFD_MODEL.astc }],
  [158, { format: 'astc-4x4-unorm-srgb', colorModel: DFD_MODEL.astc }],
]);

/** The entry of `vkFormat`, or undefined when it is not taken as stored. */
export function ktx2FormatEntry(vkFormat: number): Ktx2FormatEntry | undefined {
  return VK_FORMATS.get(vkFormat);
}
