import {
  LoaderUtils,
  type Material,
  type Mesh,
  NoColorSpace,
  type Object3D,
  SRGBColorSpace,
  Texture,
} from 'three';
import type {
  GLTF,
  GLTFLoader,
  GLTFLoaderPlugin,
  GLTFParser,
} from 'three/examples/jsm/loaders/GLTFLoader.js';
import { warnDeprecated } from '../../core/deprecation';
import { TesseraError, TileSourceError } from '../../core/errors';
import type { EncodedPyramidSource } from '../../core/streaming/mip-pyramid-source';
import { isEtc1sPyramidFormat, isUastcPyramidFormat } from '../../core/streaming/mip-pyramid-source';
import { ImagePyramidGenerator } from '../../sources/mips/image-pyramid-generator';
import type { StreamedTexture } from '../streamed/streamed-texture';
import type { TextureStreamingSystem } from '../streamed/texture-streaming-system';
import {
  type GltfTextureImage,
  type GltfTextureUse,
  gltfTextureImage,
  gltfTextureUses,
  gltfUseKey,
  openGltfTextureSource,
  TESSERA_TEXTURE_KTX2,
} from './gltf-texture-sources';

/** Options of {@link registerGltfTextureStreaming}. */
export interface GltfTextureStreamingOptions {
  /**
   * Lifetime tag of the textures of the scenes loaded from now on (e.g. `scene:castle`), so scene
   * transitions and the stale sweep treat them as one scene. Change it between loads with
   * {@link GltfTextureStreaming.tag}.
   */
  tag: string;
  /** The textures are their scene's core set (loaded first by transitions). Default true. */
  core?: boolean;
  /**
   * Per texture, by its glTF image name: whether it is in the core set, overriding {@link core}
   * (a scene whose most visible surfaces should come first). Default: {@link core} for every one.
   */
  isCore?: (textureName: string) => boolean;
  /** Anisotropic filtering of the streamed textures, samples (1..16). Default the system's. */
  anisotropy?: number;
  /**
   * Image decode-and-downsample workers (PNG/JPEG/WebP) of this registration's own, 1..16.
   * Default: the runtime's (see `TesseraRuntimeOptions.imageWorkers`), shared by every registration.
   */
  imageWorkers?: number;
  /**
   * Told about a texture that could not be streamed (a bad or unsupported KTX2 file, an image that
   * does not decode, a budget too small for its pinned mips): the material loads without that map
   * (as three's GLTFLoader does with a failing image) and everything else streams. Such a texture
   * is always reported by the streaming system's `error` event (`texture` null, `textureName` the
   * image's name); with no listener and no `onError`, by a console warning.
   * @deprecated Listen to the streaming system's `error` event.
   */
  onError?: (error: unknown, textureName: string) => void;
}

/** userData key marking GLTFLoader's stand-in for a streamed texture (survives `texture.clone()`). */
const STAND_IN = 'tesseraGltfTexture';

/**
 * A registration of Tessera's streaming on a three.js `GLTFLoader` (from
 * {@link registerGltfTextureStreaming}): every material texture of the scenes it loads is a
 * {@link StreamedTexture} of one {@link TextureStreamingSystem}, under its budget.
 */
export class GltfTextureStreaming {
  /** Lifetime tag given to the textures of the next loads. */
  tag: string;
  private readonly isCore: (textureName: string) => boolean;
  private readonly anisotropy: number | undefined;
  private readonly images: ImagePyramidGenerator;
  private readonly ownsImages: boolean;
  private readonly onError: (error: unknown, textureName: string) => void;
  private readonly byRoot = new WeakMap<Object3D, StreamedTexture[]>();
  private disposed = false;
  private warnedNotBasis = false;

