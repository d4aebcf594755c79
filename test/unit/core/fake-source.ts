import { TileSourceError } from '../../../src/core/errors';
import type { TileData, TileSource, TileSourceInfo } from '../../../src/core/vt/tile-source';

interface PendingLoad {
  mip: number;
  x: number;
  y: number;
  signal: AbortSignal;
  resolve: (t: TileData) => void;
  reject: (e: unknown) => void;
}

/** A tile source whose loads the test settles by hand. */
export class ManualTileSource implements TileSource {
  readonly info: TileSourceInfo;
  readonly pending: PendingLoad[] = [];
  /** Loads running per page key, to prove a page never loads twice at once. */
  readonly running = new Map<string, number>();
  maxRunningPerPage = 0;
  calls = 0;

  constructor(widthPages: number, heightPages: number, tileSize = 8) {
    this.info = {
      widthPages,
      heightPages,
      tileSize,
      border: 1,
      layers: [{ name: 'albedo', format: 'rgba8unorm' }],
    };
  }

  load(mip: number, x: number, y: number, signal: AbortSignal): Promise<TileData> {
    this.calls++;
    const key = `${mip},${x},${y}`;
    const n = (this.running.get(key) ?? 0) + 1;
    this.running.set(key, n);
    this.maxRunningPerPage = Math.max(this.maxRunningPerPage, n);
    return new Promise<TileData>((resolve, reject) => {
      const done = () => this.running.set(key, (this.running.get(key) ?? 1) - 1);
      const entry: PendingLoad = {
        mip,
        x,
        y,
        signal,
        resolve: (t) => {
          done();
          resolve(t);
        },
        reject: (e) => {
          done();
          reject(e);
        },
      };
      signal.addEventListener('abort', () => {
        const i = this.pending.indexOf(entry);
        if (i >= 0) this.pending.splice(i, 1);
        entry.reject(new DOMException('aborted', 'AbortError'));
      });
      this.pending.push(entry);
    });
  }

  tile(): TileData {
    return { layers: [new Uint8Array(this.info.tileSize * this.info.tileSize * 4)] };
  }

  /** Settles every pending load: succeed, or fail (retryable) where `fail` says so. */
  settleAll(fail: (mip: number, x: number, y: number) => boolean = () => false): void {
    const loads = this.pending.splice(0);
    for (const l of loads) {
      if (fail(l.mip, l.x, l.y)) l.reject(new TileSourceError('network', 'boom', true));
      else l.resolve(this.tile());
    }
  }
}

/** Lets settled promises run their callbacks. */
export const flush = () => new Promise<void>((r) => setTimeout(r, 0));
