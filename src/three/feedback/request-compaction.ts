/*
 * GPU compaction of main-pass feedback: reduces one frame's screen-tile requests (one packed page
 * id per screen tile, written by the materials during the user's render) to the distinct pages
 * with the number of tiles requesting each, so the CPU reads back and scans a list that grows with
 * the pages in view, not with the screen (Unreal's GPUFeedbackCompaction does the same with a hash
 * table). Two compute passes: `insert` hashes every tile's page into an open-addressing table
 * (atomic compare-exchange on the key, atomic add on the count) and clears the tile for the next
 * frame; `gather` appends every used table entry to the list and clears it. Raw WebGPU rather than
 * three's compute nodes: the passes run between three's frames, on buffers three does not draw.
 */

const WGSL = /* wgsl */ `
struct Params { tileCount: u32, tableSize: u32, listCapacity: u32, pad: u32 }
const EMPTY: u32 = 0xffffffffu;
@group(0) @binding(0) var<storage, read_write> tiles: array<u32>;
@group(0) @binding(1) var<storage, read_write> table: array<atomic<u32>>;
@group(0) @binding(2) var<storage, read_write> list: array<atomic<u32>>;
@group(0) @binding(3) var<uniform> params: Params;

@compute @workgroup_size(64)
fn insert(@builtin(global_invocation_id) id: vec3u) {
  let i = id.x;
  if (i >= params.tileCount) { return; }
  let page = tiles[2u * i + 1u];
  tiles[2u * i] = EMPTY;
  tiles[2u * i + 1u] = EMPTY;
  if (page == EMPTY) { return; }
  var h = (page * 0x9e3779b1u) % params.tableSize;
  var probes = 0u;
  loop {
    if (probes >= params.tableSize) { return; }
    let r = atomicCompareExchangeWeak(&table[2u * h], EMPTY, page);
    if (r.exchanged || r.old_value == page) {
      atomicAdd(&table[2u * h + 1u], 1u);
      return;
    }
    // A weak exchange may fail spuriously while the slot is still empty: try the same slot again.
    if (r.old_value != EMPTY) {
      h = (h + 1u) % params.tableSize;
      probes = probes + 1u;
    }
  }
}

@compute @workgroup_size(64)
fn gather(@builtin(global_invocation_id) id: vec3u) {
  let h = id.x;
  if (h >= params.tableSize) { return; }
  let key = atomicLoad(&table[2u * h]);
  if (key == EMPTY) { return; }
  let count = atomicLoad(&table[2u * h + 1u]);
  atomicStore(&table[2u * h], EMPTY);
  atomicStore(&table[2u * h + 1u], 0u);
  let at = atomicAdd(&list[0], 1u);
  if (at < params.listCapacity) {
    atomicStore(&list[2u + 2u * at], key);
    atomicStore(&list[3u + 2u * at], count);
  }
}
`;

/** Bytes of the list's header: the number of distinct pages found (may exceed the capacity), a pad word. */
export const COMPACT_LIST_HEADER_BYTES = 8;
/** Bytes of one list entry: page id, tiles requesting it. */
export const COMPACT_LIST_ENTRY_BYTES = 8;
const WORKGROUP = 64;

// Reused descriptors (no allocation per frame).
const passDescriptor: GPUComputePassDescriptor = { label: 'tessera:feedback-compaction' };

/**
 * The compaction passes over one tile buffer of `tileCount` tiles (two u32 each: depth key, page
 * id), with a hash table of twice as many entries and a list of up to `tileCount` pages (every tile
 * a different page still fits). Owns the table, the list and the parameters; not the tile buffer.
 */
export class RequestCompaction {
  /** The compacted list: a header, then (page, count) pairs. */
  readonly list: GPUBuffer;
  /** Most list entries. */
  readonly capacity: number;
  private readonly table: GPUBuffer;
  private readonly params: GPUBuffer;
  private readonly insert: GPUComputePipeline;
  private readonly gather: GPUComputePipeline;
  private readonly tableSize: number;
  private bindGroup: GPUBindGroup | null = null;
  private boundTiles: GPUBuffer | null = null;
  private readonly bindEntries: GPUBindGroupEntry[];

