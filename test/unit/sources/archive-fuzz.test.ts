import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it, type MockInstance, vi } from 'vitest';
import { TileSourceError } from '../../../src/core/errors';
import { parseArchivePrefix } from '../../../src/sources/archive/archive-header-codec';
import { ArchiveTileSource } from '../../../src/sources/archive/archive-tile-source';
import { MemoryArchiveSink } from '../../../src/sources/archive/archive-writer';
import { crc32 } from '../../../src/sources/archive/crc32';
import { bakeProcedural } from '../../../src/sources/bake/bake-archive';
import { createNodeImageCodecs } from '../../../src/sources/io/node-image-codecs';
import { MemoryRangeReader } from '../../../src/sources/io/range-reader';
import { InlineTileDecoder } from '../../../src/sources/io/tile-decoder';
import { buildTestArchive } from './archive-fixtures';

const { bytes: base } = buildTestArchive(['png', 'deflate']);
const { bytes: rawBase } = buildTestArchive(['raw', 'png']);
/** Version-2 archives: UASTC blocks raw and as zstd frames (4x4 pages of 32² texels, border 4). */
const uastcBases: Uint8Array[] = [];
const decoder = new InlineTileDecoder(createNodeImageCodecs());

// Every mutated archive is a new source, so each warns once for its undecodable tiles: keep the
// run's output readable, and check the warnings are Tessera's one-line decode warnings.
let warn: MockInstance<typeof console.warn>;
beforeAll(async () => {
  warn = vi.spyOn(console, 'warn').mockImplementation(() => {});
  for (const encoding of ['uastc', 'uastc-zstd'] as const) {
    const sink = new MemoryArchiveSink();
    await bakeProcedural(3, 4, { tileSize: 32, border: 4, encoding, rdoLambda: 1 }, sink);
    uastcBases.push(sink.toBytes());
  }
  // Each bake starts encoding workers that load the Basis wasm: seconds on a loaded machine.
}, 120_000);
afterAll(() => {
  for (const [message] of warn.mock.calls) expect(String(message)).toMatch(/^tessera: cannot decode /);
  warn.mockRestore();
});
const HEADER_FIELDS = [
  4, 6, 8, 10, 12, 14, 16, 17, 18, 20, 24, 28, 32, 40, 44, 48, 80, 81, 82, 88, 120, 121, 122,
];

type Mutation =
  | { kind: 'flip'; at: number; bit: number }
  | { kind: 'set'; at: number; value: number }
  | { kind: 'field'; field: number; value: number }
  | { kind: 'truncate'; at: number }
  | { kind: 'insert'; at: number; bytes: Uint8Array };

const mutation: fc.Arbitrary<Mutation> = fc.oneof(
  fc.record({ kind: fc.constant('flip' as const), at: fc.nat(), bit: fc.integer({ min: 0, max: 7 }) }),
  fc.record({ kind: fc.constant('set' as const), at: fc.nat(), value: fc.integer({ min: 0, max: 255 }) }),
  fc.record({
    kind: fc.constant('field' as const),
    field: fc.constantFrom(...HEADER_FIELDS),
    value: fc.oneof(fc.constantFrom(0, 1, 0xffff, 0xffffffff, 4096, 8192), fc.nat()),
  }),
  fc.record({ kind: fc.constant('truncate' as const), at: fc.nat() }),
  fc.record({
    kind: fc.constant('insert' as const),
    at: fc.nat(),
    bytes: fc.uint8Array({ minLength: 1, maxLength: 16 }),
  }),
);