  /** @internal use {@link registerGltfTextureStreaming}. */
  constructor(
    private readonly loader: GLTFLoader,
    private readonly streaming: TextureStreamingSystem,
    options: GltfTextureStreamingOptions,
  ) {
    this.tag = options.tag;
    const core = options.core ?? true;
    this.isCore = options.isCore ?? (() => core);
    this.anisotropy = options.anisotropy;
    this.ownsImages = options.imageWorkers !== undefined;
    this.images = this.ownsImages
      ? new ImagePyramidGenerator({ size: options.imageWorkers })
      : streaming.runtime.imagePyramids();
    if (options.onError !== undefined)
      warnDeprecated('GltfTextureStreamingOptions.onError', "streaming.events.on('error')");
    const onError = options.onError;
    this.onError = (error, name) => {
      onError?.(error, name);
      const typed =
        error instanceof TesseraError
          ? error
          : new TesseraError('texture-load-failed', `glTF texture '${name}': ${String(error)}`, {
              cause: error,
            });
      // The system's error event, in its shape; a console warning when nobody listens.
      if (streaming.events.has('error'))
        streaming.events.emit('error', { error: typed, texture: null, textureName: name });
      else if (onError === undefined)
        console.warn(`tessera: glTF texture '${name}' is not streamed: ${String(error)}`);
    };
  }

  /**
   * The streamed textures of a loaded glTF (its `gltf.scene`, or any of `gltf.scenes`): one side of
   * `TextureStreamingSystem.transition`. Empty for roots this registration did not load.
   */
  texturesOf(root: Object3D): readonly StreamedTexture[] {
    return this.byRoot.get(root) ?? [];
  }

  /**
   * Loads a glTF file as `loader.loadAsync(url)` does (with the loader's `path` and
   * `resourcePath`), except that the file is downloaded through the streaming system's
   * {@link TextureStreamingSystem.http} client: a transient failure (5xx, 408, 429, a reset, a
   * timeout, a body cut short) is retried with backoff and jitter, honouring `Retry-After`, and
   * counted in `streaming.stats().retries`, as its KTX2 files and images are. Resources a `.gltf`
   * names by URI (`.bin` buffers) are fetched by the loader itself: pack the scene as `.glb` for
   * retries throughout.
   *
   * ```ts
   * const gltf = await gltfStreaming.load('castle.glb');
   * ```
   * @throws TileSourceError `http-status` (404 and other 4xx at once, not retryable), `network`,
   *   `timeout`, `http-status` 5xx (`retryable: true`, after the client's last attempt); the
   *   loader's own errors for a file it cannot parse; `signal.reason` once `signal` aborts.
   */
  async load(url: string, signal: AbortSignal = new AbortController().signal): Promise<GLTF> {
    const loader = this.loader;
    const full = loader.path === '' ? url : LoaderUtils.resolveURL(url, loader.path);
    const resourcePath =
      loader.resourcePath !== ''
        ? loader.resourcePath
        : loader.path !== ''
          ? LoaderUtils.resolveURL(LoaderUtils.extractUrlBase(url), loader.path)
          : LoaderUtils.extractUrlBase(url);
    const bytes = await this.streaming.http.getBytes(loader.manager.resolveURL(full), signal);
    if (bytes === null) throw new TileSourceError('http-status', `${full}: not found`, false);
    const buffer =
      bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength
        ? (bytes.buffer as ArrayBuffer)
        : bytes.slice().buffer;
    return loader.parseAsync(buffer, resourcePath);
  }

  /**
   * Stops this registration's own image workers (the runtime's stay). Streamed textures stay the
   * streaming system's (remove them there).
   */
  dispose(): void {
    this.disposed = true;
    if (this.ownsImages) this.images.dispose();
  }

  /** @internal the plugins of one `GLTFLoader.parse` ({@link GLTF_PLUGIN_COUNT} of them). */
  pluginsFor(parser: GLTFParser): GLTFLoaderPlugin[] {
    const parse = new GltfParseStreaming(this, parser, this.tag);
    const loadTexture = (index: number) => parse.loadTexture(index);
    const afterRoot = (gltf: GLTF) => parse.afterRoot(gltf);
    // Named as three's built-in texture extensions, so they replace them (GLTFLoader keys plugins
    // by name): KTX2 through KHR_texture_basisu never needs a KTX2Loader.
    return [
      {
        name: 'KHR_texture_basisu',
        loadTexture: (i) => (parse.hasExtension(i, 'KHR_texture_basisu') ? loadTexture(i) : null),
      },
      {
        name: 'EXT_texture_webp',
        loadTexture: (i) => (parse.hasExtension(i, 'EXT_texture_webp') ? loadTexture(i) : null),
      },
      {
        name: TESSERA_TEXTURE_KTX2,
        loadTexture: (i) => (parse.hasExtension(i, TESSERA_TEXTURE_KTX2) ? loadTexture(i) : null),
      },
      { name: 'TESSERA_texture_streaming', loadTexture, afterRoot },
    ];
  }

