import type { Camera } from 'three';
import {
  atomicMin,
  atomicStore,
  floatBitsToUint,
  If,
  max,
  positionView,
  screenCoordinate,
  storage,
  uint,
  uniform,
} from 'three/tsl';
import { StorageBufferAttribute } from 'three/webgpu';
import { feedbackJitterX, feedbackJitterY } from '../../core/vt/feedback/feedback-jitter';
import type { BackendBridge } from '../backend-bridge';
import { MAX_READBACKS_IN_FLIGHT } from './feedback-readback';
import { COMPACT_LIST_ENTRY_BYTES, COMPACT_LIST_HEADER_BYTES, RequestCompaction } from './request-compaction';

// biome-ignore lint/suspicious/noExplicitAny: TSL node graph values.
type Expr = any;

/**
 * Receives one frame's compacted feedback: `pages[0..length)` with the screen tiles requesting each
 * in `counts`, valid during the call.
 */
export type CountedFeedbackConsumer = (
  pages: Uint32Array,
  counts: Uint32Array,
  length: number,
  frame: number,
) => void;

/** Receives the per-tile request image (debug views), `width x height` page ids, valid during the call. */
export type FeedbackImageConsumer = (ids: Uint32Array, frame: number, width: number, height: number) => void;

/** Bytes of one screen tile in the tile buffer: a depth key and a page id. */
const TILE_BYTES = 8;
const EMPTY = 0xffffffff;

interface RingEntry {
  list: GPUBuffer | null;
  busy: boolean;
  frame: number;
  sequence: number;
  /** Bytes of the list copied (and mapped), header included. */
  listBytes: number;
  /** The tile image's buffer while debug views ask for it (a `feedback` listener), else null. */
  image: GPUBuffer | null;
  /** True when the tile image was copied with this list. */
  withImage: boolean;
  /** Tile grid of the image copied. */
  imageWidth: number;
  imageHeight: number;
  onMapped: () => void;
  onFailed: () => void;
}

const encoderDescriptor = { label: 'tessera:feedback-compaction' };
const bufferDescriptor = { label: '', size: 0, usage: 0 };

/**
 * Feedback written by the user's own render (WebGPU): every sampling node of a virtual texture also
 * records, for one pixel per screen tile of `tileSize x tileSize` pixels, the page it samples into a
 * storage buffer (two u32 per tile: a depth key and the page id; the nearest fragment wins through
 * an atomic minimum on the depth key). The statement sits at the end of the fragment shader, after
 * three's discards, so a fragment the material discards (alpha test) requests nothing. The pixel
 * rotates through the same 16-frame sub-pixel sequence as the separate pass's jitter, so over a
 * cycle the requests cover the screen as before. No second draw of the scene, no feedback target.
 *
 * After the task that rendered a frame ({@link beginFrame}, then a microtask) the GPU compacts the
 * tiles into distinct pages with counts ({@link RequestCompaction}) and only that list is read
 * back, asynchronously, in a ring of {@link MAX_READBACKS_IN_FLIGHT}; the bytes mapped follow the
 * pages found in the previous frames, not the screen.
 *
 * Only renders with the camera given to {@link beginFrame} write (shadow maps and other cameras do
 * not). Fragments run for surfaces a nearer one hides when the hidden one is drawn later (WebGPU
 * cannot force early depth tests on a shader that writes storage): a virtual-texture surface hidden
 * by another virtual-texture surface loses to it through the depth key, one hidden only by other
 * meshes still requests.
 */
export class MainPassFeedback {
  /**
   * Readbacks started, delivered, dropped as stale, skipped as busy; lists cut short (more pages
   * than mapped); bytes mapped by the lists delivered.
   */
  readonly counters = { started: 0, delivered: 0, dropped: 0, skipped: 0, truncated: 0, bytesRead: 0 };
  /** Tile grid now, in tiles. */
  width = 0;
  height = 0;
  /** Screen pixels per tile side. */
  tileSize = 1;
  private readonly bridge: BackendBridge;
  private readonly device: GPUDevice;
  private readonly consumer: CountedFeedbackConsumer;
  private readonly imageConsumer: FeedbackImageConsumer;
  private readonly tileSizeUniform = uniform(1, 'uint');
  private readonly tilesPerRowUniform = uniform(1, 'uint');
  private readonly tileCountUniform = uniform(1, 'uint');
  private readonly jitterX = uniform(0, 'uint');
  private readonly jitterY = uniform(0, 'uint');
  private readonly frameUniform = uniform(0, 'uint');
  private readonly activeUniform: Expr;
  private camera: Camera | null = null;
  private frame = 0;
  private withImage = false;
  private scheduled = false;
  private readonly afterRenderTask = (): void => this.afterRender();
  private attribute: StorageBufferAttribute;
  private tilesNode: Expr;
  private compaction: RequestCompaction;
  private readonly ring: RingEntry[] = [];
  private readonly commandBuffers: GPUCommandBuffer[] = [];
  private pages = new Uint32Array(0);
  private counts = new Uint32Array(0);
  private image = new Uint32Array(0);
  /** List entries mapped per readback: grows with the distinct pages found. */
  private expectedEntries = 256;
  private sequence = 0;
  private delivered = -1;
  private inFlight = 0;
  private disposed = false;

