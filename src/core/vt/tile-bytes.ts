import { mipLevelBytes } from '../budget/texture-bytes';
import type { TextureFormatName } from '../budget/texture-format';
import { TileSourceError } from '../errors';
import type { TileData, TileEncoding, TileSourceInfo } from './tile-source';

/**
 * The WebGPU format whose storage each tile encoding shares: a UASTC 4x4 block is 16 bytes, as an
 * ASTC 4x4 block is, so both count alike.
 */
const ENCODING_STORAGE: Readonly<Record<TileEncoding, TextureFormatName>> = {
  rgba8unorm: 'rgba8unorm',
  'rgba8unorm-srgb': 'rgba8unorm-srgb',
  'uastc-4x4': 'astc-4x4-unorm',
  'uastc-4x4-srgb': 'astc-4x4-unorm-srgb',
};

/**
 * Bytes of one layer of one `tileSize²` tile (border included) in `format`: a source encoding
 * ({@link TileEncoding}) or any WebGPU texture format (a pool layer's), in whole blocks. The one
 * place that turns a tile's format into bytes: rgba8 is `tileSize² x 4`, UASTC 4x4 and ASTC 4x4
 * or BC7 `(tileSize / 4)² x 16`, BC1 `(tileSize / 4)² x 8`. Allocates nothing.
 */
export function tileLayerBytes(format: TileEncoding | TextureFormatName, tileSize: number): number {
  const storage = Object.hasOwn(ENCODING_STORAGE, format)
    ? ENCODING_STORAGE[format as TileEncoding]
    : (format as TextureFormatName);
  return mipLevelBytes(storage, tileSize, tileSize, 0);
}

/** Bytes of one tile across `layers` (each in its own format) of `tileSize²` texels. */
export function tileBytes(
  layers: readonly { readonly format: TileEncoding | TextureFormatName }[],
  tileSize: number,
): number {
  let bytes = 0;
  for (let l = 0; l < layers.length; l++) bytes += tileLayerBytes(layers[l].format, tileSize);
  return bytes;
}

/** Bytes of one tile a source with `info` returns from `load`, all layers together. */
export function sourceTileBytes(info: TileSourceInfo): number {
  return info.rendered === true ? 0 : tileBytes(info.layers, info.tileSize);
}

/**
 * True when `tile` is what a source with `info` must return: one `Uint8Array` per layer of
 * `info.layers`, each exactly {@link tileLayerBytes} long (none for a rendered source). What is staged and uploaded is counted
 * from `info`, so a tile of any other size is refused rather than let past the staging bound.
 */
export function tileMatchesInfo(tile: TileData | null | undefined, info: TileSourceInfo): boolean {
  const layers = tile?.layers;
  if (info.rendered === true) return Array.isArray(layers) && layers.length === 0;
  if (!Array.isArray(layers) || layers.length !== info.layers.length) return false;
  for (let l = 0; l < layers.length; l++) {
    const bytes = layers[l];
    if (!(bytes instanceof Uint8Array)) return false;
    if (bytes.byteLength !== tileLayerBytes(info.layers[l].format, info.tileSize)) return false;
  }
  return true;
}

/**
 * The error a load fails with when its tile does not match `info` (see {@link tileMatchesInfo}),
 * or null when it does: `wrong-size`, not retryable (the source would return the same tile).
 */
export function tileMismatchError(
  tile: TileData | null | undefined,
  info: TileSourceInfo,
): TileSourceError | null {
  return tileMatchesInfo(tile, info)
    ? null
    : new TileSourceError('wrong-size', 'tile layers differ from its source info', false);
}
