import type { RenderTarget } from 'three/webgpu';
import type { BackendBridge } from '../backend-bridge';
import { GL_READBACK_PENDING, GL_READBACK_READY, GLReadbackRing } from './gl-readback-ring';

/** Most readbacks in flight at once (Unreal's feedback latency). */
export const MAX_READBACKS_IN_FLIGHT = 3;

/**
 * Receives one completed readback: `ids` holds `width * height` packed page ids, valid during the
 * call; `frame` is the frame it was rendered in, `jitterFrame` the jitter sequence index it was
 * rendered at (absent: `frame`, as for the main pass's debug images).
 */
export type FeedbackConsumer = (
  ids: Uint32Array,
  frame: number,
  width: number,
  height: number,
  jitterFrame?: number,
) => void;

interface RingEntry {
  buffer: GPUBuffer | null;
  busy: boolean;
  frame: number;
  jitterFrame: number;
  sequence: number;
  /** Size read, in feedback pixels (WebGL2: a read of an old size is dropped). */
  width: number;
  height: number;
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
 * WebGL2: a ring of fenced pixel-pack buffers ({@link GLReadbackRing}), polled at each request and
 * at each animation frame while any is in flight, delivered oldest first.
 */
export class FeedbackReadback {
  /** Readbacks started, delivered and dropped as stale or skipped as busy, since creation. */
  readonly counters = { started: 0, delivered: 0, dropped: 0, skipped: 0, bytesRead: 0 };
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
  private readonly glRing: GLReadbackRing | null;
  private idsBytes = new Uint8Array(0);
  /** Pending poll: an animation-frame id, or a timer id where there are no animation frames; 0 for none. */
  private pollHandle = 0;
  private readonly pollByFrame = typeof requestAnimationFrame === 'function';
  private readonly pollLater = (): void => {
    this.pollHandle = 0;
    this.pollWebGL();
    if (this.inFlight > 0 && !this.disposed) this.schedulePoll();
  };

  constructor(bridge: BackendBridge, target: RenderTarget, consumer: FeedbackConsumer) {
    this.bridge = bridge;
    this.target = target;
    this.consumer = consumer;
    for (let i = 0; i < MAX_READBACKS_IN_FLIGHT; i++) {
      const entry: RingEntry = {
        buffer: null,
        busy: false,
        frame: 0,
        jitterFrame: 0,
        sequence: 0,
        width: 0,
        height: 0,
        onMapped: () => this.mapped(entry),
        onFailed: () => this.failed(entry),
      };
      this.ring.push(entry);
    }
    this.glRing = bridge.isWebGPU ? null : new GLReadbackRing(bridge, MAX_READBACKS_IN_FLIGHT);
  }

  /** Bytes of the readback ring's buffers. */
  get bytes(): number {
    if (this.glRing !== null) return this.glRing.bytes;
    let total = 0;
    for (const entry of this.ring) total += entry.buffer?.size ?? 0;
    return total;
  }

  /**
   * True when a readback could start now (a slot of the ring is free, after collecting the WebGL2
   * fences that signalled). When false the frame's feedback would never be read: see {@link skip}.
   */
  hasFreeSlot(): boolean {
    if (this.disposed) return false;
    if (this.glRing !== null) this.pollWebGL();
    return this.inFlight < MAX_READBACKS_IN_FLIGHT;
  }

  /** Counts a frame that found every slot busy (and so rendered no feedback). */
  skip(): void {
    this.counters.skipped++;
  }

  /**
   * Starts reading back the target as rendered for `frame` at jitter frame `jitterFrame`, after
   * {@link hasFreeSlot} said yes this frame (it collected the signalled fences); no-op when all
   * slots are busy all the same.
   */
  request(frame: number, jitterFrame = frame): void {
    if (this.disposed) return;
    const width = this.target.width;
    const height = this.target.height;
    if (width !== this.width || height !== this.height) this.resize(width, height);
    if (this.inFlight >= MAX_READBACKS_IN_FLIGHT) {
      this.skip();
      return;
    }
    const sequence = ++this.sequence;
    if (this.bridge.device !== null) {
      this.requestWebGPU(frame, jitterFrame, sequence);
    } else {
      this.requestWebGL(frame, jitterFrame, sequence);
    }
  }

