/**
 * Encodes rgba8 tiles for the archive. Raw and DEFLATE are pure JS; PNG, JPEG and WebP use sharp
 * (PNG: libvips' encoder is 4x faster per tile than the JS one, with 3% smaller files,
 * `bench/png-codec.bench.ts`), UASTC the Basis encoder and Zstandard (all Node only, loaded on
 * first use). Same texels and options give the same bytes.
 */

import type { NormalChannels } from '../../core/vt/tile-source';
import { normalToRedAlpha } from '../color/normal-channels';
import type { PayloadEncodingName } from '../io/payload-encoding';
import { deflateRaw } from '../io/png-codec';
import { encodeUastcTile } from './uastc-encoder';
import { zstdCompress } from './zstd-compressor';

/** Options of {@link encodeTile}. */
export interface TileEncoderOptions {
  /** Quality of the lossy image encodings (JPEG, WebP), 1..100. Default 90. */
  quality?: number;
  /** UASTC: the layer's colour space (sRGB colour is weighted perceptually). Default 'srgb'. */
  colorSpace?: 'srgb' | 'linear';
  /** UASTC: what the texels mean ('normal' keeps x and y exact at the cost of perceptual weights). Default 'color'. */
  usage?: 'color' | 'normal';
  /** UASTC normal maps: where x and y go (`'red-alpha'`: x in red, green and blue, y in alpha). Default 'red-green'. */
  normalChannels?: NormalChannels;
  /** UASTC: Basis rate-distortion lambda, 0 (off, default)..10. */
  rdoLambda?: number;
  /** UASTC: Basis effort 0..4. Default 1. */
  uastcEffort?: number;
  /** `uastc-zstd`: Zstandard level 1..22. Default 9. */
  zstdLevel?: number;
}

/** Encodes a `size x size` rgba8 tile. */
export async function encodeTile(
  encoding: PayloadEncodingName,
  rgba: Uint8Array,
  size: number,
  options: TileEncoderOptions = {},
): Promise<Uint8Array> {
  switch (encoding) {
    case 'raw':
      return rgba.slice();
    case 'deflate':
      return deflateRaw(rgba);
    case 'png':
    case 'jpeg':
    case 'webp': {
      const { default: sharp } = await import('sharp');
      const image = sharp(rgba, { raw: { width: size, height: size, channels: 4 } });
      const quality = options.quality ?? 90;
      const out =
        encoding === 'png'
          ? await image.png({ compressionLevel: 6, adaptiveFiltering: true, palette: false }).toBuffer()
          : encoding === 'jpeg'
            ? await image
                .removeAlpha()
                .jpeg({ quality, chromaSubsampling: '4:4:4', mozjpeg: false })
                .toBuffer()
            : await image.webp({ quality, alphaQuality: 100, effort: 4, smartSubsample: false }).toBuffer();
      return new Uint8Array(out.buffer, out.byteOffset, out.byteLength);
    }
    case 'uastc':
    case 'uastc-zstd': {
      const texels = options.normalChannels === 'red-alpha' ? normalToRedAlpha(rgba) : rgba;
      const blocks = await encodeUastcTile(texels, size, {
        colorSpace: options.colorSpace ?? 'srgb',
        usage: options.usage ?? 'color',
        rdoLambda: options.rdoLambda,
        effort: options.uastcEffort,
      });
      return encoding === 'uastc' ? blocks : zstdCompress(blocks, options.zstdLevel ?? 9);
    }
    default:
      throw new Error(`cannot encode ${encoding}`);
  }
}
