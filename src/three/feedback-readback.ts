import type { RenderTarget } from 'three/webgpu';
import type { BackendBridge } from './backend-bridge';

/** Most readbacks in flight at once (Unreal's feedback latency). */
export const MAX_READBACKS_IN_FLIGHT = 3;

/** Receives one completed readback: `ids` holds `width * height` packed page ids, valid during the call. */
export type FeedbackConsumer = (ids: Uint32Array, frame: number, width: number, height: number) => void;

interface RingEntry {
  buffer: GPUBuffer | null;
  busy: boolean;
  frame: number;
  sequence: number;
  onMapped: () => void;
  onFailed: () => void;
}

// Reused WebGPU copy descriptors.
const copySource = { texture: null as unknown as GPUTexture, mipLevel: 0, origin: { x: 0, y: 0, z: 0 } };
const copyDestination = { buffer: null as unknown as GPUBuffer, offset: 0, bytesPerRow: 0, rowsPerImage: 0 };
const copySize = { width: 0, height: 0, depthOrArrayLayers: 1 };
const encoderDescriptor = { label: 'tessera:feedback-copy' };
const bufferDescriptor = { label: '', size: 0, usage: 0 };

/**
 * Asynchronous readback of the feedback target, never stalling a frame: at most
 * {@link MAX_READBACKS_IN_FLIGHT} in flight (a frame finding all busy skips its readback), and a
 * result older than one already delivered is dropped.
 *
 * WebGPU: a ring of mappable buffers (`tessera:feedback-readback:<i>`), filled with
 * `copyTextureToBuffer` after three submitted the feedback pass and read with `mapAsync`.
 * WebGL2: three's asynchronous `readRenderTargetPixelsAsync` (a fenced pixel-pack buffer).
 */
export class FeedbackReadback {
  /** Readbacks started, delivered and dropped as stale or skipped as busy, since creation. */
  readonly counters = { started: 0, delivered: 0, dropped: 0, skipped: 0 };
  private readonly bridge: BackendBridge;
  private readonly target: RenderTarget;
  private readonly consumer: FeedbackConsumer;
  private readonly ring: RingEntry[] = [];
  private width = 0;
  private height = 0;
  private paddedRowBytes = 0;
  private ids = new Uint32Array(0);
  private sequence = 0;
  private delivered = -1;
  private inFlight = 0;
  private disposed = false;
  private readonly commandBuffers: GPUCommandBuffer[] = [];

  constructor(bridge: BackendBridge, target: RenderTarget, consumer: FeedbackConsumer) {
    this.bridge = bridge;
    this.target = target;
    this.consumer = consumer;
    for (let i = 0; i < MAX_READBACKS_IN_FLIGHT; i++) {
      const entry: RingEntry = {
        buffer: null,
        busy: false,
        frame: 0,
        sequence: 0,
        onMapped: () => this.mapped(entry),
        onFailed: () => this.failed(entry),
      };
      this.ring.push(entry);
    }
  }

  /** Bytes of the WebGPU readback ring (0 on WebGL2, where three owns the transient buffer). */
  get bytes(): number {
    let total = 0;
    for (const entry of this.ring) total += entry.buffer?.size ?? 0;
    return total;
  }

  /** Starts reading back the target as rendered for `frame`; no-op when all slots are busy. */
  request(frame: number): void {
    if (this.disposed) return;
    const width = this.target.width;
    const height = this.target.height;
    if (width !== this.width || height !== this.height) this.resize(width, height);
    if (this.inFlight >= MAX_READBACKS_IN_FLIGHT) {
      this.counters.skipped++;
      return;
    }
    const sequence = ++this.sequence;
    if (this.bridge.device !== null) {
      this.requestWebGPU(frame, sequence);
    } else {
      this.requestWebGL(frame, sequence);
    }
  }

  private resize(width: number, height: number): void {
    this.width = width;
    this.height = height;
    this.paddedRowBytes = Math.ceil((width * 4) / 256) * 256;
    this.ids = new Uint32Array(width * height);
    // Buffers of the old size are replaced lazily once idle.
    for (const entry of this.ring) {
      if (!entry.busy && entry.buffer !== null) {
        entry.buffer.destroy();
        entry.buffer = null;
      }
    }
  }

