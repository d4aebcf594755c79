import { ArchiveWriter, MemoryArchiveSink } from '../../../src/sources/archive/archive-writer';
import type { PayloadEncodingName } from '../../../src/sources/io/payload-encoding';
import { deflateRaw } from '../../../src/sources/io/png-codec';
import { ProceduralWorld } from '../../../src/sources/procedural/procedural-world';
import { encodePng } from '../../support/png-encoder';

/** Encodes one rgba8 tile for the given encoding (raw, deflate, png only: sync). */
export function encodeSync(encoding: PayloadEncodingName, rgba: Uint8Array, size: number): Uint8Array {
  if (encoding === 'raw') return rgba;
  if (encoding === 'deflate') return deflateRaw(rgba);
  if (encoding === 'png') return encodePng(rgba, size, size);
  throw new Error(`fixture cannot encode ${encoding}`);
}

/** A small procedural archive (4x4 pages of 32² texels, border 2, 3 mips) and its source tiles. */
export function buildTestArchive(encodings: [PayloadEncodingName, PayloadEncodingName] = ['png', 'deflate']) {
  const world = new ProceduralWorld({ seed: 3, widthPages: 4, tileSize: 32, border: 2 });
  const sink = new MemoryArchiveSink();
  const writer = new ArchiveWriter(
    {
      widthPages: 4,
      heightPages: 4,
      tileSize: 32,
      border: 2,
      mipCount: 3,
      contentWidth: 4 * 28,
      contentHeight: 4 * 28,
      layers: [
        { name: 'albedo', encoding: encodings[0], colorSpace: 'srgb' },
        { name: 'normal', encoding: encodings[1], colorSpace: 'linear' },
      ],
    },
    sink,
  );
  const tiles = new Map<string, [Uint8Array, Uint8Array]>();
  for (let mip = 2; mip >= 0; mip--) {
    const n = 4 >> mip;
    for (let y = 0; y < n; y++) {
      for (let x = 0; x < n; x++) {
        const a = new Uint8Array(32 * 32 * 4);
        const nm = new Uint8Array(32 * 32 * 4);
        world.generateTile(mip, x, y, a, nm);
        tiles.set(`${mip}/${x}/${y}`, [a, nm]);
        writer.addTile(mip, x, y, [encodeSync(encodings[0], a, 32), encodeSync(encodings[1], nm, 32)]);
      }
    }
  }
  writer.finish();
  return { bytes: sink.toBytes(), tiles };
}
