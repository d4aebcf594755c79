import { describe, expect, it } from 'vitest';
import { TileSourceError } from '../../../src/core/errors';
import { levelByteLength } from '../../../src/core/streaming/mip-pyramid-source';
import { KTX2_HEADER_BYTES, KTX2_LEVEL_ENTRY_BYTES } from '../../../src/sources/mips/ktx2-layout';
import { Ktx2Source } from '../../../src/sources/mips/ktx2-source';
import { asStored, writeKtx2Fixture } from '../../support/ktx2-fixtures';

const live = () => new AbortController().signal;

function setU32(bytes: Uint8Array, at: number, value: number): Uint8Array {
  new DataView(bytes.buffer, bytes.byteOffset).setUint32(at, value, true);
  return bytes;
}

function setByte(bytes: Uint8Array, at: number, value: number): Uint8Array {
  bytes[at] = value;
  return bytes;
}

function codeOf(run: () => unknown): string {
  try {
    run();
  } catch (error) {
    if (!(error instanceof TileSourceError)) throw error;
    return error.code;
  }
  return 'ok';
}

const base = await writeKtx2Fixture({ width: 256, height: 256, payload: 'bc7' });
const dfdOffset = new DataView(base.buffer).getUint32(48, true);

describe('Ktx2Source: bad input is a typed error', () => {
  it('accepts the unmodified file', () => {
    expect(codeOf(() => new Ktx2Source(base))).toBe('ok');
  });

  const mutations: [string, string, (b: Uint8Array) => Uint8Array][] = [
    ['bad magic', 'bad-magic', (b) => setByte(b, 1, 0)],
    ['header cut short', 'truncated', (b) => b.subarray(0, 60)],
    [
      'level index cut short',
      'truncated',
      (b) => b.subarray(0, KTX2_HEADER_BYTES + 2 * KTX2_LEVEL_ENTRY_BYTES),
    ],
    ['level offset past the file', 'bad-index', (b) => setU32(b, KTX2_HEADER_BYTES, b.length + 16)],
    ['level length past the file', 'bad-index', (b) => setU32(b, KTX2_HEADER_BYTES + 8, b.length)],
    ['level inside the metadata', 'bad-index', (b) => setU32(b, KTX2_HEADER_BYTES, 8)],
    ['wrong uncompressed length', 'bad-index', (b) => setU32(b, KTX2_HEADER_BYTES + 16, 17)],
    ['unknown vkFormat', 'unsupported', (b) => setU32(b, 12, 999_999)],
    ['unknown supercompression', 'unsupported', (b) => setU32(b, 44, 9)],
    ['BasisLZ without the ETC1S DFD model', 'corrupt', (b) => setU32(b, 44, 1)],
    ['ETC1S colour model without BasisLZ', 'corrupt', (b) => setU32(setByte(b, dfdOffset + 12, 163), 12, 0)],
    ['UASTC colour model with a vkFormat', 'corrupt', (b) => setByte(b, dfdOffset + 12, 166)],
    ['cube map', 'unsupported', (b) => setU32(b, 36, 6)],
    ['array', 'unsupported', (b) => setU32(b, 32, 4)],
    ['3D texture', 'unsupported', (b) => setU32(b, 28, 8)],
    ['DFD colour model of another format', 'corrupt', (b) => setByte(b, dfdOffset + 12, 1)],
    ['DFD transfer function not sRGB for an sRGB format', 'corrupt', (b) => setByte(b, dfdOffset + 14, 1)],
    ['DFD block size not 4x4', 'corrupt', (b) => setByte(b, dfdOffset + 16, 7)],
    ['DFD too short', 'corrupt', (b) => setU32(b, 52, 8)],
    ['zero width', 'corrupt', (b) => setU32(b, 20, 0)],
    ['huge width', 'oversized', (b) => setU32(b, 20, 1 << 20)],
    ['no level down to 64 texels', 'unsupported', (b) => setU32(b, 40, 2)],
    ['metadata past 1 MiB', 'oversized', (b) => setU32(b, 52, 1 << 21)],
  ];
  for (const [name, code, mutate] of mutations) {
    it(`${name} -> ${code}`, () => {
      expect(codeOf(() => new Ktx2Source(mutate(base.slice())))).toBe(code);
    });
  }

  it('fuzz: 3000 mutated headers, indexes and DFDs give typed errors or exact levels, nothing else', async () => {
    let seed = 0x9e3779b9;
    const random = () => {
      seed = (seed * 1664525 + 1013904223) >>> 0;
      return seed / 2 ** 32;
    };
    const files = [
      base,
      await writeKtx2Fixture({ width: 128, height: 64, payload: 'rgba8', supercompression: 'zstd' }),
      await writeKtx2Fixture({ width: 64, height: 128, payload: 'bc7', supercompression: 'zlib' }),
    ];
    const outcomes = new Map<string, number>();
    for (let run = 0; run < 3000; run++) {
      const file = files[run % files.length];
      const bytes = file.slice();
      const metadataEnd = Math.min(bytes.length, dfdOffset + 48);
      const edits = 1 + Math.floor(random() * 4);
      for (let e = 0; e < edits; e++) {
        const at = Math.floor(random() * metadataEnd);
        bytes[at] = random() < 0.5 ? Math.floor(random() * 256) : bytes[at] ^ (1 << Math.floor(random() * 8));
      }
      let source: Ktx2Source;
      try {
        source = new Ktx2Source(bytes);
      } catch (error) {
        expect(error).toBeInstanceOf(TileSourceError);
        const code = (error as TileSourceError).code;
        outcomes.set(code, (outcomes.get(code) ?? 0) + 1);
        continue;
      }
      outcomes.set('ok', (outcomes.get('ok') ?? 0) + 1);
      for (let level = 0; level < source.mipLevelCount; level++) {
        try {
          const data = await source.loadLevel(level, live());
          expect(data.byteLength).toBe(
            levelByteLength(asStored(source).format, source.width, source.height, level),
          );
        } catch (error) {
          expect(error).toBeInstanceOf(TileSourceError);
        }
      }
    }
    // The mutations reach several checks, not one.
    expect(outcomes.size).toBeGreaterThanOrEqual(5);
  });
});