  /**
   * @internal Opens the mip source of glTF texture `index` read as colour (`srgb`) or data, or null
   * when it cannot be streamed (reported through `onError`).
   */
  openSource(parser: GLTFParser, index: number, srgb: boolean): Promise<OpenedGltfTexture | null> {
    const image = gltfTextureImage(parser, index);
    if (image === null || this.disposed) return Promise.resolve(null);
    const signal = new AbortController().signal;
    const onPrefixMismatch = (error: TileSourceError) => this.reportPrefixMismatch(error, image.name);
    return openGltfTextureSource(
      parser,
      image,
      srgb,
      this.images,
      this.streaming.http,
      signal,
      onPrefixMismatch,
    )
      .then((source) => {
        if (image.basisu) this.warnIfNotBasis(source, image.name);
        return { image, source };
      })
      .catch((error: unknown) => {
        this.onError(error, image.name);
        return null;
      });
  }

  /**
   * @internal The streamed texture of one use of an opened glTF texture: the glTF sampler's wraps
   * and filters, the use's colour space, uv set and uv transform, as three's GLTFLoader sets them.
   */
  createStreamed(opened: OpenedGltfTexture, use: GltfTextureUse, tag: string): StreamedTexture | null {
    const { image, source } = opened;
    try {
      return this.streaming.add(source, {
        name: image.name,
        tag,
        core: this.isCore(image.name),
        ...(this.anisotropy === undefined ? {} : { anisotropy: this.anisotropy }),
        wrapS: image.wrapS,
        wrapT: image.wrapT,
        magFilter: image.magFilter,
        minFilter: image.minFilter,
        colorSpace: use.srgb ? SRGBColorSpace : NoColorSpace,
        channel: use.channel,
        uvTransform: { offset: use.offset, repeat: use.repeat, rotation: use.rotation },
      });
    } catch (error) {
      this.onError(error, image.name);
      return null;
    }
  }

  /**
   * A texture's `TESSERA_texture_prefix` does not match its `.ktx2` file (re-made without its glTF,
   * a stale copy): the texture streams from the file's own metadata, and the `error` event (a
   * console warning when nobody listens) says so, naming the texture.
   */
  private reportPrefixMismatch(error: TileSourceError, name: string): void {
    const typed = new TileSourceError('prefix-mismatch', `glTF texture '${name}': ${error.message}`, false, {
      cause: error,
    });
    if (this.streaming.events.has('error'))
      this.streaming.events.emit('error', { error: typed, texture: null, textureName: name });
    else console.warn(`tessera: ${typed.message}`);
  }

  /**
   * `KHR_texture_basisu` names Basis Universal payloads; three's KTX2Loader also takes other KTX2
   * files there (rgba8, BC7, ...), and so does Tessera, saying so once. Such files are declared
   * with `TESSERA_texture_ktx2` instead, which warns of nothing.
   */
  private warnIfNotBasis(source: EncodedPyramidSource, name: string): void {
    if (this.warnedNotBasis || isUastcPyramidFormat(source.format) || isEtc1sPyramidFormat(source.format)) {
      return;
    }
    this.warnedNotBasis = true;
    console.warn(
      `tessera: glTF texture '${name}' is a '${source.format}' KTX2 file under KHR_texture_basisu, which names Basis Universal (UASTC or ETC1S) payloads; streamed as it is (declare it with ${TESSERA_TEXTURE_KTX2} instead).`,
    );
  }

  /** @internal */
  remember(root: Object3D, textures: StreamedTexture[]): void {
    this.byRoot.set(root, textures);
  }

  /** @internal */
  attach(mesh: Mesh, texture: StreamedTexture, property: string): void {
    this.streaming.attach(mesh, texture, property);
  }

  /**
   * @internal Resolves once every texture of `textures` whose pinned chain is loading has it bound
   * (or failed). One still queued (no room yet) is not waited for: it loads as updates run.
   */
  pinnedChainsOf(textures: readonly StreamedTexture[]): Promise<unknown> {
    const planner = this.streaming.planner;
    return Promise.all(textures.filter((t) => planner.isLoading(t.id)).map((t) => t.pinnedSettled));
  }

  /** @internal */
  remove(texture: StreamedTexture): void {
    this.streaming.remove(texture);
  }
}

