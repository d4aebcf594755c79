/**
 * Keeps a bounded window of tiles being encoded and writes them to the archive in the order they
 * were added, whatever order their encodes finish in: the archive's bytes are those of a
 * one-at-a-time bake, while every worker stays busy.
 */

import type { ArchiveWriter } from '../archive/archive-writer';

interface PendingTile {
  mip: number;
  x: number;
  y: number;
  payloads: Promise<Uint8Array>[];
}

const ignore = () => {};

/** Writes tiles in addition order with at most `window` of them encoding at once. */
export class OrderedTileWriter {
  private pending: PendingTile[] = [];
  private head = 0;

  constructor(
    private readonly writer: ArchiveWriter,
    /** Tiles encoding at once (each holds its texels and payloads): bounds the bake's memory. */
    private readonly window: number,
  ) {}

  /** Queues page (`x`, `y`) of `mip` with one payload promise per layer; waits while the window is full. */
  async add(mip: number, x: number, y: number, payloads: Promise<Uint8Array>[]): Promise<void> {
    // A failure is reported when its tile's turn comes; until then a rejection must not count as unhandled.
    for (const p of payloads) p.catch(ignore);
    this.pending.push({ mip, x, y, payloads });
    while (this.pending.length - this.head > this.window) await this.writeOldest();
  }

  /** Writes every queued tile. */
  async flush(): Promise<void> {
    while (this.head < this.pending.length) await this.writeOldest();
    this.pending = [];
    this.head = 0;
  }

  private async writeOldest(): Promise<void> {
    const tile = this.pending[this.head];
    const payloads = await Promise.all(tile.payloads);
    this.writer.addTile(tile.mip, tile.x, tile.y, payloads);
    this.pending[this.head++] = undefined as unknown as PendingTile;
    if (this.head > 1024) {
      this.pending = this.pending.slice(this.head);
      this.head = 0;
    }
  }
}
