import {
  ClampToEdgeWrapping,
  type Material,
  type Mesh,
  MirroredRepeatWrapping,
  type Object3D,
  RepeatWrapping,
  Texture,
  type Wrapping,
} from 'three';
import type {
  GLTF,
  GLTFLoader,
  GLTFLoaderPlugin,
  GLTFParser,
} from 'three/examples/jsm/loaders/GLTFLoader.js';
import { ImagePyramidGenerator } from '../../sources/mips/image-pyramid-generator';
import type { StreamedTexture } from '../streamed/streamed-texture';
import type { TextureStreamingSystem } from '../streamed/texture-streaming-system';
import { gltfTextureImage, openGltfTextureSource, srgbTextureIndices } from './gltf-texture-sources';

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
  /** Image decode-and-downsample workers (PNG/JPEG/WebP), 1..16. Default: threads - 1, at most 4. */
  imageWorkers?: number;
  /**
   * Told about a texture that could not be streamed (a bad or unsupported KTX2 file, an image that
   * does not decode, a budget too small for its pinned mips): the material loads without that map
   * (as three's GLTFLoader does with a failing image) and everything else streams. Default: a
   * console warning.
   */
  onError?: (error: unknown, textureName: string) => void;
}

/** userData key marking GLTFLoader's stand-in for a streamed texture (survives `texture.clone()`). */
const STAND_IN = 'tesseraGltfTexture';

/** GLTFLoader's WebGL wrap enums to three's. */
function wrappingOf(gl: number): Wrapping {
  return gl === 33071 ? ClampToEdgeWrapping : gl === 33648 ? MirroredRepeatWrapping : RepeatWrapping;
}

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
  private readonly onError: (error: unknown, textureName: string) => void;
  private readonly byRoot = new WeakMap<Object3D, StreamedTexture[]>();
  private disposed = false;

  /** @internal use {@link registerGltfTextureStreaming}. */
  constructor(
    private readonly streaming: TextureStreamingSystem,
    options: GltfTextureStreamingOptions,
  ) {
    this.tag = options.tag;
    const core = options.core ?? true;
    this.isCore = options.isCore ?? (() => core);
    this.anisotropy = options.anisotropy;
    this.images = new ImagePyramidGenerator({ size: options.imageWorkers });
    this.onError =
      options.onError ??
      ((error, name) => console.warn(`tessera: glTF texture '${name}' is not streamed: ${String(error)}`));
  }

  /**
   * The streamed textures of a loaded glTF (its `gltf.scene`, or any of `gltf.scenes`): one side of
   * `TextureStreamingSystem.transition`. Empty for roots this registration did not load.
   */
  texturesOf(root: Object3D): readonly StreamedTexture[] {
    return this.byRoot.get(root) ?? [];
  }

  /** Stops the image workers. Streamed textures stay the streaming system's (release them there). */
  dispose(): void {
    this.disposed = true;
    this.images.dispose();
  }

  /** @internal the plugins of one `GLTFLoader.parse`. */
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
      { name: 'TESSERA_texture_streaming', loadTexture, afterRoot },
    ];
  }

  /** @internal */
  createStreamed(
    parser: GLTFParser,
    index: number,
    srgb: boolean,
    tag: string,
  ): Promise<StreamedTexture | null> {
    const image = gltfTextureImage(parser, index);
    if (image === null || this.disposed) return Promise.resolve(null);
    return openGltfTextureSource(parser, image, srgb, this.images, new AbortController().signal)
      .then((source) =>
        this.streaming.createTexture(source, {
          name: image.name,
          tag,
          core: this.isCore(image.name),
          ...(this.anisotropy === undefined ? {} : { anisotropy: this.anisotropy }),
          wrapS: wrappingOf(image.wrapS),
          wrapT: wrappingOf(image.wrapT),
        }),
      )
      .catch((error: unknown) => {
        this.onError(error, image.name);
        return null;
      });
  }

  /** @internal */
  remember(root: Object3D, textures: StreamedTexture[]): void {
    this.byRoot.set(root, textures);
  }

  /** @internal */
  attach(mesh: Mesh, texture: StreamedTexture, property: string): void {
    this.streaming.attach(mesh, texture, property);
  }
}