/** A glTF texture's image and its opened mip source. */
interface OpenedGltfTexture {
  readonly image: GltfTextureImage;
  readonly source: EncodedPyramidSource;
}

/**
 * The state of one `GLTFLoader.parse`: each texture's source opened once per colour space, one
 * streamed texture per distinct use (colour space, uv set, uv transform: what three's GLTFLoader
 * gives a texture object of its own), stand-ins swapped for them after.
 */
class GltfParseStreaming {
  /** Opened sources by `${index}|${srgb}`. */
  private readonly sources = new Map<string, Promise<OpenedGltfTexture | null>>();
  /** Streamed textures by `${index}|${gltfUseKey(use)}`. */
  private readonly streamed = new Map<string, Promise<StreamedTexture | null>>();
  private uses: Map<number, GltfTextureUse[]> | null = null;

  constructor(
    private readonly owner: GltfTextureStreaming,
    private readonly parser: GLTFParser,
    private readonly tag: string,
  ) {}

  hasExtension(index: number, name: string): boolean {
    const texture = (this.parser.json as { textures?: { extensions?: Record<string, unknown> }[] })
      .textures?.[index];
    return texture?.extensions?.[name] !== undefined;
  }

  /**
   * GLTFLoader asks for texture `index`: open its source (KTX2 metadata by Range, or the image and
   * its generated mips) and create the streamed texture of each of its uses now, so their pinned
   * mips start loading; GLTFLoader gets a stand-in (it sets flipY, colour space, uv set and
   * transform on what it gets, cloning it per use, which must not touch a shared placeholder),
   * swapped for the streamed texture of its use in {@link afterRoot}.
   */
  loadTexture(index: number): Promise<Texture> {
    this.uses ??= gltfTextureUses(this.parser);
    const uses = this.uses.get(index) ?? [DATA_USE];
    return Promise.all(uses.map((use) => this.streamedFor(index, use))).then((textures) => {
      const standIn = new Texture();
      standIn.userData[STAND_IN] = index;
      // A texture that could not be streamed resolves to a stand-in too; afterRoot removes it.
      standIn.name = textures[0]?.name ?? '';
      return standIn;
    });
  }

  /** The streamed texture of `use` of texture `index`, created on first request. */
  private streamedFor(index: number, use: GltfTextureUse): Promise<StreamedTexture | null> {
    const key = `${index}|${gltfUseKey(use)}`;
    let streamed = this.streamed.get(key);
    if (streamed === undefined) {
      const sourceKey = `${index}|${use.srgb}`;
      let opened = this.sources.get(sourceKey);
      if (opened === undefined) {
        opened = this.owner.openSource(this.parser, index, use.srgb);
        this.sources.set(sourceKey, opened);
      }
      streamed = opened.then((source) =>
        source === null ? null : this.owner.createStreamed(source, use, this.tag),
      );
      this.streamed.set(key, streamed);
    }
    return streamed;
  }

  /** Swap every stand-in in the loaded scenes' materials for its use's streamed texture (attached to the mesh). */
  async afterRoot(gltf: GLTF): Promise<void> {
    const swaps: { mesh: Mesh; material: Material; key: string; texture: Promise<StreamedTexture | null> }[] =
      [];
    const roots = gltf.scenes.length > 0 ? gltf.scenes : [gltf.scene];
    for (const root of roots) {
      root.traverse((object) => {
        const mesh = object as Mesh;
        if (!(mesh as { isMesh?: boolean }).isMesh) return;
        const materials: Material[] = Array.isArray(mesh.material) ? mesh.material : [mesh.material];
        for (const material of materials) {
          const fields = material as unknown as Record<string, unknown>;
          for (const key of Object.keys(fields)) {
            const standIn = fields[key] as Texture | null;
            const index = (standIn as { userData?: Record<string, unknown> } | null)?.userData?.[STAND_IN];
            if (typeof index !== 'number') continue;
            swaps.push({ mesh, material, key, texture: this.streamedFor(index, useOf(standIn as Texture)) });
          }
        }
      });
    }
    const byMesh = new Map<Mesh, StreamedTexture[]>();
    for (const swap of swaps) {
      const texture = await swap.texture;
      const fields = swap.material as unknown as Record<string, unknown>;
      if (texture === null) {
        fields[swap.key] = null;
        swap.material.needsUpdate = true;
        continue;
      }
      this.owner.attach(swap.mesh, texture, swap.key);
      const list = byMesh.get(swap.mesh) ?? [];
      list.push(texture);
      byMesh.set(swap.mesh, list);
    }
    const all: StreamedTexture[] = [];
    for (const root of roots) {
      const used: StreamedTexture[] = [];
      root.traverse((object) => {
        for (const texture of byMesh.get(object as Mesh) ?? []) {
          if (!used.includes(texture)) used.push(texture);
        }
      });
      for (const texture of used) if (!all.includes(texture)) all.push(texture);
      this.owner.remember(root, used);
    }
    if (gltf.scene !== undefined && !roots.includes(gltf.scene)) this.owner.remember(gltf.scene, all);
    // A use of a material no mesh of these scenes draws streamed for nothing: give its room back.
    for (const promise of this.streamed.values()) {
      const texture = await promise;
      if (texture !== null && !all.includes(texture)) this.owner.remove(texture);
    }
    // As three's loader resolves with its textures uploaded, resolve with the pinned chains bound
    // (a few KiB each, loading since each texture was created): the first frame is textured.
    await this.owner.pinnedChainsOf(all);
  }
}

