import { afterEach, describe, expect, it, vi } from 'vitest';
import { TileSourceError } from '../../../src/core/errors';
import { levelByteLength } from '../../../src/core/streaming/mip-pyramid-source';
import { HttpClient } from '../../../src/sources/io/http/http-client';
import { KTX2_OPEN_BYTES, Ktx2Source } from '../../../src/sources/mips/ktx2-source';
import {
  asStored,
  expectedLevel,
  type Ktx2FixtureOptions,
  writeKtx2Fixture,
} from '../../support/ktx2-fixtures';
import { serveRange, startServer } from './misbehaving-server';

const fast = { retries: 1, baseDelayMs: 1, maxDelayMs: 2, timeoutMs: 2000, random: () => 0.5 };
const live = () => new AbortController().signal;
let server: Awaited<ReturnType<typeof startServer>> | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

/** Bytes the server sent for each request (from the Range asked), and the request count. */
function bodyBytes(ranges: string[], fileBytes: number): number {
  let total = 0;
  for (const range of ranges) {
    const match = /^bytes=(\d+)-(\d+)$/.exec(range);
    total += match === null ? fileBytes : Math.min(Number(match[2]), fileBytes - 1) - Number(match[1]) + 1;
  }
  return total;
}

const cases: Ktx2FixtureOptions[] = [
  { width: 256, height: 256, payload: 'rgba8' },
  { width: 512, height: 256, payload: 'bc7' },
  { width: 256, height: 128, payload: 'bc7', srgb: false, supercompression: 'zstd' },
  { width: 128, height: 256, payload: 'rgba8', supercompression: 'zlib' },
];

