/**
 * KTX2 streamed by HTTP Range from a local server (Node), bytes counted on the server:
 * - `sources.ktx2.first_frame_bytes`: bytes sent before a 2048² BC7 texture can draw its first
 *   textured frame (metadata request + pinned chain, levels of at most 64 texels), per texture;
 * - `sources.ktx2.mip2_bytes_ratio`: bytes sent for a view that needs mip 2 (pinned chain, then
 *   levels 2.. as the streamer asks for them) over the whole file, which three's KTX2Loader
 *   downloads in every case (`sources.ktx2.whole_file_bytes`).
 * The same for a 1024² BC7 and a 2048² rgba8 file (sizes not used to pick `KTX2_OPEN_BYTES`).
 */

import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { PINNED_MAX_EDGE } from '../src/core/streaming/planning/mip-streaming-planner';
import { Ktx2Source } from '../src/sources/mips/ktx2-source';
import { type Ktx2FixtureOptions, writeKtx2Fixture } from '../test/support/ktx2-fixtures';

interface Ktx2Figures {
  firstFrameBytes: number;
  mip2Bytes: number;
  wholeFileBytes: number;
  requests: number;
}

async function measure(options: Ktx2FixtureOptions): Promise<Ktx2Figures> {
  const file = await writeKtx2Fixture(options);
  let sent = 0;
  let requests = 0;
  const server = createServer((req, res) => {
    const m = /^bytes=(\d+)-(\d+)$/.exec(req.headers.range ?? '');
    requests++;
    if (m === null) {
      sent += file.length;
      res.writeHead(200, { 'content-length': file.length });
      res.end(file);
      return;
    }
    const start = Number(m[1]);
    const end = Math.min(Number(m[2]), file.length - 1);
    sent += end - start + 1;
    res.writeHead(206, { 'content-range': `bytes ${start}-${end}/${file.length}` });
    res.end(file.subarray(start, end + 1));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  try {
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/t.ktx2`;
    const signal = new AbortController().signal;
    const source = await Ktx2Source.open(url);
    let pinned = 0;
    while (Math.max(source.width >> pinned, source.height >> pinned) > PINNED_MAX_EDGE) pinned++;
    const chain = (from: number, to: number) => {
      const loads = [];
      for (let level = from; level < to; level++) loads.push(source.loadLevel(level, signal));
      return Promise.all(loads);
    };
    await chain(pinned, source.mipLevelCount);
    const firstFrameBytes = sent;
    await chain(2, pinned);
    return { firstFrameBytes, mip2Bytes: sent, wholeFileBytes: file.length, requests };
  } finally {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
}

export default {
  name: 'sources-ktx2',
  async run(): Promise<Record<string, number>> {
    const results: Record<string, number> = {};
    const cases: [string, Ktx2FixtureOptions][] = [
      ['', { width: 2048, height: 2048, payload: 'bc7' }],
      ['bc7_1024.', { width: 1024, height: 1024, payload: 'bc7' }],
      ['rgba8_2048.', { width: 2048, height: 2048, payload: 'rgba8' }],
    ];
    for (const [key, options] of cases) {
      const figures = await measure(options);
      results[`sources.ktx2.${key}first_frame_bytes`] = figures.firstFrameBytes;
      results[`sources.ktx2.${key}mip2_bytes_ratio`] = figures.mip2Bytes / figures.wholeFileBytes;
      results[`sources.ktx2.${key}whole_file_bytes`] = figures.wholeFileBytes;
      results[`sources.ktx2.${key}requests`] = figures.requests;
    }
    return results;
  },
};
