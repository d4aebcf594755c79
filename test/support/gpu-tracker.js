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

  /** Bytes per texel of WebGL2 sized internal formats (GLenum -> bytes). */
  const GL_SIZED = new Map([
    [0x8229, 1], // R8
    [0x8231, 1], // R8I
    [0x8232, 1], // R8UI
    [0x8f94, 1], // R8_SNORM
    [0x822b, 2], // RG8
    [0x822d, 2], // R16F
    [0x8233, 2], // R16I
    [0x8234, 2], // R16UI
    [0x8237, 2], // RG8I
    [0x8238, 2], // RG8UI
    [0x8f95, 2], // RG8_SNORM
    [0x8d62, 2], // RGB565
    [0x8056, 2], // RGBA4
    [0x8057, 2], // RGB5_A1
    [0x81a5, 2], // DEPTH_COMPONENT16
    [0x8051, 3], // RGB8
    [0x8c41, 3], // SRGB8
    [0x8f96, 3], // RGB8_SNORM
    [0x8d8f, 3], // RGB8I
    [0x8d7d, 3], // RGB8UI
    [0x8058, 4], // RGBA8
    [0x8c43, 4], // SRGB8_ALPHA8
    [0x8f97, 4], // RGBA8_SNORM
    [0x8d8e, 4], // RGBA8I
    [0x8d7c, 4], // RGBA8UI
    [0x8059, 4], // RGB10_A2
    [0x906f, 4], // RGB10_A2UI
    [0x822e, 4], // R32F
    [0x8235, 4], // R32I
    [0x8236, 4], // R32UI
    [0x822f, 4], // RG16F
    [0x8239, 4], // RG16I
    [0x823a, 4], // RG16UI
    [0x8c3a, 4], // R11F_G11F_B10F
    [0x8c3d, 4], // RGB9_E5
    [0x81a6, 4], // DEPTH_COMPONENT24
    [0x88f0, 4], // DEPTH24_STENCIL8
    [0x8cac, 4], // DEPTH_COMPONENT32F
    [0x881b, 6], // RGB16F
    [0x8d89, 6], // RGB16I
    [0x8d77, 6], // RGB16UI
    [0x881a, 8], // RGBA16F
    [0x8230, 8], // RG32F
    [0x823b, 8], // RG32I
    [0x823c, 8], // RG32UI
    [0x8d88, 8], // RGBA16I
    [0x8d76, 8], // RGBA16UI
    [0x8cad, 8], // DEPTH32F_STENCIL8
    [0x8815, 12], // RGB32F
    [0x8d83, 12], // RGB32I
    [0x8d71, 12], // RGB32UI
    [0x8814, 16], // RGBA32F
    [0x8d82, 16], // RGBA32I
    [0x8d70, 16], // RGBA32UI
  ]);
  /** Bytes per 4x4 block of WebGL2 compressed internal formats (texStorage allocates them too). */
  const GL_BLOCK_4X4 = new Map([
    [0x83f0, 8], // RGB_S3TC_DXT1
    [0x83f1, 8], // RGBA_S3TC_DXT1
    [0x83f2, 16], // RGBA_S3TC_DXT3
    [0x83f3, 16], // RGBA_S3TC_DXT5
    [0x8c4c, 8], // SRGB_S3TC_DXT1
    [0x8c4d, 8], // SRGB_ALPHA_S3TC_DXT1
    [0x8c4e, 16], // SRGB_ALPHA_S3TC_DXT3
    [0x8c4f, 16], // SRGB_ALPHA_S3TC_DXT5
    [0x8dbb, 8], // RED_RGTC1
    [0x8dbc, 8], // SIGNED_RED_RGTC1
    [0x8dbd, 16], // RED_GREEN_RGTC2
    [0x8dbe, 16], // SIGNED_RED_GREEN_RGTC2
    [0x8e8c, 16], // RGBA_BPTC_UNORM
    [0x8e8d, 16], // SRGB_ALPHA_BPTC_UNORM
    [0x8e8e, 16], // RGB_BPTC_SIGNED_FLOAT
    [0x8e8f, 16], // RGB_BPTC_UNSIGNED_FLOAT
    [0x9270, 8], // R11_EAC
    [0x9271, 8], // SIGNED_R11_EAC
    [0x9272, 16], // RG11_EAC
    [0x9273, 16], // SIGNED_RG11_EAC
    [0x9274, 8], // RGB8_ETC2
    [0x9275, 8], // SRGB8_ETC2
    [0x9276, 8], // RGB8_PUNCHTHROUGH_ALPHA1_ETC2
    [0x9277, 8], // SRGB8_PUNCHTHROUGH_ALPHA1_ETC2
    [0x9278, 16], // RGBA8_ETC2_EAC
    [0x9279, 16], // SRGB8_ALPHA8_ETC2_EAC
    [0x93b0, 16], // RGBA_ASTC_4x4
    [0x93d0, 16], // SRGB8_ALPHA8_ASTC_4x4
  ]);
  /** Components of unsized formats, and bytes per component of types, for unsized texImage calls. */
  const GL_COMPONENTS = new Map([
    [0x1906, 1], // ALPHA
    [0x1907, 3], // RGB
    [0x1908, 4], // RGBA
    [0x1909, 1], // LUMINANCE
    [0x190a, 2], // LUMINANCE_ALPHA
    [0x1903, 1], // RED
  ]);
  /** Types that pack a whole texel into their size. */
  const PACKED_TYPES = new Set([0x8363, 0x8033, 0x8034]);
  const GL_TYPE_BYTES = new Map([
    [0x1401, 1], // UNSIGNED_BYTE
    [0x1400, 1], // BYTE
    [0x1403, 2], // UNSIGNED_SHORT
    [0x1402, 2], // SHORT
    [0x1405, 4], // UNSIGNED_INT
    [0x1404, 4], // INT
    [0x1406, 4], // FLOAT
    [0x140b, 2], // HALF_FLOAT
    [0x8d61, 2], // HALF_FLOAT_OES
    [0x8363, 2], // UNSIGNED_SHORT_5_6_5
    [0x8033, 2], // UNSIGNED_SHORT_4_4_4_4
    [0x8034, 2], // UNSIGNED_SHORT_5_5_5_1
  ]);

  /**
   * Bytes of one level of a WebGL2 texture image.
   * @param {number} internalformat @param {number} type
   * @param {number} width @param {number} height @param {number} depth
   */
  function glImageBytes(internalformat, type, width, height, depth) {
    const block = GL_BLOCK_4X4.get(internalformat);
    if (block !== undefined) return Math.ceil(width / 4) * Math.ceil(height / 4) * block * depth;
    let texel = GL_SIZED.get(internalformat);
    if (texel === undefined) {
      // Unsized formats (RGBA + UNSIGNED_BYTE, ...): components x component size, or the packed size.
      const components = GL_COMPONENTS.get(internalformat);
      const typeBytes = GL_TYPE_BYTES.get(type);
      if (components !== undefined && typeBytes !== undefined)
        texel = PACKED_TYPES.has(type) ? typeBytes : components * typeBytes;
    }
    if (texel === undefined)
      throw new Error(`gpu-tracker: unknown WebGL internal format 0x${internalformat.toString(16)}`);
    return texel * width * height * depth;
  }

  global.__tesseraGpuBytes = { textureBytes, labelPrefixes, glImageBytes };
  if (typeof global.GPUDevice === 'undefined' && typeof global.WebGL2RenderingContext === 'undefined') return;

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

  if (typeof global.GPUDevice !== 'undefined') {
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
  }

  if (typeof global.WebGL2RenderingContext !== 'undefined')
    installWebGLTracker(global.WebGL2RenderingContext.prototype);

  /**
   * WebGL2 has no labels: allocations count under `webgl:texture`, `webgl:buffer` and
   * `webgl:renderbuffer`, sized from the calls that allocate storage on the object bound to the
   * target (each texture level and cube face replaces its previous image).
   * @param {any} gl the WebGL2RenderingContext prototype
   */
  function installWebGLTracker(gl) {
    /** @type {WeakMap<object, Map<string, object>>} per context: binding key -> object */
    const bindings = new WeakMap();
    /** @type {Map<object, Map<string, number>>} texture -> image key -> bytes */
    const images = new Map();
    const bound = (ctx, key) => bindings.get(ctx)?.get(key);
    const setBound = (ctx, key, object) => {
      let map = bindings.get(ctx);
      if (!map) {
        map = new Map();
        bindings.set(ctx, map);
      }
      map.set(key, object);
    };
    const unitKey = (ctx, target) => `${target}@${bound(ctx, 'unit') ?? 0x84c0}`;
    /** Re-sizes one image of a texture: the tracker's record is the sum over its images. */
    const setImage = (texture, key, bytes) => {
      if (!texture) return;
      let map = images.get(texture);
      if (!map) {
        map = new Map();
        images.set(texture, map);
      }
      map.set(key, bytes);
      let total = 0;
      for (const value of map.values()) total += value;
      untrack(texture);
      track(texture, total, 'webgl:texture', 'texture');
    };
    const faceTarget = (ctx, target) =>
      target >= 0x8515 && target <= 0x851a ? ctx.TEXTURE_CUBE_MAP : target;
    const wrap = (name, after) => {
      const original = gl[name];
      gl[name] = function (...args) {
        const result = original.apply(this, args);
        try {
          after(this, args, result);
        } catch (error) {
          uncaptured.push(String(error));
        }
        return result;
      };
    };
    wrap('activeTexture', (ctx, [unit]) => setBound(ctx, 'unit', unit));
    wrap('bindTexture', (ctx, [target, texture]) => setBound(ctx, unitKey(ctx, target), texture));
    wrap('bindBuffer', (ctx, [target, buffer]) => setBound(ctx, `buffer${target}`, buffer));
    wrap('bindRenderbuffer', (ctx, [target, rb]) => setBound(ctx, `rb${target}`, rb));
    wrap('texStorage2D', (ctx, [target, levels, internalformat, width, height]) => {
      const texture = bound(ctx, unitKey(ctx, target));
      const faces = target === ctx.TEXTURE_CUBE_MAP ? 6 : 1;
      for (let level = 0; level < levels; level++) {
        const bytes = glImageBytes(
          internalformat,
          0,
          Math.max(1, width >> level),
          Math.max(1, height >> level),
          1,
        );
        setImage(texture, `L${level}`, bytes * faces);
      }
    });
    wrap('texStorage3D', (ctx, [target, levels, internalformat, width, height, depth]) => {
      const texture = bound(ctx, unitKey(ctx, target));
      for (let level = 0; level < levels; level++) {
        const d = target === ctx.TEXTURE_3D ? Math.max(1, depth >> level) : depth;
        setImage(
          texture,
          `L${level}`,
          glImageBytes(internalformat, 0, Math.max(1, width >> level), Math.max(1, height >> level), d),
        );
      }
    });
    wrap('texImage2D', (ctx, args) => {
      const [target, level, internalformat] = args;
      // texImage2D(target, level, internalformat, width, height, border, format, type, ...) or the
      // 6-argument form with a DOM image source, whose size is the source's.
      const sized = args.length >= 8 && typeof args[3] === 'number';
      const width = sized ? args[3] : (args[5]?.width ?? args[5]?.videoWidth ?? 0);
      const height = sized ? args[4] : (args[5]?.height ?? args[5]?.videoHeight ?? 0);
      const type = sized ? args[7] : args[4];
      const texture = bound(ctx, unitKey(ctx, faceTarget(ctx, target)));
      setImage(texture, `L${level}F${target}`, glImageBytes(internalformat, type, width, height, 1));
    });
    wrap('texImage3D', (ctx, [target, level, internalformat, width, height, depth, , , type]) => {
      setImage(
        bound(ctx, unitKey(ctx, target)),
        `L${level}`,
        glImageBytes(internalformat, type, width, height, depth),
      );
    });
    wrap('compressedTexImage2D', (ctx, args) => {
      const [target, level] = args;
      const data = args[6];
      const bytes = typeof data === 'number' ? data : (args[8] ?? data?.byteLength ?? 0);
      setImage(bound(ctx, unitKey(ctx, faceTarget(ctx, target))), `L${level}F${target}`, bytes);
    });
    wrap('deleteTexture', (_ctx, [texture]) => {
      images.delete(texture);
      untrack(texture);
    });
    wrap('bufferData', (ctx, [target, sizeOrData]) => {
      const buffer = bound(ctx, `buffer${target}`);
      if (!buffer) return;
      untrack(buffer);
      track(
        buffer,
        typeof sizeOrData === 'number' ? sizeOrData : (sizeOrData?.byteLength ?? 0),
        'webgl:buffer',
        'buffer',
      );
    });
    wrap('deleteBuffer', (_ctx, [buffer]) => untrack(buffer));
    const storage = (ctx, target, samples, internalformat, width, height) => {
      const rb = bound(ctx, `rb${target}`);
      if (!rb) return;
      untrack(rb);
      track(
        rb,
        glImageBytes(internalformat, 0, width, height, 1) * Math.max(1, samples),
        'webgl:renderbuffer',
        'texture',
      );
    };
    wrap('renderbufferStorage', (ctx, [target, internalformat, width, height]) =>
      storage(ctx, target, 1, internalformat, width, height),
    );
    wrap('renderbufferStorageMultisample', (ctx, [target, samples, internalformat, width, height]) =>
      storage(ctx, target, samples, internalformat, width, height),
    );
    wrap('deleteRenderbuffer', (_ctx, [rb]) => untrack(rb));
  }

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
    /**
     * Live objects and bytes by label, numbers in the label replaced by `#` (three names each
     * uniform buffer `bindingBuffer<id>_...`), so growth shows as a rising count under one key.
     */
    liveByLabel() {
      /** @type {Record<string, { count: number, bytes: number }>} */
      const out = {};
      for (const record of live.values()) {
        const key = record.prefixes[record.prefixes.length - 1].replace(/\d+/g, '#');
        if (!out[key]) out[key] = { count: 0, bytes: 0 };
        const entry = out[key];
        entry.count++;
        entry.bytes += record.bytes;
      }
      return out;
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
