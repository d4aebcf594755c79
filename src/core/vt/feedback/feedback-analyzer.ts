import { MAX_VIRTUAL_TEXTURES, NO_REQUEST } from '../page-id';
import type { VirtualTextureLayout } from '../vt-layout';

/** Options of a {@link FeedbackAnalyzer}. */
export interface FeedbackAnalyzerOptions {
  /**
   * Largest feedback buffer expected, in pixels; tables are sized for it up front. A larger buffer
   * grows them once (the only allocation analyze ever makes). Default 240 x 135.
   */
  maxPixels?: number;
}

/** Counters of the latest {@link FeedbackAnalyzer.analyze} call (one reused instance). */
export interface FeedbackStats {
  /** Pixels analysed. */
  pixels: number;
  /** Pixels holding {@link NO_REQUEST}. */
  emptyPixels: number;
  /** Pixels whose value names no page of a registered texture (ignored). */
  malformedPixels: number;
  /** Distinct pages requested directly by pixels. */
  directPages: number;
  /** Distinct ancestors added for fallback (not requested directly). */
  ancestorPages: number;
  /** Pages dropped because the output was full (0 unless the buffer is pathological). */
  droppedPages: number;
}

function nextPowerOfTwo(n: number): number {
  let p = 1;
  while (p < n) p <<= 1;
  return p;
}

/**
 * Turns a feedback buffer (one packed page id per pixel, {@link NO_REQUEST} for none) into the
 * distinct requested pages with their pixel coverage, followed by every ancestor needed for
 * fallback (coverage 0). O(pixels) with a cheap path for runs of equal neighbours; allocates
 * nothing per call: results live in reused typed arrays, dedupe uses a generation-stamped
 * open-addressing table, so it is never cleared.
 *
 * Results: `pages[0..count)` and `coverage[0..count)`; entries `[0, directCount)` are direct
 * requests (in first-seen order), `[directCount, count)` ancestors.
 */
export class FeedbackAnalyzer {
  /** Distinct pages of the latest call (valid in `[0, count)`). */
  pages: Uint32Array;
  /** Pixels requesting each page of {@link pages} (0 for ancestors). */
  coverage: Uint32Array;
  /** Number of valid entries in {@link pages}. */
  count = 0;
  /** Number of direct requests at the start of {@link pages}. */
  directCount = 0;
  /** Counters of the latest call. */
  readonly stats: FeedbackStats = {
    pixels: 0,
    emptyPixels: 0,
    malformedPixels: 0,
    directPages: 0,
    ancestorPages: 0,
    droppedPages: 0,
  };

  private readonly mipCounts = new Uint8Array(MAX_VIRTUAL_TEXTURES);
  private readonly mipWidths = new Uint16Array(MAX_VIRTUAL_TEXTURES * 16);
  private readonly mipHeights = new Uint16Array(MAX_VIRTUAL_TEXTURES * 16);
  private capacity = 0;
  private keys = new Uint32Array(0);
  private stamps = new Uint32Array(0);
  private slots = new Int32Array(0);
  private mask = 0;
  private shift = 32;
  private generation = 0;

  constructor(options: FeedbackAnalyzerOptions = {}) {
    this.pages = new Uint32Array(0);
    this.coverage = new Uint32Array(0);
    this.reserve(options.maxPixels ?? 240 * 135);
  }

  /** Registers (or with `null` unregisters) the texture with index `vt` (0..15). */
  setLayout(vt: number, layout: VirtualTextureLayout | null): void {
    this.mipCounts[vt] = layout ? layout.mipCount : 0;
    for (let m = 0; m < 16; m++) {
      this.mipWidths[vt * 16 + m] = layout && m < layout.mipCount ? layout.mipWidths[m] : 0;
      this.mipHeights[vt * 16 + m] = layout && m < layout.mipCount ? layout.mipHeights[m] : 0;
    }
  }

  /** Number of mips of texture `vt`, 0 when unregistered. */
  mipCountOf(vt: number): number {
    return this.mipCounts[vt];
  }

  private reserve(pixels: number): void {
    // Worst realistic case: every pixel a distinct page plus about as many ancestors.
    const capacity = pixels * 2 + 1024;
    if (capacity <= this.capacity) return;
    this.capacity = capacity;
    this.pages = new Uint32Array(capacity);
    this.coverage = new Uint32Array(capacity);
    const size = nextPowerOfTwo(capacity * 2);
    this.keys = new Uint32Array(size);
    this.stamps = new Uint32Array(size);
    this.slots = new Int32Array(size);
    this.mask = size - 1;
    this.shift = 32 - Math.log2(size);
    this.generation = 0;
  }