  /**
   * @param width tile grid, in tiles (the budget's feedback size).
   * @param onBuffersReplaced called when the tile buffer was replaced (a larger grid): the materials
   *   writing into the old one must be rebuilt.
   */
  constructor(
    bridge: BackendBridge,
    width: number,
    height: number,
    tileSize: number,
    consumer: CountedFeedbackConsumer,
    imageConsumer: FeedbackImageConsumer,
    private readonly onBuffersReplaced: () => void,
  ) {
    this.bridge = bridge;
    this.device = bridge.device!;
    this.consumer = consumer;
    this.imageConsumer = imageConsumer;
    this.activeUniform = uniform(0, 'uint').onRenderUpdate((frame: { camera: Camera | null }) => {
      if (frame.camera !== this.camera || this.camera === null) return 0;
      if (!this.scheduled) {
        this.scheduled = true;
        queueMicrotask(this.afterRenderTask);
      }
      return 1;
    });
    this.attribute = this.makeTiles(width * height);
    this.tilesNode = storage(this.attribute, 'uint', width * height * 2).toAtomic();
    this.compaction = new RequestCompaction(this.device, width * height);
    for (let i = 0; i < MAX_READBACKS_IN_FLIGHT; i++) {
      const entry: RingEntry = {
        list: null,
        busy: false,
        frame: 0,
        sequence: 0,
        listBytes: 0,
        image: null,
        withImage: false,
        imageWidth: 0,
        imageHeight: 0,
        onMapped: () => this.mapped(entry),
        onFailed: () => this.release(entry),
      };
      this.ring.push(entry);
    }
    this.allocateLists();
    this.setSize(width, height, tileSize);
  }

  /**
   * Adds, to the shader stack being built, the statement recording the page id `pageId()` builds (a
   * uint node of texture `vtId`; built inside the branch, so it must take no derivative of its own)
   * for this fragment when it is its tile's sampled pixel this frame and it is nearer than what the
   * tile holds, and returns that stack (TSL's `If` result; see `moveIfToStackEnd`). `transparent`: a
   * surface that lets what lies behind show writes on half of the frames (alternating per tile), so
   * the surface behind requests on the others. Call while a node graph builds (a node's `setup`).
   */
  readonly requestWrite = (pageId: () => Expr, vtId: number, transparent: boolean): unknown => {
    const tiles = this.tilesNode;
    const size = this.tileSizeUniform;
    const perRow = this.tilesPerRowUniform;
    const frame = this.frameUniform;
    const px: Expr = uint(screenCoordinate.x);
    const py: Expr = uint(screenCoordinate.y);
    // Every pixel pays for this test only; the rest runs for one pixel per tile (WGSL's && stops
    // at the first false).
    let written: Expr = this.activeUniform
      .equal(uint(1))
      .and(px.mod(size).equal(this.jitterX))
      .and(py.mod(size).equal(this.jitterY));
    if (transparent)
      written = written.and(px.div(size).add(py.div(size)).add(frame).bitAnd(uint(1)).equal(uint(0)));
    return If(written, () => {
      const tx: Expr = px.div(size);
      const tile: Expr = py.div(size).mul(perRow).add(tx).toVar();
      If(tx.lessThan(perRow).and(tile.lessThan(this.tileCountUniform)), () => {
        // Positive floats order as their bits: the nearest fragment has the smallest key. Its 4
        // lowest bits are a hash of texture and frame, so where one material samples several
        // virtual textures each wins the pixel on about its share of the frames.
        const depthBits: Expr = floatBitsToUint(max(positionView.z.negate(), 0));
        const priority: Expr = uint(vtId).bitXor(frame).mul(uint(0x9e3779b1)).shiftRight(uint(28));
        const depthKey: Expr = depthBits.bitAnd(uint(0xfffffff0)).bitOr(priority).toVar();
        If(depthKey.lessThanEqual(atomicMin(tiles.element(tile.mul(2)), depthKey)), () => {
          atomicStore(tiles.element(tile.mul(2).add(1)), pageId());
        });
      });
    });
  };

