/**
 * Coalesces the byte-range reads one task asks for into as few requests as possible: reads queued
 * in the same microtask whose ranges touch (or sit at most {@link MAX_GAP_BYTES} apart, KTX2's
 * level alignment padding) become one read. The streamer asks for all missing levels of a chain at
 * once, and KTX2 stores them next to each other, so a chain is one request, not one per level.
 */

import type { RangeReader } from '../io/range-reader';

/** Largest gap between two ranges still read as one, bytes (covers KTX2's mipPadding). */
export const MAX_GAP_BYTES = 64;

interface PendingRead {
  start: number;
  end: number;
  signal: AbortSignal;
  resolve: (bytes: Uint8Array) => void;
  reject: (error: unknown) => void;
  /** Set when `signal` aborted: the read is rejected and leaves its group. */
  aborted: boolean;
  /** Called once the read aborts (its group's request aborts when all members have). */
  onAbort: (() => void) | null;
  listener: () => void;
}

/** Batches reads of one {@link RangeReader}. */
export class LevelRangeBatcher {
  /** Requests sent (one per coalesced group). */
  requestCount = 0;
  /** Bytes received, metadata excluded. */
  bytesRead = 0;
  private pending: PendingRead[] = [];
  private scheduled = false;

  constructor(private readonly reader: RangeReader) {}

  /** Bytes [`start`, `end`) of the file; rejects with `signal.reason` once it aborts. */
  read(start: number, end: number, signal: AbortSignal): Promise<Uint8Array> {
    if (signal.aborted) return Promise.reject(signal.reason);
    return new Promise((resolve, reject) => {
      const read: PendingRead = {
        start,
        end,
        signal,
        resolve,
        reject,
        aborted: false,
        onAbort: null,
        listener: () => {
          read.aborted = true;
          reject(signal.reason);
          read.onAbort?.();
        },
      };
      signal.addEventListener('abort', read.listener, { once: true });
      this.pending.push(read);
      if (!this.scheduled) {
        this.scheduled = true;
        queueMicrotask(() => this.flush());
      }
    });
  }

  private flush(): void {
    this.scheduled = false;
    const reads = this.pending.filter((read) => !read.aborted);
    this.pending = [];
    // A handful of levels per flush: sorting them is cheap and happens once per chain load.
    reads.sort((a, b) => a.start - b.start);
    let first = 0;
    for (let i = 1; i <= reads.length; i++) {
      if (
        i < reads.length &&
        reads[i].start >= reads[i - 1].end &&
        reads[i].start - reads[i - 1].end <= MAX_GAP_BYTES
      ) {
        continue;
      }
      void this.readGroup(reads.slice(first, i));
      first = i;
    }
  }

  /** One request for a group of reads; it aborts only once every member has aborted. */
  private async readGroup(group: PendingRead[]): Promise<void> {
    const controller = new AbortController();
    let live = group.length;
    for (const read of group) {
      read.onAbort = () => {
        if (--live === 0) controller.abort();
      };
    }
    const start = group[0].start;
    const end = group[group.length - 1].end;
    try {
      this.requestCount++;
      const bytes = await this.reader.read(start, end, controller.signal);
      this.bytesRead += bytes.length;
      for (const read of group) read.resolve(bytes.subarray(read.start - start, read.end - start));
    } catch (error) {
      // Members that aborted were rejected already; rejecting them again is a no-op.
      for (const read of group) read.reject(error);
    } finally {
      for (const read of group) read.signal.removeEventListener('abort', read.listener);
    }
  }
}
