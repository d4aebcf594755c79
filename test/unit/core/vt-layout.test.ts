import { describe, expect, it } from 'vitest';
import { TesseraConfigError } from '../../../src/core/errors';
import { VirtualTextureLayout } from '../../../src/core/vt/vt-layout';

function codeOf(fn: () => unknown): string | undefined {
  try {
    fn();
  } catch (e) {
    expect(e).toBeInstanceOf(TesseraConfigError);
    return (e as TesseraConfigError).code;
  }
  return undefined;
}

describe('VirtualTextureLayout', () => {
  it('derives mips, payload and pinned pages for a square texture', () => {
    const l = new VirtualTextureLayout({ widthPages: 1024, heightPages: 1024 });
    expect(l.mipCount).toBe(11);
    expect(l.tileSize).toBe(128);
    expect(l.border).toBe(4);
    expect(l.payloadSize).toBe(120);
    expect(l.pinnedMipCount).toBe(3);
    expect(l.firstPinnedMip).toBe(8);
    expect(l.pinnedPages).toBe(16 + 4 + 1);
    expect(l.mipWidths[10]).toBe(1);
    expect(l.isPinnedMip(8)).toBe(true);
    expect(l.isPinnedMip(7)).toBe(false);
  });

  it('handles non-square textures down to a single page', () => {
    const l = new VirtualTextureLayout({ widthPages: 16, heightPages: 2, layers: 3 });
    expect(l.mipCount).toBe(5);
    expect(Array.from(l.mipWidths)).toEqual([16, 8, 4, 2, 1]);
    expect(Array.from(l.mipHeights)).toEqual([2, 1, 1, 1, 1]);
    expect(l.totalPages).toBe(32 + 8 + 4 + 2 + 1);
    expect(l.contains(1, 7, 0)).toBe(true);
    expect(l.contains(1, 0, 1)).toBe(false);
    expect(l.tileBytes()).toBe(128 * 128 * 4 * 3);
  });

  it('pins every mip of a 1x1 texture', () => {
    const l = new VirtualTextureLayout({ widthPages: 1, heightPages: 1 });
    expect(l.mipCount).toBe(1);
    expect(l.pinnedPages).toBe(1);
  });

  it('rejects invalid configurations with typed codes', () => {
    expect(codeOf(() => new VirtualTextureLayout({ widthPages: 0, heightPages: 4 }))).toBe('invalid-size');
    expect(codeOf(() => new VirtualTextureLayout({ widthPages: 3, heightPages: 4 }))).toBe(
      'not-power-of-two',
    );
    expect(codeOf(() => new VirtualTextureLayout({ widthPages: 4, heightPages: 8192 }))).toBe('too-large');
    expect(codeOf(() => new VirtualTextureLayout({ widthPages: 4, heightPages: 4, tileSize: 102 }))).toBe(
      'invalid-tile',
    );
    expect(codeOf(() => new VirtualTextureLayout({ widthPages: 4, heightPages: 4, tileSize: 1028 }))).toBe(
      'invalid-tile',
    );
    expect(codeOf(() => new VirtualTextureLayout({ widthPages: 4, heightPages: 4, border: 64 }))).toBe(
      'invalid-tile',
    );
    expect(codeOf(() => new VirtualTextureLayout({ widthPages: 4, heightPages: 4, layers: 9 }))).toBe(
      'invalid-layers',
    );
    expect(codeOf(() => new VirtualTextureLayout({ widthPages: 4, heightPages: 4, pinnedMipCount: 4 }))).toBe(
      'invalid-option',
    );
    expect(codeOf(() => new VirtualTextureLayout({ widthPages: 4, heightPages: 4, pinnedMipCount: 0 }))).toBe(
      'invalid-option',
    );
  });
});

describe('content rectangle', () => {
  it('defaults to the whole payload and accepts a smaller content size', async () => {
    const { VirtualTextureLayout } = await import('../../../src/core/vt/vt-layout');
    const full = new VirtualTextureLayout({ widthPages: 64, heightPages: 32 });
    expect([full.contentWidth, full.contentHeight]).toEqual([64 * 120, 32 * 120]);
    const photo = new VirtualTextureLayout({
      widthPages: 64,
      heightPages: 32,
      contentWidth: 4096,
      contentHeight: 2048,
    });
    expect([photo.contentWidth, photo.contentHeight]).toEqual([4096, 2048]);
    expect(full.pageTableBytes).toBe(full.totalPages * 4);
  });

  it('refuses a content size outside 1..payload with a typed error', async () => {
    const { VirtualTextureLayout } = await import('../../../src/core/vt/vt-layout');
    for (const contentWidth of [0, 7681, 1.5, Number.NaN]) {
      expect(() => new VirtualTextureLayout({ widthPages: 64, heightPages: 32, contentWidth })).toThrow(
        expect.objectContaining({ code: 'invalid-size' }),
      );
    }
  });
});