  /**
   * Sets the tile grid (tiles) and tile side (screen pixels). A grid with more tiles than the
   * buffers hold replaces them (and the materials writing into them are rebuilt); a smaller one
   * keeps them.
   */
  setSize(width: number, height: number, tileSize: number): void {
    this.width = width;
    this.height = height;
    this.tileSize = tileSize;
    const tiles = width * height;
    if (tiles > this.compaction.tileCount) {
      this.compaction.dispose();
      this.bridge.disposeStorageAttribute(this.attribute);
      this.attribute = this.makeTiles(tiles);
      this.tilesNode = storage(this.attribute, 'uint', tiles * 2).toAtomic();
      this.compaction = new RequestCompaction(this.device, tiles);
      this.allocateLists();
      this.onBuffersReplaced();
    }
    this.tileSizeUniform.value = tileSize;
    this.tilesPerRowUniform.value = width;
    this.tileCountUniform.value = tiles;
  }

  /** True while a readback slot is free. */
  hasFreeSlot(): boolean {
    return !this.disposed && this.inFlight < MAX_READBACKS_IN_FLIGHT;
  }

  /**
   * Points the renders of frame `frame` with `camera` at that frame's jitter. Once the first of them
   * ran (at the end of the task that rendered, a microtask), the GPU compacts what they wrote and
   * the list is read back as frame `frame`'s feedback (with the tile image when `withImage`). When
   * every readback slot is busy then, the frame's pages stay in the GPU's table, read back (counts
   * added up) with the next list.
   */
  beginFrame(camera: Camera, frame: number, withImage: boolean): void {
    this.camera = camera;
    this.frame = frame;
    this.withImage = withImage;
    for (const entry of this.ring) if (!entry.busy) this.sizeImage(entry, withImage);
    const size = this.tileSize;
    this.jitterX.value = Math.min(size - 1, Math.floor(feedbackJitterX(frame) * size));
    this.jitterY.value = Math.min(size - 1, Math.floor(feedbackJitterY(frame) * size));
    this.frameUniform.value = frame & 0xffff;
  }

  /** After the task that rendered with the frame's camera: compaction and readback. */
  private afterRender(): void {
    this.scheduled = false;
    if (this.disposed) return;
    const tiles = this.bridge.gpuBuffer(this.attribute);
    if (tiles === undefined) return;
    if (this.hasFreeSlot()) this.start(tiles, this.frame, this.withImage);
    else {
      // No readback this frame: its tiles still go into the table, read with the next list.
      this.counters.skipped++;
      const encoder = this.device.createCommandEncoder(encoderDescriptor);
      this.compaction.encode(encoder, tiles, false);
      this.submit(encoder);
    }
  }

  /**
   * GPU bytes of the tile buffer (once three created it, at the first draw of a material writing
   * into it), table and list; the readback ring apart ({@link readbackBytes}).
   */
  get bufferBytes(): number {
    const tiles = this.bridge.gpuBuffer(this.attribute)?.size ?? 0;
    return tiles + this.compaction.bytes;
  }

  /** GPU bytes of the readback ring (lists, and tile images while a debug view asks for them). */
  get readbackBytes(): number {
    let total = 0;
    for (const entry of this.ring) total += (entry.list?.size ?? 0) + (entry.image?.size ?? 0);
    return total;
  }

  /** Frees every buffer; a map still pending settles as a failure. */
  dispose(): void {
    this.disposed = true;
    this.compaction.dispose();
    this.bridge.disposeStorageAttribute(this.attribute);
    for (const entry of this.ring) this.freeBuffers(entry);
  }

  private freeBuffers(entry: RingEntry): void {
    entry.list?.destroy();
    entry.image?.destroy();
    entry.list = null;
    entry.image = null;
  }

  private makeTiles(tiles: number): StorageBufferAttribute {
    const array = new Uint32Array(tiles * 2).fill(EMPTY);
    const attribute = new StorageBufferAttribute(array, 1);
    attribute.name = 'tessera:feedback-tiles';
    return attribute;
  }

  /**
   * Sizes the CPU copies and the ring's list buffers for the compaction's capacity (up front, so
   * the GPU bytes are what `stats()` says at any time); a list still in flight is replaced once idle.
   */
  private allocateLists(): void {
    const capacity = this.compaction.capacity;
    this.pages = new Uint32Array(capacity);
    this.counts = new Uint32Array(capacity);
    for (const entry of this.ring) if (!entry.busy) this.ensureList(entry);
  }

  /** Gives `entry` a list buffer of the compaction's size. */
  private ensureList(entry: RingEntry): GPUBuffer {
    const size = COMPACT_LIST_HEADER_BYTES + this.compaction.capacity * COMPACT_LIST_ENTRY_BYTES;
    if (entry.list !== null && entry.list.size !== size) {
      entry.list.destroy();
      entry.list = null;
    }
    if (entry.list === null) {
      bufferDescriptor.label = `tessera:feedback-list-readback:${this.ring.indexOf(entry)}`;
      bufferDescriptor.size = size;
      bufferDescriptor.usage = GPUBufferUsage.COPY_DST | GPUBufferUsage.MAP_READ;
      entry.list = this.device.createBuffer(bufferDescriptor);
    }
    return entry.list;
  }

