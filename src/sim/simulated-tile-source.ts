import { TesseraConfigError, TesseraError, TileSourceError } from '../core/errors';
import type { TileData, TileLayerInfo, TileSource, TileSourceInfo } from '../core/vt/tile-source';
import { SeededRandom } from './seeded-random';

/** Options of a {@link SimulatedTileSource}. */
export interface SimulatedTileSourceOptions {
  /** Width of mip 0, in pages (power of two). */
  widthPages: number;
  /** Height of mip 0, in pages (power of two). */
  heightPages: number;
  /** Tile side including its border, in texels. Default 128. */
  tileSize?: number;
  /** Border inside each tile side, in texels. Default 4. */
  border?: number;
  /** Number of layers. Default 1. */
  layers?: number;
  /**
   * Frames between a load starting and settling: a load started while the source is at frame f
   * settles when {@link SimulatedTileSource.advanceTo} reaches f + latency. 0 settles at once.
   * Default 2.
   */
  latencyFrames?: number;
  /** Probability in [0, 1] that a load fails (with a retryable `network` error). Default 0. */
  failureProbability?: number;
  /** Seed of the failure draws. Default 1. */
  seed?: number;
}

/** Counters of a {@link SimulatedTileSource}, in loads. */
export interface SimulatedTileSourceStats {
  /** Calls to load. */
  started: number;
  /** Loads that resolved with data. */
  succeeded: number;
  /** Loads that rejected with a simulated failure. */
  failed: number;
  /** Loads rejected because their signal aborted first. */
  aborted: number;
  /** Loads started and not yet settled. */
  inFlight: number;
}

/** One load waiting for its frame. */
interface PendingLoad {
  due: number;
  fail: boolean;
  settled: boolean;
  resolve: (data: TileData) => void;
  reject: (error: unknown) => void;
  signal: AbortSignal;
  onAbort: () => void;
}

/**
 * A {@link TileSource} driven by a simulated frame clock: loads settle after a fixed number of
 * frames, some fail at a seeded rate, and the bytes are fake.
 *
 * Every tile it returns shares ONE zero-filled `tileSize² x 4` byte array per layer (allocated once):
 * sizes are right, so byte budgets count as they would in production, but contents are meaningless
 * and must never be written to. Loads settle in the order they were started (latency is constant),
 * so a FIFO is enough.
 */
export class SimulatedTileSource implements TileSource {
  /** What the source holds ({@link TileSource.info}). */
  readonly info: TileSourceInfo;
  /** Frames from start to settle, in frames. */
  readonly latencyFrames: number;
  /** Probability that a load fails. */
  readonly failureProbability: number;
  /** Counters since construction. */
  readonly stats: SimulatedTileSourceStats = { started: 0, succeeded: 0, failed: 0, aborted: 0, inFlight: 0 };

  private readonly data: TileData;
  private readonly random: SeededRandom;
  private readonly pending: PendingLoad[] = [];
  private head = 0;
  private currentFrame = 0;
  private disposed = false;

  constructor(options: SimulatedTileSourceOptions) {
    const tileSize = options.tileSize ?? 128;
    const border = options.border ?? 4;
    const layerCount = options.layers ?? 1;
    const latency = options.latencyFrames ?? 2;
    const failure = options.failureProbability ?? 0;
    if (!Number.isInteger(latency) || latency < 0) {
      throw new TesseraConfigError('invalid-option', `latencyFrames must be an integer >= 0, got ${latency}`);
    }
    if (!(failure >= 0 && failure <= 1)) {
      throw new TesseraConfigError('invalid-option', `failureProbability must be in [0, 1], got ${failure}`);
    }
    if (!Number.isInteger(layerCount) || layerCount < 1 || layerCount > 8) {
      throw new TesseraConfigError('invalid-layers', `layers must be in 1..8, got ${layerCount}`);
    }
    const layers: TileLayerInfo[] = [];
    const bytes: Uint8Array[] = [];
    for (let i = 0; i < layerCount; i++) {
      layers.push({ name: i === 0 ? 'albedo' : `layer${i}`, format: 'rgba8unorm' });
      bytes.push(new Uint8Array(tileSize * tileSize * 4));
    }
    this.info = {
      widthPages: options.widthPages,
      heightPages: options.heightPages,
      tileSize,
      border,
      layers,
      contentWidth: options.widthPages * (tileSize - 2 * border),
      contentHeight: options.heightPages * (tileSize - 2 * border),
    };
    this.latencyFrames = latency;
    this.failureProbability = failure;
    this.random = new SeededRandom(options.seed ?? 1);
    this.data = { layers: bytes };
  }