function mutate(source: Uint8Array, mutations: Mutation[], fixCrc: boolean): Uint8Array {
  let bytes = source.slice();
  for (const m of mutations) {
    if (bytes.length === 0) break;
    if (m.kind === 'flip') bytes[m.at % bytes.length] ^= 1 << m.bit;
    else if (m.kind === 'set') bytes[m.at % bytes.length] = m.value;
    else if (m.kind === 'field' && m.field + 4 <= bytes.length) {
      new DataView(bytes.buffer).setUint32(m.field, m.value >>> 0, true);
    } else if (m.kind === 'truncate') bytes = bytes.slice(0, m.at % bytes.length);
    else if (m.kind === 'insert') {
      const at = m.at % bytes.length;
      const out = new Uint8Array(bytes.length + m.bytes.length);
      out.set(bytes.subarray(0, at), 0);
      out.set(m.bytes, at);
      out.set(bytes.subarray(at), at + m.bytes.length);
      bytes = out;
    }
  }
  if (fixCrc) {
    // Recomputing the checksum lets mutations reach the index bounds checks and the decoders.
    try {
      const { dataStart } = parseArchivePrefix(bytes);
      if (bytes.length >= dataStart) {
        const view = new DataView(bytes.buffer);
        view.setUint32(36, 0, true);
        view.setUint32(36, crc32(bytes, 0, dataStart), true);
      }
    } catch {}
  }
  return bytes;
}

/** Tiles of UASTC archives that loaded / were refused with a typed error, over the whole run. */
const uastcOutcomes = { loaded: 0, refused: 0 };

async function readEverything(bytes: Uint8Array): Promise<void> {
  const source = await ArchiveTileSource.open(new MemoryRangeReader(bytes), { decoder });
  const uastcArchive = source.info.layers.some((l) => l.format.startsWith('uastc'));
  const loads: Promise<unknown>[] = [];
  for (let mip = 0; mip < source.mipCount; mip++) {
    const n = source.info.widthPages >> mip;
    for (let y = 0; y < n; y++) {
      for (let x = 0; x < n; x++) {
        loads.push(
          source.load(mip, x, y, new AbortController().signal).then(
            (tile) => {
              const { tileSize, layers } = source.info;
              tile.layers.forEach((layer, i) => {
                const uastc = layers[i].format.startsWith('uastc');
                expect(layer.length).toBe(uastc ? (tileSize / 4) ** 2 * 16 : tileSize ** 2 * 4);
              });
              if (uastcArchive) uastcOutcomes.loaded++;
            },
            (error) => {
              if (!(error instanceof TileSourceError)) throw error;
              if (uastcArchive) uastcOutcomes.refused++;
            },
          ),
        );
      }
    }
  }
  await Promise.all(loads);
}

describe('archive reader fuzzing', () => {
  it('answers 10,000 mutated archives (versions 1 and 2) with tiles or typed errors only, never a hang', async () => {
    let typed = 0;
    let opened = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 0, max: 3 }),
        fc.boolean(),
        fc.array(mutation, { minLength: 1, maxLength: 4 }),
        async (which, fixCrc, mutations) => {
          // Version 1 (PNG + DEFLATE, raw + PNG) and version 2 (UASTC, UASTC + zstd), a quarter each.
          const bytes = mutate([base, rawBase, ...uastcBases][which], mutations, fixCrc);
          let timer: ReturnType<typeof setTimeout> | undefined;
          const hang = new Promise<never>((_, reject) => {
            timer = setTimeout(() => reject(new Error('hang: no answer within 2 s')), 2000);
          });
          try {
            await Promise.race([readEverything(bytes), hang]);
            opened++;
          } catch (error) {
            if (!(error instanceof TileSourceError)) throw error;
            typed++;
          } finally {
            clearTimeout(timer);
          }
        },
      ),
      { numRuns: 10_000, seed: 20261130 },
    );
    expect(typed + opened).toBe(10_000);
    // Both outcomes occur, so the property exercises the parser and the decoders.
    expect(typed).toBeGreaterThan(1000);
    expect(opened).toBeGreaterThan(100);
    // Mutated UASTC payloads reach the zstd and block-size checks, and intact ones still load.
    expect(uastcOutcomes.loaded).toBeGreaterThan(1000);
    expect(uastcOutcomes.refused).toBeGreaterThan(100);
  }, 120_000);
});