/** A texture no material reads (linear data, first uv set, no transform). */
const DATA_USE: GltfTextureUse = { srgb: false, channel: 0, offset: [0, 0], repeat: [1, 1], rotation: 0 };

/** The use GLTFLoader set up on a stand-in: its colour space, uv set and uv transform. */
function useOf(standIn: Texture): GltfTextureUse {
  return {
    srgb: standIn.colorSpace === SRGBColorSpace,
    channel: standIn.channel,
    offset: [standIn.offset.x, standIn.offset.y],
    repeat: [standIn.repeat.x, standIn.repeat.y],
    rotation: standIn.rotation,
  };
}

/** How many plugins `pluginsFor` makes: KHR_texture_basisu, EXT_texture_webp, TESSERA_texture_ktx2, images. */
const GLTF_PLUGIN_COUNT = 4;

/**
 * Streams every material texture of the glTF scenes `loader` loads through `streaming`: KTX2
 * (`KHR_texture_basisu`: UASTC, ETC1S, zstd; no `KTX2Loader` needed) by HTTP Range, level by
 * level, coarsest first; PNG/JPEG/WebP images decoded once in workers with generated mips. Each
 * becomes a {@link StreamedTexture} under the system's one budget, tagged `options.tag`, attached to
 * the meshes using it (their screen size, instances included, is its mip need).
 *
 * ```ts
 * const loader = new GLTFLoader();
 * const gltfStreaming = registerGltfTextureStreaming(loader, streaming, { tag: 'scene:castle' });
 * const gltf = await gltfStreaming.load('castle.glb'); // or loader.loadAsync, without retries
 * scene.add(gltf.scene); // textures stream in as streaming.update(camera, scene) runs
 * ```
 * KTX2 files and images are read through the system's {@link TextureStreamingSystem.http} client
 * (retries of transient failures, counted in `streaming.stats().retries`); a texture failing for
 * good goes to `onError`. {@link GltfTextureStreaming.load} downloads the glTF file itself through
 * that client too.
 * Each texture is sampled as three's GLTFLoader sets it up: the glTF sampler's wraps and filters,
 * sRGB or linear by the material slot, the textureInfo's uv set (`texCoord`) and
 * `KHR_texture_transform`. A texture read in several ways (another slot's colour space, another
 * uv transform) streams once per way, as GLTFLoader gives each way a texture object of its own.
 */
export function registerGltfTextureStreaming(
  loader: GLTFLoader,
  streaming: TextureStreamingSystem,
  options: GltfTextureStreamingOptions,
): GltfTextureStreaming {
  const registration = new GltfTextureStreaming(loader, streaming, options);
  const plugins = new WeakMap<GLTFParser, GLTFLoaderPlugin[]>();
  const pluginAt = (parser: GLTFParser, i: number) => {
    let list = plugins.get(parser);
    if (list === undefined) {
      list = registration.pluginsFor(parser);
      plugins.set(parser, list);
    }
    return list[i];
  };
  for (let i = 0; i < GLTF_PLUGIN_COUNT; i++) loader.register((parser) => pluginAt(parser, i));
  return registration;
}
