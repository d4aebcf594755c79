import { afterEach, describe, expect, it, vi } from 'vitest';
import { ArchiveTileSource } from '../../../src/sources/archive/archive-tile-source';
import { HttpClient } from '../../../src/sources/io/http/http-client';
import { MemoryRangeReader } from '../../../src/sources/io/range-reader';
import { defaultHttpClient, leaseSourceRuntime, sourceIo } from '../../../src/sources/io/source-runtime';
import { InlineTileDecoder } from '../../../src/sources/io/tile-decoder';
import { buildTestArchive } from './archive-fixtures';

afterEach(() => vi.restoreAllMocks());

describe('the shared source runtime', () => {
  it('every lease of the default shares one client and one decoder, stopped with the last lease', () => {
    const a = leaseSourceRuntime();
    const b = leaseSourceRuntime();
    expect(a.runtime).toBe(b.runtime);
    expect(a.runtime.http).toBe(defaultHttpClient());
    const decoder = a.runtime.decoder;
    expect(b.runtime.decoder).toBe(decoder);
    a.release();
    a.release(); // idempotent: b still holds it
    expect(b.runtime.decoder).toBe(decoder);
    b.release();
    const c = leaseSourceRuntime();
    // A new default after the last release (its decoder made anew), the same client.
    expect(c.runtime).not.toBe(a.runtime);
    expect(c.runtime.http).toBe(defaultHttpClient());
    c.release();
  });

  it('a given runtime is used as is, with nothing to release', () => {
    const given = { http: new HttpClient(), decoder: leaseSourceRuntime().runtime.decoder };
    const lease = leaseSourceRuntime(given);
    expect(lease.runtime).toBe(given);
    lease.release();
  });

  it('sourceIo: http wins over the runtime; the deprecated client and options forms still work, warning once each', () => {
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => {});
    const own = new HttpClient();
    expect(sourceIo({ http: own }).http).toBe(own);
    expect(sourceIo({}).http).toBe(defaultHttpClient());
    const legacy = new HttpClient();
    expect(sourceIo({ client: legacy }).http).toBe(legacy);
    expect(sourceIo({ client: legacy }).http).toBe(legacy);
    const fromOptions = sourceIo({ http: { retries: 1 } }).http;
    expect(fromOptions).toBeInstanceOf(HttpClient);
    expect(fromOptions).not.toBe(defaultHttpClient());
    const messages = warn.mock.calls.map((call) => String(call[0]));
    expect(messages.filter((m) => m.includes('the client option of a source'))).toHaveLength(1);
    expect(messages.filter((m) => m.includes('HTTP client options as a source option'))).toHaveLength(1);
    expect(messages.every((m) => m.includes('is deprecated'))).toBe(true);
  });

  it("a decoder given to a source is the caller's: disposing the source, or a failed open, leaves it running", async () => {
    /** The inline decoder, counting the disposes it gets. */
    class CountingDecoder extends InlineTileDecoder {
      disposes = 0;
      dispose(): void {
        this.disposes++;
      }
    }
    const decoder = new CountingDecoder();
    const { bytes, tiles } = buildTestArchive(['raw', 'deflate']);
    const signal = new AbortController().signal;
    // Two archives share the one decoder, as a caller may.
    const first = await ArchiveTileSource.open(new MemoryRangeReader(bytes), { decoder });
    const second = await ArchiveTileSource.open(new MemoryRangeReader(bytes), { decoder });
    first.dispose();
    expect(decoder.disposes).toBe(0);
    // The other source still decodes through it.
    const tile = await second.load(0, 1, 1, signal);
    expect(tile.layers[0]).toEqual((tiles.get('0/1/1') as Uint8Array[])[0]);
    second.dispose();
    // A failed open lets go of what it leased, not of the caller's decoder.
    await expect(
      ArchiveTileSource.open(new MemoryRangeReader(bytes.subarray(0, 16)), { decoder }),
    ).rejects.toBeDefined();
    expect(decoder.disposes).toBe(0);
  });
});