  private resize(width: number, height: number): void {
    this.width = width;
    this.height = height;
    this.paddedRowBytes = Math.ceil((width * 4) / 256) * 256;
    this.ids = new Uint32Array(width * height);
    this.idsBytes = new Uint8Array(this.ids.buffer);
    // Buffers of the old size are replaced lazily once idle.
    for (const entry of this.ring) {
      if (!entry.busy && entry.buffer !== null) {
        entry.buffer.destroy();
        entry.buffer = null;
      }
    }
  }

  private requestWebGPU(frame: number, jitterFrame: number, sequence: number): void {
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
    entry.jitterFrame = jitterFrame;
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
      this.counters.bytesRead += buffer.size;
      this.consumer(ids, entry.frame, width, this.height, entry.jitterFrame);
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

  private requestWebGL(frame: number, jitterFrame: number, sequence: number): void {
    const ring = this.ring;
    for (let i = 0; i < ring.length; i++) {
      const entry = ring[i];
      if (entry.busy) continue;
      if (!this.glRing!.start(i, this.target.texture, this.width, this.height)) return;
      entry.busy = true;
      entry.frame = frame;
      entry.jitterFrame = jitterFrame;
      entry.sequence = sequence;
      entry.width = this.width;
      entry.height = this.height;
      this.inFlight++;
      this.counters.started++;
      this.schedulePoll();
      return;
    }
  }

  /**
   * Polls again at the next animation frame (Chromium updates WebGL2 fence status across animation
   * frames, so polling more often finds nothing new): fences are also checked at every request,
   * but when no frame is rendered (a paused or stepped loop) this keeps results arriving, as
   * WebGPU's `mapAsync` does.
   */
  private schedulePoll(): void {
    if (this.pollHandle !== 0) return;
    this.pollHandle = this.pollByFrame
      ? requestAnimationFrame(this.pollLater)
      : (setTimeout(this.pollLater, 1) as unknown as number);
  }

  /** Delivers completed WebGL2 reads, oldest first; stops at the first still running. */
  private pollWebGL(): void {
    const glRing = this.glRing!;
    const ring = this.ring;
    for (;;) {
      let oldest = -1;
      for (let i = 0; i < ring.length; i++) {
        if (ring[i].busy && (oldest < 0 || ring[i].sequence < ring[oldest].sequence)) oldest = i;
      }
      if (oldest < 0) return;
      const status = glRing.poll(oldest);
      if (status === GL_READBACK_PENDING) return;
      const entry = ring[oldest];
      if (status !== GL_READBACK_READY || this.disposed) {
        this.release(entry);
        continue;
      }
      if (entry.sequence <= this.delivered || entry.width !== this.width || entry.height !== this.height) {
        this.counters.dropped++;
        this.release(entry);
        continue;
      }
      glRing.read(oldest, this.idsBytes);
      this.delivered = entry.sequence;
      this.release(entry);
      this.counters.delivered++;
      this.counters.bytesRead += this.idsBytes.byteLength;
      this.consumer(this.ids, entry.frame, this.width, this.height, entry.jitterFrame);
    }
  }

  /** Destroys the ring; a map still pending is rejected by the destroy and settles as a failure. */
  dispose(): void {
    this.disposed = true;
    if (this.pollHandle !== 0) {
      if (this.pollByFrame) cancelAnimationFrame(this.pollHandle);
      else {
        clearTimeout(this.pollHandle);
      }
      this.pollHandle = 0;
    }
    this.glRing?.dispose();
    for (const entry of this.ring) {
      if (entry.buffer !== null) {
        entry.buffer.destroy();
        entry.buffer = null;
      }
    }
  }
}