  private requestWebGPU(frame: number, sequence: number): void {
    const device = this.bridge.device!;
    const gpuTexture = this.bridge.gpuTexture(this.target.texture);
    if (gpuTexture === undefined) return;
    let entry: RingEntry | null = null;
    for (const candidate of this.ring) {
      if (!candidate.busy) {
        entry = candidate;
        break;
      }
    }
    if (entry === null) return;
    const size = this.paddedRowBytes * this.height;
    if (entry.buffer !== null && entry.buffer.size !== size) {
      entry.buffer.destroy();
      entry.buffer = null;
    }
    if (entry.buffer === null) {
      bufferDescriptor.label = `tessera:feedback-readback:${this.ring.indexOf(entry)}`;
      bufferDescriptor.size = size;
      bufferDescriptor.usage = GPUBufferUsage.COPY_DST | GPUBufferUsage.MAP_READ;
      entry.buffer = device.createBuffer(bufferDescriptor);
    }
    copySource.texture = gpuTexture;
    copyDestination.buffer = entry.buffer;
    copyDestination.bytesPerRow = this.paddedRowBytes;
    copyDestination.rowsPerImage = this.height;
    copySize.width = this.width;
    copySize.height = this.height;
    const encoder = device.createCommandEncoder(encoderDescriptor);
    encoder.copyTextureToBuffer(copySource, copyDestination, copySize);
    this.commandBuffers[0] = encoder.finish();
    device.queue.submit(this.commandBuffers);
    this.commandBuffers.length = 0;
    copySource.texture = null as unknown as GPUTexture;
    copyDestination.buffer = null as unknown as GPUBuffer;
    entry.busy = true;
    entry.frame = frame;
    entry.sequence = sequence;
    this.inFlight++;
    this.counters.started++;
    entry.buffer.mapAsync(GPUMapMode.READ).then(entry.onMapped, entry.onFailed);
  }

  private mapped(entry: RingEntry): void {
    const buffer = entry.buffer;
    if (this.disposed || buffer === null) {
      this.release(entry);
      return;
    }
    if (entry.sequence > this.delivered && buffer.size === this.paddedRowBytes * this.height) {
      const words = new Uint32Array(buffer.getMappedRange());
      const rowWords = this.paddedRowBytes / 4;
      const ids = this.ids;
      const width = this.width;
      for (let y = 0; y < this.height; y++) {
        ids.set(words.subarray(y * rowWords, y * rowWords + width), y * width);
      }
      this.delivered = entry.sequence;
      buffer.unmap();
      this.release(entry);
      this.counters.delivered++;
      this.consumer(ids, entry.frame, width, this.height);
      return;
    }
    buffer.unmap();
    this.counters.dropped++;
    this.release(entry);
  }

  private failed(entry: RingEntry): void {
    this.release(entry);
  }

  private release(entry: RingEntry): void {
    entry.busy = false;
    this.inFlight--;
    if (this.disposed && entry.buffer !== null) {
      entry.buffer.destroy();
      entry.buffer = null;
    }
  }

  private requestWebGL(frame: number, sequence: number): void {
    this.inFlight++;
    this.counters.started++;
    const width = this.width;
    const height = this.height;
    this.bridge.renderer.readRenderTargetPixelsAsync(this.target, 0, 0, width, height).then(
      (pixels) => {
        this.inFlight--;
        if (this.disposed || sequence <= this.delivered || width !== this.width || height !== this.height) {
          this.counters.dropped++;
          return;
        }
        this.delivered = sequence;
        const bytes = pixels as Uint8Array;
        this.ids.set(new Uint32Array(bytes.buffer, bytes.byteOffset, width * height));
        this.counters.delivered++;
        this.consumer(this.ids, frame, width, height);
      },
      () => {
        this.inFlight--;
      },
    );
  }

  /** Destroys the ring; a map still pending is rejected by the destroy and settles as a failure. */
  dispose(): void {
    this.disposed = true;
    for (const entry of this.ring) {
      if (entry.buffer !== null) {
        entry.buffer.destroy();
        entry.buffer = null;
      }
    }
  }
}
