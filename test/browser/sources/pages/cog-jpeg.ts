/**
 * Page for cog-jpeg.spec.ts: opens a JPEG COG by URL with `openCogPyramid` and its defaults (the
 * runtime's decode workers, so the browser's own JPEG decoder) and loads chosen level-0 tiles.
 * Exposes `globalThis.cogJpeg` and sets the title to 'ready'.
 */

import { openCogPyramid } from '../../../../src/sources/imagery/cog-pyramid';

/** One loaded tile: its size and its rgba8 texels in base64 (a compact way out of the page). */
export interface LoadedTile {
  x: number;
  y: number;
  width: number;
  height: number;
  rgba: string;
}

function base64(bytes: Uint8Array): string {
  let text = '';
  for (let i = 0; i < bytes.length; i += 0x8000) {
    text += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  }
  return btoa(text);
}

const api = {
  /** Loads level 0's tiles `tiles` (each `[x, y]`) of the COG at `url`, then disposes the pyramid. */
  async load(url: string, tiles: readonly [number, number][]): Promise<LoadedTile[]> {
    const pyramid = await openCogPyramid(new URL(url, location.href).href);
    try {
      const signal = new AbortController().signal;
      const loaded = await Promise.all(tiles.map(([x, y]) => pyramid.loadTile(0, x, y, signal)));
      return loaded.map((tile, i) => {
        if (tile === null) throw new Error(`tile ${tiles[i]} is missing`);
        return {
          x: tiles[i][0],
          y: tiles[i][1],
          width: tile.width,
          height: tile.height,
          rgba: base64(tile.data),
        };
      });
    } finally {
      pyramid.dispose();
    }
  },
};

(globalThis as unknown as { cogJpeg: typeof api }).cogJpeg = api;
document.title = 'ready';
