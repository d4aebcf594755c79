import {
  TesseraConfigError,
  TesseraError,
  type TesseraRuntime,
  TextureStreamingSystem,
  type TextureStreamingSystemOptions,
  VirtualTextureSystem,
  type VirtualTextureSystemOptions,
} from '@tessera-vt/tessera';
import type { WebGPURenderer } from 'three/webgpu';

/** Options of the virtual-texture system a {@link TesseraSystems} makes (its runtime and share are set by it). */
export type ProviderVirtualTextureOptions = Omit<
  VirtualTextureSystemOptions,
  'runtime' | 'budgetBytes' | 'shareBytes' | 'budget'
>;

/** Options of the streaming system a {@link TesseraSystems} makes (its runtime is set by it). */
export type ProviderStreamingOptions = Omit<
  TextureStreamingSystemOptions,
  'runtime' | 'budgetBytes' | 'budget'
>;

/** What {@link TesseraSystems} is made from: the renderer, the runtime and how to make the systems. */
export interface TesseraSystemsOptions {
  /** The runtime; disposed with the systems only when {@link ownsRuntime}. */
  runtime: TesseraRuntime;
  /** Whether {@link TesseraSystems.dispose} disposes the runtime too (it was made for these systems). */
  ownsRuntime: boolean;
  /** The virtual-texture system's share of the runtime's budget, in bytes. */
  virtualTextureShareBytes: number;
  /** Further options of the virtual-texture system. */
  virtualTextures?: ProviderVirtualTextureOptions;
  /** Further options of the streaming system. */
  streaming?: ProviderStreamingOptions;
  /** Asks the canvas for a frame (R3F's `invalidate`), for {@link TesseraSystems.whenSettled} under `frameloop="demand"`. */
  requestFrame?: () => void;
}

/**
 * The runtime of a `<TesseraProvider>` and the two systems made on it at first use (a scene with no
 * virtual texture pays for no pool). What `useTessera()` returns.
 */
export class TesseraSystems {
  /** The runtime: budget, network client and workers shared by both systems and every source. */
  readonly runtime: TesseraRuntime;
  private readonly ownsRuntime: boolean;
  private vts: VirtualTextureSystem | null = null;
  private streamingSystem: TextureStreamingSystem | null = null;
  private disposedFlag = false;
  /** Calls of {@link whenSettled} not yet resolved: frames are wanted until they are. */
  private settleWaiters = 0;

  /**
   * @throws TesseraConfigError('invalid-option') when `renderer` is not a three.js
   *   `WebGPURenderer` (R3F's default is a `WebGLRenderer`: give `<Canvas>` an async `gl` factory).
   */
  constructor(
    /** The canvas's renderer, which both systems draw with. */
    readonly renderer: WebGPURenderer,
    private readonly options: TesseraSystemsOptions,
  ) {
    if ((renderer as { isWebGPURenderer?: boolean }).isWebGPURenderer !== true) {
      throw new TesseraConfigError(
        'invalid-option',
        'Tessera needs a three.js WebGPURenderer: <Canvas gl={async (props) => { const renderer = new WebGPURenderer(props); await renderer.init(); return renderer; }}>',
      );
    }
    this.runtime = options.runtime;
    this.ownsRuntime = options.ownsRuntime;
  }

  /** True after {@link dispose}: the systems are gone and hooks must not remove from them. */
  get disposed(): boolean {
    return this.disposedFlag;
  }

  /**
   * True when both systems made here are settled (each one's `isSettled`; one not made yet counts
   * as settled).
   */
  get settled(): boolean {
    return (this.vts?.isSettled ?? true) && (this.streamingSystem?.isSettled ?? true);
  }

  /**
   * Whether the canvas should draw another frame for Tessera's sake: a system made here is not
   * settled, or a {@link whenSettled} is waiting. The provider asks R3F for frames while it is true
   * under `frameloop="demand"`.
   */
  get wantsFrames(): boolean {
    return this.settleWaiters > 0 || !this.settled;
  }

  /**
   * Resolves with a frame number once every system of the runtime has settled on a view measured
   * after this call (`runtime.whenSettled()`), asking the canvas for the frames that takes even
   * under `frameloop="demand"`.
   * @throws TesseraError('disposed') (a rejection) when the systems are disposed first.
   */
  whenSettled(): Promise<number> {
    this.assertLive();
    this.settleWaiters++;
    const settled = this.runtime.whenSettled();
    this.options.requestFrame?.();
    const done = (): void => {
      this.settleWaiters--;
    };
    settled.then(done, done);
    return settled;
  }

  /**
   * The virtual-texture system, made at the first call with the provider's share of the budget.
   * @throws TesseraError('disposed') after {@link dispose}; the system's own construction errors
   *   (a share too small for its pool: TesseraConfigError 'budget-too-small').
   */
  virtualTextures(): VirtualTextureSystem {
    this.assertLive();
    this.vts ??= new VirtualTextureSystem(this.renderer, {
      ...this.options.virtualTextures,
      runtime: this.runtime,
      shareBytes: this.options.virtualTextureShareBytes,
    });
    return this.vts;
  }

  /**
   * The streaming system of ordinary textures and glTF scenes, made at the first call.
   * @throws TesseraError('disposed') after {@link dispose}.
   */
  streaming(): TextureStreamingSystem {
    this.assertLive();
    this.streamingSystem ??= new TextureStreamingSystem(this.renderer, {
      ...this.options.streaming,
      runtime: this.runtime,
    });
    return this.streamingSystem;
  }

  /**
   * Disposes the systems made here (their GPU memory returns to the runtime's budget) and the
   * runtime when it was made for them; a runtime that was given stays usable. Idempotent.
   */
  dispose(): void {
    if (this.disposedFlag) return;
    this.disposedFlag = true;
    this.streamingSystem?.dispose();
    this.vts?.dispose();
    this.streamingSystem = null;
    this.vts = null;
    if (this.ownsRuntime) this.runtime.dispose();
  }

  private assertLive(): void {
    if (this.disposedFlag) {
      throw new TesseraError('disposed', 'the <TesseraProvider> of these systems was unmounted');
    }
  }
}