  /** The simulated frame the source is at. */
  get frame(): number {
    return this.currentFrame;
  }

  /** Starts a simulated load of page (`x`, `y`) at `mip`: it settles `latencyFrames` frames later (or fails, at the configured rate); rejects at once when `signal` aborts. */
  load(mip: number, x: number, y: number, signal: AbortSignal): Promise<TileData> {
    void mip;
    void x;
    void y;
    if (this.disposed) return Promise.reject(new TesseraError('disposed', 'tile source disposed'));
    this.stats.started++;
    if (signal.aborted) {
      this.stats.aborted++;
      return Promise.reject(abortError());
    }
    // Draw even when the probability is 0, so the sequence does not depend on it.
    const fail = this.random.next() < this.failureProbability;
    if (this.latencyFrames === 0) {
      if (fail) {
        this.stats.failed++;
        return Promise.reject(simulatedFailure());
      }
      this.stats.succeeded++;
      return Promise.resolve(this.data);
    }
    this.stats.inFlight++;
    return new Promise<TileData>((resolve, reject) => {
      const entry: PendingLoad = {
        due: this.currentFrame + this.latencyFrames,
        fail,
        settled: false,
        resolve,
        reject,
        signal,
        onAbort: () => {
          if (entry.settled) return;
          entry.settled = true;
          this.stats.inFlight--;
          this.stats.aborted++;
          reject(abortError());
        },
      };
      signal.addEventListener('abort', entry.onAbort, { once: true });
      this.pending.push(entry);
    });
  }

  /**
   * Moves the clock to `frame` (never backwards) and settles every load due by then, in start
   * order. Promise callbacks run afterwards, as microtasks.
   */
  advanceTo(frame: number): void {
    if (frame > this.currentFrame) this.currentFrame = frame;
    const pending = this.pending;
    while (this.head < pending.length && pending[this.head].due <= this.currentFrame) {
      const entry = pending[this.head];
      pending[this.head] = undefined as unknown as PendingLoad;
      this.head++;
      if (entry.settled) continue;
      entry.settled = true;
      entry.signal.removeEventListener('abort', entry.onAbort);
      this.stats.inFlight--;
      if (entry.fail) {
        this.stats.failed++;
        entry.reject(simulatedFailure());
      } else {
        this.stats.succeeded++;
        entry.resolve(this.data);
      }
    }
    // Compact now and then so the queue's memory stays bounded over long runs.
    if (this.head > 256 && this.head * 2 > pending.length) {
      pending.copyWithin(0, this.head);
      pending.length -= this.head;
      this.head = 0;
    }
  }

  /** Rejects every pending load with an abort error and refuses new ones. */
  dispose(): void {
    this.disposed = true;
    for (let i = this.head; i < this.pending.length; i++) {
      const entry = this.pending[i];
      if (entry.settled) continue;
      entry.settled = true;
      entry.signal.removeEventListener('abort', entry.onAbort);
      this.stats.inFlight--;
      this.stats.aborted++;
      entry.reject(abortError());
    }
    this.pending.length = 0;
    this.head = 0;
  }
}

function abortError(): TesseraError {
  return new TesseraError('aborted', 'tile load aborted');
}

function simulatedFailure(): TileSourceError {
  return new TileSourceError('network', 'simulated tile failure', true);
}