  /**
   * Analyses `buffer[0..length)`. Results are in {@link pages}, {@link coverage}, {@link count},
   * {@link directCount} and {@link stats} until the next call. Returns {@link count}.
   */
  analyze(buffer: Uint32Array, length: number = buffer.length): number {
    if (length > buffer.length) length = buffer.length;
    this.begin(length);
    let empty = 0;
    let malformed = 0;
    let i = 0;
    while (i < length) {
      const v = buffer[i];
      let j = i + 1;
      while (j < length && buffer[j] === v) j++;
      const run = j - i;
      i = j;
      if (v === NO_REQUEST) empty += run;
      else if (!this.add(v, run)) malformed += run;
    }
    return this.finish(length, empty, malformed);
  }

  /**
   * Analyses a feedback list the GPU already reduced to distinct pages: `pages[0..length)` with the
   * feedback pixels requesting each in `counts` (a page listed twice adds up). Results as
   * {@link analyze}; `stats.pixels` is the sum of the counts, `emptyPixels` 0. Returns {@link count}.
   */
  analyzeCounted(pages: Uint32Array, counts: Uint32Array, length: number): number {
    length = Math.min(length, pages.length, counts.length);
    this.begin(length);
    let pixels = 0;
    let malformed = 0;
    for (let i = 0; i < length; i++) {
      const v = pages[i];
      const n = counts[i];
      pixels += n;
      if (v === NO_REQUEST) continue;
      if (!this.add(v, n)) malformed += n;
    }
    return this.finish(pixels, 0, malformed);
  }

  /** Starts a call for up to `entries` distinct values: sizes the tables, opens a generation. */
  private begin(entries: number): void {
    this.reserve(entries);
    let gen = (this.generation + 1) >>> 0;
    if (gen === 0) {
      this.stamps.fill(0);
      gen = 1;
    }
    this.generation = gen;
    this.count = 0;
  }

  /** Adds `pixels` requests of page `v`; false when `v` names no page of a registered texture. */
  private add(v: number, pixels: number): boolean {
    const keys = this.keys;
    const stamps = this.stamps;
    const slots = this.slots;
    const gen = this.generation;
    let h = Math.imul(v, 0x9e3779b1) >>> this.shift;
    for (;;) {
      if (stamps[h] !== gen) {
        // First sight this call: validate once, remember the verdict (-1 = malformed).
        const vt = v >>> 28;
        const mip = (v >>> 24) & 0xf;
        const x = v & 0xfff;
        const y = (v >>> 12) & 0xfff;
        const k = vt * 16 + mip;
        const valid = mip < this.mipCounts[vt] && x < this.mipWidths[k] && y < this.mipHeights[k];
        const slot = valid ? this.count++ : -1;
        stamps[h] = gen;
        keys[h] = v;
        slots[h] = slot;
        if (slot < 0) return false;
        this.pages[slot] = v;
        this.coverage[slot] = pixels;
        return true;
      }
      if (keys[h] === v) {
        const slot = slots[h];
        if (slot < 0) return false;
        this.coverage[slot] += pixels;
        return true;
      }
      h = (h + 1) & this.mask;
    }
  }

  /** Adds the ancestors of the direct requests and fills {@link stats}; returns {@link count}. */
  private finish(pixels: number, empty: number, malformed: number): number {
    const keys = this.keys;
    const stamps = this.stamps;
    const slots = this.slots;
    const mask = this.mask;
    const shift = this.shift;
    const gen = this.generation;
    const pages = this.pages;
    const coverage = this.coverage;
    const mipCounts = this.mipCounts;
    let count = this.count;
    const direct = count;
    let dropped = 0;
    for (let d = 0; d < direct; d++) {
      let id = pages[d];
      let mip = (id >>> 24) & 0xf;
      const mipCount = mipCounts[id >>> 28];
      while (mip + 1 < mipCount) {
        id =
          ((id & 0xf0000000) |
            ((mip + 1) << 24) |
            ((((id >>> 12) & 0xfff) >>> 1) << 12) |
            ((id & 0xfff) >>> 1)) >>>
          0;
        mip++;
        let h = Math.imul(id, 0x9e3779b1) >>> shift;
        let found = false;
        while (stamps[h] === gen) {
          if (keys[h] === id) {
            found = true;
            break;
          }
          h = (h + 1) & mask;
        }
        // Already listed: its own ancestors are (or will be) listed too.
        if (found) break;
        if (count >= this.capacity) {
          dropped++;
          break;
        }
        stamps[h] = gen;
        keys[h] = id;
        slots[h] = count;
        pages[count] = id;
        coverage[count] = 0;
        count++;
      }
    }
    this.count = count;
    this.directCount = direct;
    const s = this.stats;
    s.pixels = pixels;
    s.emptyPixels = empty;
    s.malformedPixels = malformed;
    s.directPages = direct;
    s.ancestorPages = count - direct;
    s.droppedPages = dropped;
    return count;
  }
}
