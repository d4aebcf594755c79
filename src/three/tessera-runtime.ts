import type { Camera, Object3D, Scene } from 'three';
import { TextureBudget } from '../core/budget/texture-budget';
import { warnDeprecated } from '../core/deprecation';
import { TesseraConfigError, TesseraError } from '../core/errors';
import type { HttpClient } from '../sources/io/http/http-client';
import {
  leaseSourceRuntime,
  type SourceRuntime,
  type SourceRuntimeLease,
} from '../sources/io/source-runtime';
import type { ImageDecoder, TileDecoder } from '../sources/io/tile-decoder';
import { ImagePyramidGenerator } from '../sources/mips/image-pyramid-generator';
import { BasisTranscoderPool } from './transcode/basis-transcoder-pool';

/** Options of a {@link TesseraRuntime}. */
export interface TesseraRuntimeOptions {
  /** The one budget: every GPU byte Tessera may hold, in bytes. */
  budgetBytes: number;
  /** Bytes that must always fit (pinned mips, VT structures); a smaller budget is refused. Default 0. */
  pinnedMinimumBytes?: number;
  /**
   * The network client of every system and source given this runtime. Default: the process-wide
   * default client, which sources given no runtime use too (6 requests per host, 3 retries with
   * backoff, a 32 MiB Range cache).
   */
  http?: HttpClient;
  /**
   * Folder (URL) of three's `basis_transcoder.js` / `.wasm` for UASTC and ETC1S textures, as
   * `KTX2Loader.setTranscoderPath` takes it. Default: the copy shipped with the library.
   */
  transcoderPath?: string;
  /** Transcoder workers, 1..16. Default: hardware threads - 1, at most 4. */
  transcodeWorkers?: number;
  /**
   * Workers decoding images without stored mips (glTF PNG, JPEG, WebP) and generating their mips,
   * 1..16. Default: hardware threads - 1, at most 4.
   */
  imageWorkers?: number;
}

/** What a runtime drives: a system attached by its constructor (internal contract). */
export interface RuntimeMember {
  /** Lower runs first in {@link TesseraRuntime.update}. */
  readonly updateOrder: number;
  update(camera: Camera, scene: Scene): void;
  whenSettled(): Promise<number>;
  dispose(): void;
}

/** The options by which a system gets its budget and transcoder: a runtime, or its own. */
export interface SystemRuntimeOptions {
  runtime?: TesseraRuntime;
  budgetBytes?: number;
  /** @deprecated */
  budget?: TextureBudget;
  transcoderPath?: string;
  transcodeWorkers?: number;
}

/**
 * Checks how a system gets its budget and transcoder: a runtime (which owns both), else
 * `budgetBytes` (or the deprecated shared `budget`, warned once) for a runtime of its own.
 * @param system the options type named in the warning, e.g. 'VirtualTextureSystemOptions'.
 * @throws TesseraConfigError('invalid-option') for a runtime with a budget or transcoder option, or neither.
 * @internal
 */
export function checkSystemRuntimeOptions(options: SystemRuntimeOptions, system: string): void {
  if (options.runtime !== undefined) {
    if (options.budget !== undefined || options.budgetBytes !== undefined) {
      throw new TesseraConfigError(
        'invalid-option',
        "with a runtime the budget is the runtime's: give no budget or budgetBytes (a VT system: shareBytes)",
      );
    }
    if (options.transcoderPath !== undefined || options.transcodeWorkers !== undefined) {
      throw new TesseraConfigError(
        'invalid-option',
        "with a runtime the transcoder is the runtime's: give transcoderPath and transcodeWorkers to the runtime",
      );
    }
  } else if (options.budget !== undefined) {
    warnDeprecated(`${system}.budget`, '{ runtime }');
  } else if (options.budgetBytes === undefined) {
    throw new TesseraConfigError('invalid-option', 'give budgetBytes or a runtime');
  }
}

/**
 * Key of the one internal option of {@link TesseraRuntime}'s constructor: a budget to adopt
 * instead of making one. Not part of {@link TesseraRuntimeOptions}: only a system given the
 * deprecated `budget` makes a runtime so ({@link ownSystemRuntime}).
 */
const ADOPTED_BUDGET = Symbol('tessera.adoptedBudget');

/** {@link TesseraRuntimeOptions} with the internal adopted budget. */
interface AdoptingRuntimeOptions extends TesseraRuntimeOptions {
  [ADOPTED_BUDGET]?: TextureBudget;
}

/**
 * The runtime a system given no runtime makes for itself and disposes with itself: of
 * `budgetBytes`, or, given the deprecated shared `budget`, around that budget (the system, its
 * runtime and the budget's other users then reserve from one budget, not from a second, unused one).
 * @param budgetBytes the budget to make, bytes (ignored when `options.budget` is given).
 * @internal
 */
export function ownSystemRuntime(
  budgetBytes: number,
  options: Pick<SystemRuntimeOptions, 'budget' | 'transcoderPath' | 'transcodeWorkers'> & {
    pinnedMinimumBytes?: number;
  },
): TesseraRuntime {
  const runtimeOptions: AdoptingRuntimeOptions = {
    budgetBytes: options.budget?.budgetBytes ?? budgetBytes,
    pinnedMinimumBytes: options.pinnedMinimumBytes,
    transcoderPath: options.transcoderPath,
    transcodeWorkers: options.transcodeWorkers,
  };
  if (options.budget !== undefined) runtimeOptions[ADOPTED_BUDGET] = options.budget;
  return new TesseraRuntime(runtimeOptions);
}

/**
 * The member a system attaches: its own `update`, `whenSettled` and `dispose`, run in `updateOrder`.
 * @internal
 */