/** The state of one `GLTFLoader.parse`: each texture index streamed once, stand-ins swapped after. */
class GltfParseStreaming {
  private readonly streamed = new Map<number, Promise<StreamedTexture | null>>();
  private srgb: Set<number> | null = null;

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
   * its generated mips) and create the streamed texture now, so its pinned mips start loading;
   * GLTFLoader gets a stand-in (it sets flipY, colour space and wraps on what it gets, which must
   * not touch the shared placeholder), swapped for the streamed texture in {@link afterRoot}.
   */
  loadTexture(index: number): Promise<Texture> {
    this.srgb ??= srgbTextureIndices(this.parser);
    let streamed = this.streamed.get(index);
    if (streamed === undefined) {
      streamed = this.owner.createStreamed(this.parser, index, this.srgb.has(index), this.tag);
      this.streamed.set(index, streamed);
    }
    return streamed.then((texture) => {
      const standIn = new Texture();
      standIn.userData[STAND_IN] = index;
      // A texture that could not be streamed resolves to a stand-in too; afterRoot removes it.
      standIn.name = texture?.name ?? '';
      return standIn;
    });
  }

  /** Swap every stand-in in the loaded scenes' materials for its streamed texture (attached to the mesh). */
  async afterRoot(gltf: GLTF): Promise<void> {
    const all: StreamedTexture[] = [];
    const done = new Map<number, StreamedTexture | null>();
    for (const [index, promise] of this.streamed) {
      const texture = await promise;
      done.set(index, texture);
      if (texture !== null) all.push(texture);
    }
    const roots = gltf.scenes.length > 0 ? gltf.scenes : [gltf.scene];
    for (const root of roots) {
      const used: StreamedTexture[] = [];
      root.traverse((object) => {
        const mesh = object as Mesh;
        if (!(mesh as { isMesh?: boolean }).isMesh) return;
        const materials: Material[] = Array.isArray(mesh.material) ? mesh.material : [mesh.material];
        for (const material of materials) {
          const fields = material as unknown as Record<string, unknown>;
          for (const key of Object.keys(fields)) {
            const value = fields[key] as Texture | null;
            const index = (value as { userData?: Record<string, unknown> } | null)?.userData?.[STAND_IN];
            if (typeof index !== 'number') continue;
            const texture = done.get(index) ?? null;
            if (texture === null) {
              fields[key] = null;
              material.needsUpdate = true;
              continue;
            }
            this.owner.attach(mesh, texture, key);
            if (!used.includes(texture)) used.push(texture);
          }
        }
      });
      this.owner.remember(root, used);
    }
    if (gltf.scene !== undefined && !roots.includes(gltf.scene)) this.owner.remember(gltf.scene, all);
  }
}

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
 * const gltf = await loader.loadAsync('castle.gltf');
 * scene.add(gltf.scene); // textures stream in as streaming.update(camera, scene) runs
 * ```
 * Limits: `KHR_texture_transform` and `texCoord` > 0 are not carried over to the streamed texture.
 */
export function registerGltfTextureStreaming(
  loader: GLTFLoader,
  streaming: TextureStreamingSystem,
  options: GltfTextureStreamingOptions,
): GltfTextureStreaming {
  const registration = new GltfTextureStreaming(streaming, options);
  const plugins = new WeakMap<GLTFParser, GLTFLoaderPlugin[]>();
  const pluginAt = (parser: GLTFParser, i: number) => {
    let list = plugins.get(parser);
    if (list === undefined) {
      list = registration.pluginsFor(parser);
      plugins.set(parser, list);
    }
    return list[i];
  };
  for (let i = 0; i < 3; i++) loader.register((parser) => pluginAt(parser, i));
  return registration;
}
