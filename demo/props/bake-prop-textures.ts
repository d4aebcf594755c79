/**
 * Writes the demo's prop textures (see ./prop-textures.ts) as KTX2 files under assets/props/:
 * R8G8B8A8 sRGB with a full mip chain, each level one zstd frame (level 19), so a region's 15 MiB-
 * per-texture atlases take a few hundred KiB on disk. Deterministic. Run `npm run bake:props`.
 */

import { mkdirSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import * as zstd from '@bokuweb/zstd-wasm';
import {
  createDefaultContainer,
  KHR_DF_MODEL_RGBSDA,
  KHR_DF_TRANSFER_SRGB,
  VK_FORMAT_R8G8B8A8_SRGB,
  write,
} from 'ktx-parse';
import { REGIONS } from '../regions';
import { PROP_TEXTURE_SEED, propTextureFile } from './prop-texture-files';
import { generatePropLevels, PROP_SURFACES, PROP_TEXTURE_SIZES } from './prop-textures';

/** zstd level of every KTX2 level (19: the repeats are found across the 8 MiB window). */
const ZSTD_LEVEL = 19;

async function main(): Promise<void> {
  await zstd.init();
  const folder = resolve(import.meta.dirname, '../../assets');
  mkdirSync(resolve(folder, 'props'), { recursive: true });
  let total = 0;
  for (const region of REGIONS) {
    for (const surface of PROP_SURFACES) {
      const levels = generatePropLevels(region, surface, PROP_TEXTURE_SEED);
      const container = createDefaultContainer();
      container.vkFormat = VK_FORMAT_R8G8B8A8_SRGB;
      container.typeSize = 1;
      container.pixelWidth = PROP_TEXTURE_SIZES[surface];
      container.pixelHeight = PROP_TEXTURE_SIZES[surface];
      container.levelCount = levels.length;
      container.supercompressionScheme = 2; // zstd
      const dfd = container.dataFormatDescriptor[0];
      dfd.colorModel = KHR_DF_MODEL_RGBSDA;
      dfd.transferFunction = KHR_DF_TRANSFER_SRGB;
      dfd.texelBlockDimension = [0, 0, 0, 0];
      // Supercompressed payloads declare no plane bytes (KTX2 specification, section 3.10.2).
      dfd.bytesPlane = [0, 0, 0, 0, 0, 0, 0, 0];
      container.levels = levels.map((raw) => ({
        levelData: zstd.compress(raw, ZSTD_LEVEL).slice() as Uint8Array<ArrayBuffer>,
        uncompressedByteLength: raw.byteLength,
      }));
      const file = write(container);
      writeFileSync(resolve(folder, propTextureFile(region.name, surface)), file);
      total += file.byteLength;
      console.log(`${propTextureFile(region.name, surface)}: ${(file.byteLength / 1024).toFixed(0)} KiB`);
    }
  }
  console.log(`total ${(total / 1024 / 1024).toFixed(2)} MiB`);
}

await main();
