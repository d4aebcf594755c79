import { FeedbackAnalyzer } from '../src/core/vt/feedback/feedback-analyzer';
import { NO_REQUEST, packPageId } from '../src/core/vt/page-id';
import { PageTable } from '../src/core/vt/page-table/page-table';
import { VirtualTextureLayout } from '../src/core/vt/vt-layout';

function median(xs: number[]): number {
  const s = xs.slice().sort((a, b) => a - b);
  return s[s.length >> 1];
}

/** Ground-plane texel coordinates hit by screen pixel (sx, sy), or null for sky. */
function groundHit(sx: number, sy: number, out: Float64Array): boolean {
  const f = 1000; // focal length in screen pixels (~88 degree horizontal FOV at 1920)
  const pitch = (25 * Math.PI) / 180;
  const height = 300; // camera height, in texels
  const rx = sx - 960;
  const ry = 540 - sy;
  // forward = (0, -sin p, cos p), up = (0, cos p, sin p), right = (1, 0, 0)
  const dx = rx;
  const dy = -Math.sin(pitch) * f + Math.cos(pitch) * ry;
  const dz = Math.cos(pitch) * f + Math.sin(pitch) * ry;
  if (dy >= -1e-6) return false;
  const t = height / -dy;
  out[0] = 61440 + t * dx;
  out[1] = 20000 + t * dz;
  return true;
}

/**
 * A fly-over 240x135 feedback buffer (1/8 of 1080p): a camera 300 texels above a 1024x1024-page
 * ground texture (120 payload texels per page), pitched down 25 degrees; mip from the screen-space
 * footprint of one screen pixel, as the GPU feedback pass computes it; sky requests nothing.
 */
function flyoverBuffer(width: number, height: number): Uint32Array {
  const buf = new Uint32Array(width * height);
  const p = new Float64Array(2);
  const px1 = new Float64Array(2);
  const py1 = new Float64Array(2);
  const scale = 1920 / width;
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const sx = x * scale + scale / 2;
      const sy = y * scale + scale / 2;
      if (!groundHit(sx, sy, p) || !groundHit(sx + 1, sy, px1) || !groundHit(sx, sy + 1, py1)) {
        buf[y * width + x] = NO_REQUEST;
        continue;
      }
      const footprint = Math.max(
        Math.hypot(px1[0] - p[0], px1[1] - p[1]),
        Math.hypot(py1[0] - p[0], py1[1] - p[1]),
      );
      const mip = Math.min(10, Math.max(0, Math.floor(Math.log2(Math.max(1, footprint)))));
      const pages = 1024 >> mip;
      const pageTexels = 120 << mip;
      const u = Math.floor(p[0] / pageTexels);
      const v = Math.floor(p[1] / pageTexels);
      if (u < 0 || v < 0 || u >= pages || v >= pages) {
        buf[y * width + x] = NO_REQUEST;
        continue;
      }
      buf[y * width + x] = packPageId(0, mip, u, v);
    }
  }
  return buf;
}

export default {
  name: 'core',
  async run(): Promise<Record<string, number>> {
    const layout = new VirtualTextureLayout({ widthPages: 1024, heightPages: 1024 });
    const analyzer = new FeedbackAnalyzer({ maxPixels: 240 * 135 });
    analyzer.setLayout(0, layout);
    const buf = flyoverBuffer(240, 135);
    for (let i = 0; i < 500; i++) analyzer.analyze(buf);
    const times: number[] = [];
    for (let rep = 0; rep < 200; rep++) {
      const t0 = performance.now();
      for (let i = 0; i < 10; i++) analyzer.analyze(buf);
      times.push((performance.now() - t0) / 10);
    }
    const analyzeMs = median(times);

    // 32 map/unmap operations on a 1024x1024-page table with pinned coarse levels resident.
    const table = new PageTable(layout);
    let slot = 0;
    for (let m = layout.firstPinnedMip; m < layout.mipCount; m++) {
      for (let y = 0; y < layout.mipHeights[m]; y++) {
        for (let x = 0; x < layout.mipWidths[m]; x++) table.map(m, x, y, slot++);
      }
    }
    // Realistic churn: pages of mips 0..2 around the camera, mapped then unmapped later.
    const ops: number[] = [];
    let seed = 12345;
    const rnd = () => {
      seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
      return seed / 2 ** 32;
    };
    for (let i = 0; i < 4096; i++) {
      const mip = Math.floor(rnd() * 3);
      ops.push(
        mip,
        Math.floor(rnd() * (64 >> mip)) + (400 >> mip),
        Math.floor(rnd() * (64 >> mip)) + (300 >> mip),
      );
    }
    const updTimes: number[] = [];
    const dirty: number[] = [];
    let k = 0;
    for (let rep = 0; rep < 2000; rep++) {
      table.clearDirty();
      const t0 = performance.now();
      for (let i = 0; i < 32; i++) {
        const o = (k++ % 4096) * 3;
        const [m, x, y] = [ops[o], ops[o + 1], ops[o + 2]];
        if (table.isResident(m, x, y)) table.unmap(m, x, y);
        else table.map(m, x, y, 100 + (k & 1023));
      }
      updTimes.push(performance.now() - t0);
      dirty.push(table.dirtyBytes);
    }
    return {
      'feedback.analyze.240x135.median_ms': analyzeMs,
      'feedback.analyze.240x135.ns_per_pixel': (analyzeMs * 1e6) / buf.length,
      'pagetable.update32.median_ms': median(updTimes.slice(200)),
      'pagetable.update32.dirty_bytes': median(dirty.slice(200)),
    };
  },
};