  /** Creates or frees `entry`'s tile image buffer as debug views start or stop asking for it. */
  private sizeImage(entry: RingEntry, withImage: boolean): void {
    const size = this.width * this.height * TILE_BYTES;
    if (entry.image !== null && (!withImage || entry.image.size !== size)) {
      entry.image.destroy();
      entry.image = null;
    }
    if (withImage && entry.image === null) {
      bufferDescriptor.label = `tessera:feedback-image-readback:${this.ring.indexOf(entry)}`;
      bufferDescriptor.size = size;
      bufferDescriptor.usage = GPUBufferUsage.COPY_DST | GPUBufferUsage.MAP_READ;
      entry.image = this.device.createBuffer(bufferDescriptor);
    }
  }

  private start(tiles: GPUBuffer, frame: number, withImage: boolean): void {
    let entry: RingEntry | null = null;
    for (const candidate of this.ring) {
      if (!candidate.busy) {
        entry = candidate;
        break;
      }
    }
    if (entry === null) return;
    const device = this.device;
    const list = this.ensureList(entry);
    const entries = Math.min(this.compaction.capacity, this.expectedEntries);
    entry.listBytes = COMPACT_LIST_HEADER_BYTES + entries * COMPACT_LIST_ENTRY_BYTES;
    const encoder = device.createCommandEncoder(encoderDescriptor);
    const image = entry.image;
    entry.withImage = withImage && image !== null && image.size === this.width * this.height * TILE_BYTES;
    if (entry.withImage) {
      // Before the compaction, which clears the tiles.
      encoder.copyBufferToBuffer(tiles, 0, image!, 0, image!.size);
      entry.imageWidth = this.width;
      entry.imageHeight = this.height;
    }
    this.compaction.encode(encoder, tiles, true);
    encoder.copyBufferToBuffer(this.compaction.list, 0, list, 0, entry.listBytes);
    this.submit(encoder);
    entry.busy = true;
    entry.frame = frame;
    entry.sequence = ++this.sequence;
    this.inFlight++;
    this.counters.started++;
    list.mapAsync(GPUMapMode.READ, 0, entry.listBytes).then(entry.onMapped, entry.onFailed);
  }

  private submit(encoder: GPUCommandEncoder): void {
    this.commandBuffers[0] = encoder.finish();
    this.device.queue.submit(this.commandBuffers);
    this.commandBuffers.length = 0;
  }

  private mapped(entry: RingEntry): void {
    const list = entry.list;
    if (this.disposed || list === null) {
      this.release(entry);
      return;
    }
    if (entry.sequence <= this.delivered) {
      list.unmap();
      this.counters.dropped++;
      this.release(entry);
      return;
    }
    const words = new Uint32Array(list.getMappedRange(0, entry.listBytes));
    const found = words[0];
    const copied = (entry.listBytes - COMPACT_LIST_HEADER_BYTES) / COMPACT_LIST_ENTRY_BYTES;
    const n = Math.min(found, copied, this.pages.length);
    const pages = this.pages;
    const counts = this.counts;
    for (let i = 0; i < n; i++) {
      pages[i] = words[2 + 2 * i];
      counts[i] = words[3 + 2 * i];
    }
    list.unmap();
    if (found > copied) this.counters.truncated++;
    // Map room for what was found, with headroom, so a growing view loses little.
    this.expectedEntries = Math.max(256, Math.ceil(found * 1.5) + 64);
    this.delivered = entry.sequence;
    this.counters.delivered++;
    this.counters.bytesRead += entry.listBytes;
    const frame = entry.frame;
    const image = entry.withImage ? entry.image : null;
    if (image === null) this.release(entry);
    else {
      // The entry stays busy until its image is read too.
      image.mapAsync(GPUMapMode.READ).then(
        () => {
          if (!this.disposed) this.deliverImage(image, frame, entry.imageWidth, entry.imageHeight);
          this.release(entry);
        },
        () => this.release(entry),
      );
    }
    this.consumer(pages, counts, n, frame);
  }

  private deliverImage(buffer: GPUBuffer, frame: number, width: number, height: number): void {
    const words = new Uint32Array(buffer.getMappedRange());
    if (this.image.length !== width * height) this.image = new Uint32Array(width * height);
    for (let i = 0; i < width * height; i++) this.image[i] = words[2 * i + 1];
    buffer.unmap();
    this.imageConsumer(this.image, frame, width, height);
  }

  private release(entry: RingEntry): void {
    entry.busy = false;
    this.inFlight--;
    if (this.disposed) this.freeBuffers(entry);
    else {
      // A list of an older size (the grid grew while it was in flight) is replaced now.
      this.ensureList(entry);
    }
  }
}
