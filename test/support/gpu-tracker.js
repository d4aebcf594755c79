// @ts-check
/**
 * Independent GPU allocation tracker, injected with `page.addInitScript` before any page script.
 *
 * It wraps `GPUDevice.prototype.createTexture` / `createBuffer` and the `destroy()` of textures and
 * buffers, and keeps live and peak bytes in total and by label prefix (`tessera:`, `tessera:pool:`,
 * ...). It is the instrument every budget test uses, deliberately independent of the library's own
 * accounting, so it shares no code with `src/`.
 *
 * It also captures GPU errors: every device gets a bottom-of-stack `validation` error scope (popped
 * and re-pushed by `checkErrors()`) and an `uncapturederror` listener.
 *
 * The same file runs in Node (through `vm`) for the unit tests of its arithmetic: there, with no
 * `GPUDevice`, it only defines `globalThis.__tesseraGpuBytes`.
 */
(function installTesseraGpuTracker(global) {
  /** Texel block of each format: [block width, block height, bytes per block] (texels, texels, bytes). */
  const BLOCKS = {};
  /** @param {string[]} names @param {number} w @param {number} h @param {number} bytes */
  const add = (names, w, h, bytes) => {
    for (const name of names) BLOCKS[name] = [w, h, bytes];
  };
  add(['r8unorm', 'r8snorm', 'r8uint', 'r8sint', 'stencil8'], 1, 1, 1);
  add(
    [
      'r16uint',
      'r16sint',
      'r16float',
      'r16unorm',
      'r16snorm',
      'rg8unorm',
      'rg8snorm',
      'rg8uint',
      'rg8sint',
      'depth16unorm',
    ],
    1,
    1,
    2,
  );
  add(
    [
      'r32uint',
      'r32sint',
      'r32float',
      'rg16uint',
      'rg16sint',
      'rg16float',
      'rg16unorm',
      'rg16snorm',
      'rgba8unorm',
      'rgba8unorm-srgb',
      'rgba8snorm',
      'rgba8uint',
      'rgba8sint',
      'bgra8unorm',
      'bgra8unorm-srgb',
      'rgb9e5ufloat',
      'rgb10a2uint',
      'rgb10a2unorm',
      'rg11b10ufloat',
      // Depth formats whose size the spec leaves to the implementation: counted as 4 bytes.
      'depth24plus',
      'depth24plus-stencil8',
      'depth32float',
    ],
    1,
    1,
    4,
  );
  add(['depth32float-stencil8'], 1, 1, 8);
  add(
    [
      'rg32uint',
      'rg32sint',
      'rg32float',
      'rgba16uint',
      'rgba16sint',
      'rgba16float',
      'rgba16unorm',
      'rgba16snorm',
    ],
    1,
    1,
    8,
  );
  add(['rgba32uint', 'rgba32sint', 'rgba32float'], 1, 1, 16);
  add(['bc1-rgba-unorm', 'bc1-rgba-unorm-srgb', 'bc4-r-unorm', 'bc4-r-snorm'], 4, 4, 8);
  add(
    [
      'bc2-rgba-unorm',
      'bc2-rgba-unorm-srgb',
      'bc3-rgba-unorm',
      'bc3-rgba-unorm-srgb',
      'bc5-rg-unorm',
      'bc5-rg-snorm',
      'bc6h-rgb-ufloat',
      'bc6h-rgb-float',
      'bc7-rgba-unorm',
      'bc7-rgba-unorm-srgb',
    ],
    4,
    4,
    16,
  );
  add(
    [
      'etc2-rgb8unorm',
      'etc2-rgb8unorm-srgb',
      'etc2-rgb8a1unorm',
      'etc2-rgb8a1unorm-srgb',
      'eac-r11unorm',
      'eac-r11snorm',
    ],
    4,
    4,
    8,
  );
  add(['etc2-rgba8unorm', 'etc2-rgba8unorm-srgb', 'eac-rg11unorm', 'eac-rg11snorm'], 4, 4, 16);
  for (const [w, h] of [
    [4, 4],
    [5, 4],
    [5, 5],
    [6, 5],
    [6, 6],
    [8, 5],
    [8, 6],
    [8, 8],
    [10, 5],
    [10, 6],
    [10, 8],
    [10, 10],
    [12, 10],
    [12, 12],
  ]) {
    add([`astc-${w}x${h}-unorm`, `astc-${w}x${h}-unorm-srgb`], w, h, 16);
  }

  /**
   * Exact bytes of a texture described by a `GPUTextureDescriptor`: every mip level, every array
   * layer (or 3D slice, which halves per level), every sample, block-compressed formats by blocks.
   * @param {{ size: any, format: string, mipLevelCount?: number, sampleCount?: number, dimension?: string }} desc
   * @returns {number} bytes
   */
  function textureBytes(desc) {
    const size = desc.size;
    const isArray =
      Array.isArray(size) || (typeof size === 'object' && size !== null && Symbol.iterator in size);
    const list = isArray ? Array.from(size) : null;
    const width = list ? list[0] : size.width;
    const height = (list ? list[1] : size.height) ?? 1;
    const depth = (list ? list[2] : size.depthOrArrayLayers) ?? 1;
    const block = BLOCKS[desc.format];
    if (!block) throw new Error(`gpu-tracker: unknown texture format ${desc.format}`);
    const [bw, bh, bytesPerBlock] = block;
    const levels = desc.mipLevelCount ?? 1;
    const samples = desc.sampleCount ?? 1;
    const is3d = desc.dimension === '3d';
    let total = 0;
    for (let level = 0; level < levels; level++) {
      const w = Math.max(1, width >> level);
      const h = desc.dimension === '1d' ? 1 : Math.max(1, height >> level);
      const layers = is3d ? Math.max(1, depth >> level) : depth;
      total += Math.ceil(w / bw) * Math.ceil(h / bh) * bytesPerBlock * layers;
    }
    return total * samples;
  }

  /**
   * The prefixes a label is counted under: each `:`-terminated prefix and the whole label
   * ("tessera:pool:albedo" counts under "tessera:", "tessera:pool:" and itself).
   * @param {string} label
   * @returns {string[]}
   */
  function labelPrefixes(label) {
    const prefixes = [];
    for (let i = label.indexOf(':'); i >= 0; i = label.indexOf(':', i + 1))
      prefixes.push(label.slice(0, i + 1));
    if (!label.endsWith(':')) prefixes.push(label);
    return prefixes;
  }

  global.__tesseraGpuBytes = { textureBytes, labelPrefixes };
  if (typeof global.GPUDevice === 'undefined') return;

  /** @type {Map<object, { bytes: number, prefixes: string[], kind: 'texture' | 'buffer' }>} */
  const live = new Map();
  /** @type {Map<string, { live: number, peak: number }>} */
  const byPrefix = new Map();
  const totals = { liveBytes: 0, peakBytes: 0, textures: 0, buffers: 0 };
  /** @type {Set<GPUDevice>} */
  const devices = new Set();
  /** @type {string[]} */
  const uncaptured = [];

  /** @param {object} object @param {number} bytes @param {string} label @param {'texture'|'buffer'} kind */
  function track(object, bytes, label, kind) {
    const prefixes = labelPrefixes(label || '(unlabelled)');
    live.set(object, { bytes, prefixes, kind });
    totals.liveBytes += bytes;
    totals.peakBytes = Math.max(totals.peakBytes, totals.liveBytes);
    totals[kind === 'texture' ? 'textures' : 'buffers']++;
    for (const prefix of prefixes) {
      let entry = byPrefix.get(prefix);
      if (!entry) {
        entry = { live: 0, peak: 0 };
        byPrefix.set(prefix, entry);
      }
      entry.live += bytes;
      entry.peak = Math.max(entry.peak, entry.live);
    }
  }

  /** @param {object} object */
  function untrack(object) {
    const record = live.get(object);
    if (!record) return;
    live.delete(object);
    totals.liveBytes -= record.bytes;
    totals[record.kind === 'texture' ? 'textures' : 'buffers']--;
    for (const prefix of record.prefixes) {
      const entry = byPrefix.get(prefix);
      if (entry) entry.live -= record.bytes;
    }
  }

  const proto = global.GPUDevice.prototype;
  const createTexture = proto.createTexture;
  proto.createTexture = function (desc) {
    const texture = createTexture.call(this, desc);
    try {
      track(texture, textureBytes(desc), desc.label ?? '', 'texture');
    } catch (error) {
      uncaptured.push(String(error));
    }
    return texture;
  };
  const createBuffer = proto.createBuffer;
  proto.createBuffer = function (desc) {
    const buffer = createBuffer.call(this, desc);
    track(buffer, desc.size, desc.label ?? '', 'buffer');
    return buffer;
  };
  for (const Class of [global.GPUTexture, global.GPUBuffer]) {
    const destroy = Class.prototype.destroy;
    Class.prototype.destroy = function () {
      untrack(this);
      return destroy.call(this);
    };
  }

  const requestDevice = global.GPUAdapter.prototype.requestDevice;
  global.GPUAdapter.prototype.requestDevice = async function (desc) {
    const device = await requestDevice.call(this, desc);
    devices.add(device);
    device.pushErrorScope('validation');
    device.addEventListener('uncapturederror', (event) => {
      uncaptured.push(`${event.error.constructor.name}: ${event.error.message}`);
    });
    device.lost.then((info) => {
      devices.delete(device);
      if (info.reason !== 'destroyed') uncaptured.push(`device lost: ${info.message}`);
    });
    return device;
  };

  global.__tesseraGpuTracker = {
    /** Live/peak bytes now, in total and by label prefix. */
    snapshot() {
      const prefixes = {};
      for (const [prefix, entry] of byPrefix) prefixes[prefix] = { live: entry.live, peak: entry.peak };
      return { ...totals, byPrefix: prefixes, devices: devices.size };
    },
    /** Starts a new peak measurement from the current live figures. */
    resetPeak() {
      totals.peakBytes = totals.liveBytes;
      for (const entry of byPrefix.values()) entry.peak = entry.live;
    },
    /** Live bytes whose label starts with `prefix` (any prefix, not only `:`-terminated ones). */
    liveBytesWithPrefix(prefix) {
      let bytes = 0;
      for (const record of live.values())
        if (record.prefixes[record.prefixes.length - 1].startsWith(prefix)) bytes += record.bytes;
      return bytes;
    },
    /** Pops and re-pushes each device's validation scope; returns and clears every error seen. */
    async checkErrors() {
      const errors = uncaptured.splice(0);
      for (const device of devices) {
        await device.queue.onSubmittedWorkDone();
        const error = await device.popErrorScope();
        device.pushErrorScope('validation');
        if (error) errors.push(`${error.constructor.name}: ${error.message}`);
      }
      return errors;
    },
  };
})(globalThis);
