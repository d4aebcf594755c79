import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { FeedbackAnalyzer } from '../../../src/core/vt/feedback/feedback-analyzer';
import { NO_REQUEST, packPageId, parentPageId } from '../../../src/core/vt/page-id';
import { VirtualTextureLayout } from '../../../src/core/vt/vt-layout';

function analyzer(): FeedbackAnalyzer {
  const a = new FeedbackAnalyzer({ maxPixels: 64 });
  a.setLayout(0, new VirtualTextureLayout({ widthPages: 16, heightPages: 16 }));
  a.setLayout(2, new VirtualTextureLayout({ widthPages: 4, heightPages: 1 }));
  return a;
}

function results(a: FeedbackAnalyzer): Map<number, number> {
  const m = new Map<number, number>();
  for (let i = 0; i < a.count; i++) m.set(a.pages[i], a.coverage[i]);
  return m;
}

describe('FeedbackAnalyzer', () => {
  it('takes a GPU-compacted list (page, count) to the same pages, coverage and ancestors as the pixels', () => {
    const valid = fc.oneof(
      fc.record({ vt: fc.constant(0), mip: fc.integer({ min: 0, max: 4 }), x: fc.nat(15), y: fc.nat(15) }),
      fc.record({ vt: fc.constant(2), mip: fc.integer({ min: 0, max: 2 }), x: fc.nat(3), y: fc.constant(0) }),
    );
    const value = fc.oneof(
      valid.map(({ vt, mip, x, y }) => packPageId(vt, mip, x >> mip, y >> mip)),
      fc.constant(NO_REQUEST),
      // Malformed: a page of an unregistered texture.
      fc.constant(packPageId(5, 0, 1, 1)),
    );
    fc.assert(
      fc.property(fc.array(value, { maxLength: 64 }), (pixels) => {
        const byPixels = analyzer();
        byPixels.analyze(new Uint32Array(pixels));
        // What the GPU compaction reads back: each distinct value once with its count, any order.
        const counts = new Map<number, number>();
        for (const v of pixels) counts.set(v, (counts.get(v) ?? 0) + 1);
        const listed = [...counts].reverse();
        const byList = analyzer();
        byList.analyzeCounted(
          new Uint32Array(listed.map(([v]) => v)),
          new Uint32Array(listed.map(([, n]) => n)),
          listed.length,
        );
        expect(results(byList)).toEqual(results(byPixels));
        expect(byList.directCount).toBe(byPixels.directCount);
        expect(byList.stats.malformedPixels).toBe(byPixels.stats.malformedPixels);
        expect(byList.stats.pixels).toBe(pixels.length);
      }),
    );
  });

  it('counts coverage per distinct page and adds ancestors with zero coverage', () => {
    const a = analyzer();
    const p = packPageId(0, 0, 5, 9);
    const q = packPageId(0, 2, 1, 1);
    const buf = new Uint32Array([p, p, p, NO_REQUEST, q, p, NO_REQUEST]);
    a.analyze(buf);
    expect(a.directCount).toBe(2);
    const r = results(a);
    expect(r.get(p)).toBe(4);
    expect(r.get(q)).toBe(1);
    // p's ancestors at mips 1..4; q's at 3, 4 (shared).
    let anc = parentPageId(p);
    for (let m = 1; m <= 4; m++, anc = parentPageId(anc)) expect(r.get(anc)).toBe(0);
    expect(r.get(parentPageId(q))).toBe(0);
    // q's mip-3 parent (0,0) differs from p's (0,1); their mip-4 parent is shared.
    expect(a.count).toBe(2 + 4 + 1);
    expect(a.stats.emptyPixels).toBe(2);
    expect(a.stats.malformedPixels).toBe(0);
  });

  it('counts malformed values instead of throwing', () => {
    const a = analyzer();
    const buf = new Uint32Array([
      packPageId(1, 0, 0, 0), // vt 1 not registered
      packPageId(0, 5, 0, 0), // mip 5 >= 5 mips
      packPageId(0, 0, 16, 0), // x out of range
      packPageId(2, 1, 0, 1), // y out of range for a 2x1 mip
      packPageId(2, 1, 1, 0), // valid
      packPageId(0, 0, 16, 0),
    ]);
    expect(() => a.analyze(buf)).not.toThrow();
    expect(a.stats.malformedPixels).toBe(5);
    expect(a.directCount).toBe(1);
    expect(a.pages[0]).toBe(packPageId(2, 1, 1, 0));
  });

  it('honours length and reuses its output arrays (no allocation per call)', () => {
    const a = analyzer();
    const pages = a.pages;
    const coverage = a.coverage;
    const buf = new Uint32Array(64).fill(packPageId(0, 0, 1, 1));
    a.analyze(buf, 10);
    expect(a.coverage[0]).toBe(10);
    for (let i = 0; i < 1000; i++) a.analyze(buf);
    expect(a.pages).toBe(pages);
    expect(a.coverage).toBe(coverage);
    expect(a.coverage[0]).toBe(64);
  });

  it('keeps heap growth tiny over many calls', () => {
    const a = new FeedbackAnalyzer({ maxPixels: 240 * 135 });
    a.setLayout(0, new VirtualTextureLayout({ widthPages: 1024, heightPages: 1024 }));
    const buf = new Uint32Array(240 * 135);
    for (let i = 0; i < buf.length; i++) buf[i] = packPageId(0, i % 3, (i >> 4) & 255, (i >> 12) & 255);
    for (let i = 0; i < 200; i++) a.analyze(buf);
    const gc = (globalThis as { gc?: () => void }).gc;
    gc?.();
    const before = process.memoryUsage().heapUsed;
    for (let i = 0; i < 500; i++) a.analyze(buf);
    gc?.();
    const growth = process.memoryUsage().heapUsed - before;
    // Without gc exposed this is a loose bound; an allocation per call would still exceed it.
    expect(growth).toBeLessThan(gc ? 256 * 1024 : 8 * 1024 * 1024);
  });

  it('property: matches a brute-force histogram plus ancestor closure', () => {
    const layout = new VirtualTextureLayout({ widthPages: 8, heightPages: 4 });
    fc.assert(
      fc.property(
        fc.array(
          fc.oneof(
            fc.constant(NO_REQUEST),
            fc.tuple(fc.nat(3), fc.nat(7), fc.nat(7)).map(([m, x, y]) => packPageId(0, m, x, y)),
            fc.nat().map((v) => v >>> 0),
          ),
          { maxLength: 80 },
        ),
        (values) => {
          const a = new FeedbackAnalyzer({ maxPixels: 16 });
          a.setLayout(0, layout);
          a.analyze(new Uint32Array(values));
          const expected = new Map<number, number>();
          let malformed = 0;
          for (const v of values) {
            if (v === NO_REQUEST) continue;
            const vt = v >>> 28;
            const m = (v >>> 24) & 15;
            if (vt !== 0 || !layout.contains(m, v & 0xfff, (v >>> 12) & 0xfff)) {
              malformed++;
              continue;
            }
            expected.set(v, (expected.get(v) ?? 0) + 1);
          }
          for (const v of [...expected.keys()]) {
            let id = v;
            for (let m = (v >>> 24) & 15; m + 1 < layout.mipCount; m++) {
              id = parentPageId(id);
              if (!expected.has(id)) expected.set(id, 0);
            }
          }
          expect(results(a)).toEqual(expected);
          expect(a.stats.malformedPixels).toBe(malformed);
        },
      ),
      { numRuns: 300 },
    );
  });
});
