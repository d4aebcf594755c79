/**
 * Writes `assets/examples/earth-8192x4096.tif`, the COG example's image: Debian's xplanet-images
 * Earth map magnified to 8192 x 4096 texels (Lanczos), a tiled pyramidal TIFF with JPEG tiles of
 * 256² and overviews down to one tile, as `vips tiffsave --tile --pyramid` and
 * `gdal_translate -of COG` write them. Run with `npm run bake:examples`.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { writeSharpCog } from '../../test/support/imagery/cog-fixtures';
import { loadEarthImage } from '../../test/support/imagery/earth-image';

const root = resolve(import.meta.dirname, '../..');
const out = join(root, 'assets/examples/earth-8192x4096.tif');
const image = await loadEarthImage(8192, 4096);
mkdirSync(join(root, 'assets/examples'), { recursive: true });
writeFileSync(out, await writeSharpCog(image, { compression: 'jpeg', channels: 3, quality: 80 }));
console.log(`wrote ${out}`);