describe('Ktx2Source over HTTP Range', { timeout: 30_000 }, () => {
  for (const options of cases) {
    const label = `${options.payload} ${options.width}x${options.height} ${options.supercompression ?? 'none'}`;
    it(`${label}: opens with one small request, then one request per chain, byte-exact`, async () => {
      const file = await writeKtx2Fixture(options);
      server = await startServer(file);
      const source = await Ktx2Source.open(server.url('/t.ktx2'), { http: new HttpClient(fast) });
      expect(server.count('/t.ktx2')).toBe(1);
      expect(server.ranges).toEqual([`bytes=0-${KTX2_OPEN_BYTES - 1}`]);
      expect(source.openBytes).toBeLessThanOrEqual(KTX2_OPEN_BYTES);
      expect(source.fileBytes).toBe(file.length);
      expect(source.format).toBe(
        options.payload === 'rgba8'
          ? options.srgb === false
            ? 'rgba8unorm'
            : 'rgba8unorm-srgb'
          : options.srgb === false
            ? 'bc7-rgba-unorm'
            : 'bc7-rgba-unorm-srgb',
      );
      const count = source.mipLevelCount;
      // Coarsest first, as the streamer asks: the pinned chain (levels <= 64 texels) in one go.
      const pinned = [];
      for (
        let level = count - 1;
        level >= 0 && Math.max(options.width >> level, options.height >> level) <= 64;
        level--
      )
        pinned.push(level);
      const coarse = await Promise.all(pinned.map((level) => source.loadLevel(level, live())));
      // A chain stored within the bytes the open read (small supercompressed levels) costs no request.
      const { levelOffsets, levelLengths } = source.layout;
      const chainEnd = Math.max(...pinned.map((level) => levelOffsets[level] + levelLengths[level]));
      const chainRequests = chainEnd <= source.openBytes ? 0 : 1;
      expect(server.count('/t.ktx2')).toBe(1 + chainRequests);
      pinned.forEach((level, i) => {
        expect(coarse[i].byteLength).toBe(
          levelByteLength(asStored(source).format, source.width, source.height, level),
        );
        expect(Buffer.from(coarse[i]).equals(Buffer.from(expectedLevel(options, level)))).toBe(true);
      });
      // Solid colours inflate from a few bytes, so only raw files show the saving.
      if ((options.supercompression ?? 'none') === 'none')
        expect(bodyBytes(server.ranges, file.length)).toBeLessThan(file.length / 4);
      const finest = await source.loadLevel(0, live());
      expect(Buffer.from(finest).equals(Buffer.from(expectedLevel(options, 0)))).toBe(true);
      const finestRequests = levelOffsets[0] + levelLengths[0] <= source.openBytes ? 0 : 1;
      expect(server.count('/t.ktx2')).toBe(1 + chainRequests + finestRequests);
      expect(source.levelRequestCount).toBe(2);
    });
  }

  it('a view needing only mip 2 downloads at most 1/8 of the file', async () => {
    const options: Ktx2FixtureOptions = { width: 1024, height: 1024, payload: 'bc7' };
    const file = await writeKtx2Fixture(options);
    server = await startServer(file);
    const source = await Ktx2Source.open(server.url('/t.ktx2'), { http: new HttpClient(fast) });
    const levels = [];
    for (let level = 2; level < source.mipLevelCount; level++) levels.push(source.loadLevel(level, live()));
    await Promise.all(levels);
    const downloaded = bodyBytes(server.ranges, file.length);
    expect(downloaded / file.length).toBeLessThanOrEqual(1 / 8);
    expect(downloaded).toBeGreaterThan(levelByteLength(asStored(source).format, 1024, 1024, 2));
  });

  it('falls back to one whole download when the server ignores Range, warning once', async () => {
    const file = await writeKtx2Fixture({ width: 128, height: 128, payload: 'rgba8' });
    server = await startServer(file, {
      '/plain.ktx2': (_req, res) => {
        res.writeHead(200, { 'content-length': file.length });
        res.end(file);
        return true;
      },
    });
    const warn = vi.fn();
    const first = await Ktx2Source.open(server.url('/plain.ktx2'), { http: new HttpClient(fast), warn });
    const second = await Ktx2Source.open(server.url('/plain.ktx2'), { http: new HttpClient(fast), warn });
    expect(server.count('/plain.ktx2')).toBe(2);
    expect(warn).toHaveBeenCalledTimes(1);
    expect(first.fileBytes).toBe(file.length);
    const level = await second.loadLevel(0, live());
    expect(
      Buffer.from(level).equals(Buffer.from(expectedLevel({ width: 128, height: 128, payload: 'rgba8' }, 0))),
    ).toBe(true);
    expect(server.count('/plain.ktx2')).toBe(2);
  });

  it('retries a level read answered 200 (a glitch after a Range-answered open), through a shared client', async () => {
    const options: Ktx2FixtureOptions = { width: 128, height: 128, payload: 'rgba8' };
    const file = await writeKtx2Fixture(options);
    server = await startServer(file, {
      '/glitch.ktx2': (_req, res, served) => {
        if (served !== 1) return false;
        res.writeHead(200, { 'content-length': file.length });
        res.end(file);
        return true;
      },
    });
    const client = new HttpClient(fast);
    const warn = vi.fn();
    const source = await Ktx2Source.open(server.url('/glitch.ktx2'), { http: client, warn });
    const level = await source.loadLevel(0, live());
    expect(Buffer.from(level).equals(Buffer.from(expectedLevel(options, 0)))).toBe(true);
    expect(server.count('/glitch.ktx2')).toBe(3);
    expect(client.counters).toMatchObject({ requests: 3, retries: 1, failures: 1 });
    expect(warn).not.toHaveBeenCalled();
  });

  it('reads metadata longer than the first request with exactly one more request', async () => {
    const options: Ktx2FixtureOptions = { width: 64, height: 64, payload: 'rgba8' };
    const small = await writeKtx2Fixture(options);
    // A key/value section of 3000 bytes pushes the level data past the first request.
    const { read, write } = await import('ktx-parse');
    const container = read(small);
    container.keyValue.padding = 'x'.repeat(3000);
    const file = write(container);
    server = await startServer(file);
    const source = await Ktx2Source.open(server.url('/big.ktx2'), { http: new HttpClient(fast) });
    expect(server.count('/big.ktx2')).toBe(2);
    expect(source.openBytes).toBeGreaterThan(3000);
    const level = await source.loadLevel(source.mipLevelCount - 1, live());
    expect(Buffer.from(level).equals(Buffer.from(expectedLevel(options, source.mipLevelCount - 1)))).toBe(
      true,
    );
  });

  it('an aborted level rejects alone; the others of its request still arrive', async () => {
    const options: Ktx2FixtureOptions = { width: 64, height: 64, payload: 'rgba8' };
    const file = await writeKtx2Fixture(options);
    server = await startServer(file);
    const source = await Ktx2Source.open(server.url('/t.ktx2'), { http: new HttpClient(fast) });
    const controller = new AbortController();
    const aborted = source.loadLevel(3, controller.signal);
    const kept = source.loadLevel(4, live());
    controller.abort();
    await expect(aborted).rejects.toBeDefined();
    expect(Buffer.from(await kept).equals(Buffer.from(expectedLevel(options, 4)))).toBe(true);
  });

  it('a corrupt level payload is a typed error for that level only', async () => {
    const options: Ktx2FixtureOptions = { width: 128, height: 128, payload: 'bc7', supercompression: 'zstd' };
    const file = await writeKtx2Fixture(options);
    const source = new Ktx2Source(file);
    const offset = source.layout.levelOffsets[0];
    const broken = file.slice();
    for (let i = 8; i < source.layout.levelLengths[0]; i++) broken[offset + i] ^= 0x5a;
    server = await startServer(broken);
    const remote = await Ktx2Source.open(server.url('/z.ktx2'), { http: new HttpClient(fast) });
    const error = await remote.loadLevel(0, live()).catch((e) => e);
    expect(error).toBeInstanceOf(TileSourceError);
    expect((error as TileSourceError).code).toBe('decode-failed');
    const coarse = await remote.loadLevel(remote.mipLevelCount - 1, live());
    expect(Buffer.from(coarse).equals(Buffer.from(expectedLevel(options, remote.mipLevelCount - 1)))).toBe(
      true,
    );
  });

  it('HTTP errors while opening are typed', async () => {
    server = await startServer(new Uint8Array(10), {
      '/missing.ktx2': (_req, res) => {
        res.writeHead(404);
        res.end();
        return true;
      },
    });
    const missing = await Ktx2Source.open(server.url('/missing.ktx2'), { http: new HttpClient(fast) }).catch(
      (e) => e,
    );
    expect((missing as TileSourceError).code).toBe('http-status');
    const short = await Ktx2Source.open(server.url('/short.ktx2'), { http: new HttpClient(fast) }).catch(
      (e) => e,
    );
    expect((short as TileSourceError).code).toBe('truncated');
    void serveRange;
  });
});
