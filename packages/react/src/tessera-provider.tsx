import { useFrame, useThree } from '@react-three/fiber';
import { TesseraRuntime } from '@tessera-vt/tessera';
import { createContext, type ReactNode, useContext, useEffect, useRef, useState } from 'react';
import type { WebGPURenderer } from 'three/webgpu';
import {
  type ProviderStreamingOptions,
  type ProviderVirtualTextureOptions,
  TesseraSystems,
} from './tessera-systems.js';

/** Props of {@link TesseraProvider}. */
export interface TesseraProviderProps {
  /**
   * The one budget of the runtime the provider makes, in bytes: every GPU byte Tessera may hold.
   * Changing it resizes that runtime's budget live (`runtime.budget.setBudget`). Ignored when
   * {@link runtime} is given (that runtime's budget holds).
   */
  budgetBytes?: number;
  /**
   * A runtime of the application's own (shared with code outside React, or outliving the
   * canvas): the provider makes its systems on it and disposes only them at unmount, so every
   * byte they held is back in `runtime.budget` and the runtime stays usable. Without one the
   * provider makes a runtime from {@link budgetBytes} and disposes it at unmount.
   */
  runtime?: TesseraRuntime;
  /**
   * The virtual-texture system's share of the budget, in bytes (its pool, page tables and
   * feedback); the streaming system uses what is left. Default: half the budget. Read when the
   * system is made (at the first virtual texture).
   */
  virtualTextureShareBytes?: number;
  /** Further options of the virtual-texture system (filtering, page size, ...), read when it is made. */
  virtualTextureOptions?: ProviderVirtualTextureOptions;
  /** Further options of the streaming system (anisotropy, ...), read when it is made. */
  streamingOptions?: ProviderStreamingOptions;
  /**
   * The `useFrame` priority of `runtime.update(camera, scene)`. Default 0. R3F calls the frame
   * callbacks in ascending priority (equal priorities in the order they subscribed) and then, unless
   * some callback has a positive priority, renders: at 0 the update runs after camera controls
   * (drei's run at -1) and before R3F's `gl.render`, as the runtime requires. A positive priority
   * takes rendering over from R3F: give one only when a callback of yours renders at a higher one
   * (post-processing), so that the update still comes before that render.
   */
  updatePriority?: number;
  /** The scene content; rendered once the runtime and renderer are ready. */
  children?: ReactNode;
}

const TesseraContext = createContext<TesseraSystems | null>(null);

/**
 * Gives the scene inside it a Tessera runtime and its systems, and runs `runtime.update(camera,
 * scene)` every frame before React Three Fiber renders (see
 * {@link TesseraProviderProps.updatePriority}). Must be inside a `<Canvas>` whose renderer is a
 * three.js `WebGPURenderer` (WebGPU, or WebGL2 with `forceWebGL`), which R3F v9 makes through an
 * async `gl` factory:
 *
 * ```tsx
 * <Canvas gl={async (props) => { const renderer = new WebGPURenderer(props as WebGPURendererParameters); await renderer.init(); return renderer; }}>
 *   <TesseraProvider budgetBytes={256 * 2 ** 20}>
 *     <Photo />
 *   </TesseraProvider>
 * </Canvas>
 * ```
 * Any `frameloop` works: under `"demand"` the provider asks R3F for frames until streaming has
 * settled (new textures, a moved camera: whatever invalidates the canvas starts it again); wait
 * for that with `useTessera().whenSettled()`, which asks for frames itself.
 * The virtual-texture system and the streaming system are made at their first use (by
 * {@link useVirtualTexture}, {@link useStreamedGLTF}, or {@link TesseraSystems}). At unmount the
 * provider disposes what it made: the systems (their GPU memory goes back to the budget) and the
 * runtime unless it was given one. The children mount once the systems exist (the frame after the
 * provider), so hooks inside always find them.
 * @throws TesseraConfigError (to the nearest error boundary) when the canvas renderer is not a
 *   `WebGPURenderer`, or when neither `budgetBytes` nor `runtime` is given.
 */
export function TesseraProvider(props: TesseraProviderProps): ReactNode {
  const renderer = useThree((state) => state.gl) as unknown as WebGPURenderer;
  const invalidate = useThree((state) => state.invalidate);
  const [systems, setSystems] = useState<TesseraSystems | null>(null);
  const [failure, setFailure] = useState<unknown>(null);
  // Read when the systems are made, so that a re-render with new option objects does not remake them.
  const latest = useRef(props);
  latest.current = props;
  const givenRuntime = props.runtime;

  // Made in an effect and disposed in its cleanup, so React's StrictMode (mount, unmount, mount)
  // and a renderer or runtime swap each leave exactly one live set.
  useEffect(() => {
    const { budgetBytes, virtualTextureShareBytes, virtualTextureOptions, streamingOptions } = latest.current;
    let made: TesseraSystems;
    let runtime: TesseraRuntime | undefined = givenRuntime;
    try {
      runtime ??= new TesseraRuntime({ budgetBytes: budgetBytes ?? Number.NaN });
      made = new TesseraSystems(renderer, {
        runtime,
        ownsRuntime: givenRuntime === undefined,
        virtualTextureShareBytes: virtualTextureShareBytes ?? Math.floor(runtime.budget.budgetBytes / 2),
        virtualTextures: virtualTextureOptions,
        streaming: streamingOptions,
        requestFrame: () => invalidate(),
      });
    } catch (error) {
      // A runtime made here for systems that could not be made is let go at once.
      if (givenRuntime === undefined) runtime?.dispose();
      setFailure(error);
      return;
    }
    setSystems(made);
    return () => {
      setSystems(null);
      made.dispose();
    };
  }, [renderer, givenRuntime, invalidate]);

  // A new budget for a runtime the provider made is applied live; a given runtime's is its owner's.
  useEffect(() => {
    if (systems === null || givenRuntime !== undefined || props.budgetBytes === undefined) return;
    if (systems.runtime.budget.budgetBytes !== props.budgetBytes) {
      systems.runtime.budget.setBudget(props.budgetBytes);
    }
  }, [systems, givenRuntime, props.budgetBytes]);

  useFrame((state) => {
    if (systems === null || systems.disposed) return;
    systems.runtime.update(state.camera, state.scene);
    // Under frameloop="demand" R3F draws only when asked, and streaming (feedback, uploads, mip
    // need) advances only in frames: ask for the next one until both systems are settled and no
    // whenSettled() waits.
    if (state.frameloop === 'demand' && systems.wantsFrames) state.invalidate();
  }, props.updatePriority ?? 0);

  if (failure !== null) throw failure;
  if (systems === null) return null;
  return <TesseraContext.Provider value={systems}>{props.children}</TesseraContext.Provider>;
}

/**
 * The {@link TesseraSystems} of the nearest {@link TesseraProvider}: its runtime (`.runtime`, e.g.
 * `runtime.budget` for a budget display), `.whenSettled()` and its systems
 * (`.virtualTextures()`, `.streaming()`, made at first call).
 * @throws Error when called outside a `<TesseraProvider>`.
 */
export function useTessera(): TesseraSystems {
  const systems = useContext(TesseraContext);
  if (systems === null) throw new Error('useTessera() must be called inside a <TesseraProvider>');
  return systems;
}