export function runtimeMember(
  system: Pick<RuntimeMember, 'update' | 'whenSettled' | 'dispose'>,
  updateOrder: number,
): RuntimeMember {
  return {
    updateOrder,
    update: (camera, scene) => system.update(camera, scene),
    whenSettled: () => system.whenSettled(),
    dispose: () => system.dispose(),
  };
}

/**
 * One per application: the budget, the network client (one per-host cap across every source), the
 * decode workers and the transcoder workers that the virtual-texture system, the streaming system,
 * the glTF plugin and every source share. Give it to each (`{ runtime }`); a system given none
 * makes one of its own from its `budgetBytes`, and a source given none uses the process-wide
 * default client and decode workers (the same ones a runtime uses unless given `http`).
 *
 * ```ts
 * const runtime = new TesseraRuntime({ budgetBytes: 256 * 2 ** 20 });
 * const vts = new VirtualTextureSystem(renderer, { runtime, shareBytes: 128 * 2 ** 20 });
 * const streaming = new TextureStreamingSystem(renderer, { runtime });
 * renderer.setAnimationLoop(() => {
 *   runtime.update(camera, scene); // every system, in order, before render
 *   renderer.render(scene, camera);
 * });
 * ```
 */
export class TesseraRuntime implements SourceRuntime {
  /** The one budget every system of this runtime reserves from. */
  readonly budget: TextureBudget;
  /** The network client every system and source of this runtime reads through. */
  readonly http: HttpClient;
  private readonly lease: SourceRuntimeLease;
  private readonly members: RuntimeMember[] = [];
  private readonly transcoderPath: string | undefined;
  private readonly transcodeWorkers: number | undefined;
  private transcoder: BasisTranscoderPool | null = null;
  private readonly imageWorkers: number | undefined;
  private images: ImagePyramidGenerator | null = null;
  private disposed = false;

  /**
   * @throws TesseraConfigError('invalid-option') for a budget that is not a positive number of
   *   bytes; ('budget-too-small') below `pinnedMinimumBytes`.
   */
  constructor(options: TesseraRuntimeOptions) {
    if (!(options.budgetBytes > 0) || !Number.isFinite(options.budgetBytes)) {
      throw new TesseraConfigError(
        'invalid-option',
        `budgetBytes must be positive, got ${options.budgetBytes}`,
      );
    }
    this.budget =
      (options as AdoptingRuntimeOptions)[ADOPTED_BUDGET] ??
      new TextureBudget({
        budgetBytes: Math.floor(options.budgetBytes),
        pinnedMinimumBytes: options.pinnedMinimumBytes,
      });
    this.lease = leaseSourceRuntime();
    this.http = options.http ?? this.lease.runtime.http;
    this.transcoderPath = options.transcoderPath;
    this.transcodeWorkers = options.transcodeWorkers;
    this.imageWorkers = options.imageWorkers;
  }

  /** Decodes images and archive tiles: the shared pool of decode workers, started at first use. */
  get decoder(): TileDecoder & ImageDecoder {
    return this.lease.runtime.decoder;
  }

  /**
   * The shared transcoder workers, started at first use (internal: the systems' transcoding stages).
   * @internal
   */
  transcoderPool(): BasisTranscoderPool {
    this.assertLive();
    this.transcoder ??= new BasisTranscoderPool({
      transcoderPath: this.transcoderPath,
      size: this.transcodeWorkers,
    });
    return this.transcoder;
  }

  /**
   * The shared image decode-and-mip workers, started at the first image (internal: the glTF plugin).
   * @internal
   */
  imagePyramids(): ImagePyramidGenerator {
    this.assertLive();
    this.images ??= new ImagePyramidGenerator({ size: this.imageWorkers });
    return this.images;
  }

  /** True once the transcoder workers were started (tests count them). */
  get transcoderStarted(): boolean {
    return this.transcoder !== null;
  }

  /**
   * Attaches a system so that {@link update} drives it and {@link dispose} disposes it (called by the
   * systems' constructors).
   * @internal
   */
  attach(member: RuntimeMember): void {
    this.assertLive();
    let at = this.members.length;
    while (at > 0 && this.members[at - 1].updateOrder > member.updateOrder) at--;
    this.members.splice(at, 0, member);
  }

  /**
   * Detaches a system (called by its `dispose`).
   * @internal
   */
  detach(member: RuntimeMember): void {
    const at = this.members.indexOf(member);
    if (at >= 0) this.members.splice(at, 1);
  }

  /**
   * Runs one frame of every system given this runtime, virtual textures first (their feedback
   * and uploads), then streamed textures (their screen need): call once per frame before
   * `renderer.render(scene, camera)`, instead of each system's own `update`.
   * @throws TesseraError('disposed') after {@link dispose}.
   */
  update(camera: Camera, scene: Scene | Object3D): void {
    this.assertLive();
    for (let i = 0; i < this.members.length; i++) this.members[i].update(camera, scene as Scene);
  }

  /**
   * Resolves once every system of this runtime is settled (see each system's `whenSettled`), with
   * the latest of their frames.
   */
  whenSettled(): Promise<number> {
    return Promise.all(this.members.map((member) => member.whenSettled())).then((frames) =>
      frames.reduce((latest, frame) => Math.max(latest, frame), 0),
    );
  }

  /**
   * Disposes every system given this runtime, stops the transcoder and image workers and lets go of the
   * shared client and decode workers (they stop once no source uses them either). Idempotent.
   */
  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    for (const member of [...this.members].reverse()) member.dispose();
    this.members.length = 0;
    this.transcoder?.dispose();
    this.transcoder = null;
    this.images?.dispose();
    this.images = null;
    this.lease.release();
  }

  private assertLive(): void {
    if (this.disposed) throw new TesseraError('disposed', 'the TesseraRuntime was disposed');
  }
}