  constructor(
    private readonly device: GPUDevice,
    readonly tileCount: number,
  ) {
    this.capacity = tileCount;
    this.tableSize = tileCount * 2;
    this.table = device.createBuffer({
      label: 'tessera:feedback-table',
      size: this.tableSize * 8,
      usage: GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_DST,
    });
    const empty = new Uint32Array(this.tableSize * 2);
    for (let i = 0; i < empty.length; i += 2) empty[i] = 0xffffffff;
    device.queue.writeBuffer(this.table, 0, empty);
    this.list = device.createBuffer({
      label: 'tessera:feedback-list',
      size: COMPACT_LIST_HEADER_BYTES + this.capacity * COMPACT_LIST_ENTRY_BYTES,
      usage: GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_SRC | GPUBufferUsage.COPY_DST,
    });
    this.params = device.createBuffer({
      label: 'tessera:feedback-compaction-params',
      size: 16,
      usage: GPUBufferUsage.UNIFORM | GPUBufferUsage.COPY_DST,
    });
    device.queue.writeBuffer(this.params, 0, new Uint32Array([tileCount, this.tableSize, this.capacity, 0]));
    const { module, layout } = devicePipelines(device);
    this.insert = device.createComputePipeline({
      label: 'tessera:feedback-insert',
      layout,
      compute: { module, entryPoint: 'insert' },
    });
    this.gather = device.createComputePipeline({
      label: 'tessera:feedback-gather',
      layout,
      compute: { module, entryPoint: 'gather' },
    });
    this.bindEntries = [
      { binding: 0, resource: { buffer: this.table } },
      { binding: 1, resource: { buffer: this.table } },
      { binding: 2, resource: { buffer: this.list } },
      { binding: 3, resource: { buffer: this.params } },
    ];
  }

  /** GPU bytes of the table, list and parameters. */
  get bytes(): number {
    return this.table.size + this.list.size + this.params.size;
  }

  /**
   * Records into `encoder`: the tiles of `tiles` hashed into the table (and cleared for the next
   * frame), then, when `gather`, the list cleared and the table gathered into it (and cleared).
   * Without `gather` the table keeps the pages with their counts for the next gather, so a frame
   * whose list is not read back still counts, and each frame's tiles keep only that frame's
   * nearest surfaces.
   */
  encode(encoder: GPUCommandEncoder, tiles: GPUBuffer, gather: boolean): void {
    if (tiles !== this.boundTiles) {
      this.boundTiles = tiles;
      (this.bindEntries[0].resource as GPUBufferBinding).buffer = tiles;
      this.bindGroup = this.device.createBindGroup({
        label: 'tessera:feedback-compaction',
        layout: devicePipelines(this.device).group,
        entries: this.bindEntries,
      });
    }
    const pass = encoder.beginComputePass(passDescriptor);
    pass.setBindGroup(0, this.bindGroup);
    pass.setPipeline(this.insert);
    pass.dispatchWorkgroups(Math.ceil(this.tileCount / WORKGROUP));
    pass.end();
    if (!gather) return;
    encoder.clearBuffer(this.list, 0, COMPACT_LIST_HEADER_BYTES);
    const second = encoder.beginComputePass(passDescriptor);
    second.setBindGroup(0, this.bindGroup);
    second.setPipeline(this.gather);
    second.dispatchWorkgroups(Math.ceil(this.tableSize / WORKGROUP));
    second.end();
  }

  /** Destroys the table, list and parameters. */
  dispose(): void {
    this.table.destroy();
    this.list.destroy();
    this.params.destroy();
    this.bindGroup = null;
    this.boundTiles = null;
  }
}

/** Per-device shader module, bind group layout and pipeline layout (a lost device frees them). */
interface DevicePipelines {
  module: GPUShaderModule;
  group: GPUBindGroupLayout;
  layout: GPUPipelineLayout;
}
const pipelines = new WeakMap<GPUDevice, DevicePipelines>();

function devicePipelines(device: GPUDevice): DevicePipelines {
  let entry = pipelines.get(device);
  if (entry === undefined) {
    const module = device.createShaderModule({ label: 'tessera:feedback-compaction', code: WGSL });
    const storage = (binding: number): GPUBindGroupLayoutEntry => ({
      binding,
      visibility: GPUShaderStage.COMPUTE,
      buffer: { type: 'storage' },
    });
    const group = device.createBindGroupLayout({
      label: 'tessera:feedback-compaction',
      entries: [
        storage(0),
        storage(1),
        storage(2),
        { binding: 3, visibility: GPUShaderStage.COMPUTE, buffer: { type: 'uniform' } },
      ],
    });
    const layout = device.createPipelineLayout({
      label: 'tessera:feedback-compaction',
      bindGroupLayouts: [group],
    });
    entry = { module, group, layout };
    pipelines.set(device, entry);
  }
  return entry;
}
