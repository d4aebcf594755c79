/**
 * The page of hooks.spec.ts: `<TesseraProvider budgetBytes>` making its own runtime in a canvas
 * drawing on demand (`frameloop="demand"`), `useImagery`
 * over the examples' COG (the Earth, 8192 x 4096), `useVirtualTexture` over an archive the page
 * opened itself (so the page, not the hook, owns it), and a canvas left with R3F's default
 * `WebGLRenderer`, which the provider refuses. `window.hooksPage` drives it.
 */
import { Canvas } from '@react-three/fiber';
import {
  TesseraProvider,
  type TesseraSystems,
  useImagery,
  useTessera,
  useVirtualTexture,
  useVirtualTextureNode,
} from '@tessera-vt/react';
import { ArchiveTileSource, type VirtualTexture } from '@tessera-vt/tessera';
import { openCogPyramid } from '@tessera-vt/tessera/imagery';
import { Component, type ReactNode, StrictMode, useEffect, useMemo, useState } from 'react';
import { createRoot } from 'react-dom/client';
import {
  MeshBasicNodeMaterial,
  PCFShadowMap,
  PerspectiveCamera,
  Scene,
  WebGPURenderer,
  type WebGPURendererParameters,
} from 'three/webgpu';

const forceWebGL = new URLSearchParams(location.search).get('backend') === 'webgl';
// The page's own source: the hook adds and removes its texture, and never disposes it.
const ownedArchive = await ArchiveTileSource.open('/assets/examples/photo-3840x1920.tsva');

const state = {
  systems: null as TesseraSystems | null,
  earth: null as VirtualTexture | null,
  photo: null as VirtualTexture | null,
  refused: null as string | null,
};

function TexturedPlane(props: { texture: VirtualTexture | null; x: number }) {
  const color = useVirtualTextureNode(props.texture);
  const material = useMemo(() => new MeshBasicNodeMaterial(), []);
  useEffect(() => () => material.dispose(), [material]);
  if (props.texture === null || color === null) return null;
  material.colorNode = color;
  material.needsUpdate = true;
  return (
    <mesh material={material} position={[props.x, 0, 0]}>
      <planeGeometry args={[1.9, 1.9 / props.texture.aspect]} />
    </mesh>
  );
}

function Earth() {
  const earth = useImagery((_signal, runtime) =>
    openCogPyramid('/assets/examples/earth-8192x4096.tif', { runtime }),
  );
  useEffect(() => {
    state.earth = earth;
  }, [earth]);
  return <TexturedPlane texture={earth} x={-1} />;
}

function Photo() {
  const photo = useVirtualTexture(ownedArchive);
  useEffect(() => {
    state.photo = photo;
  }, [photo]);
  return <TexturedPlane texture={photo} x={1} />;
}

function Probe() {
  const systems = useTessera();
  useEffect(() => {
    state.systems = systems;
  }, [systems]);
  return null;
}

/** Catches what the provider throws for a canvas whose renderer is not a WebGPURenderer. */
class Refusal extends Component<{ children: ReactNode }, { message: string | null }> {
  override state = { message: null as string | null };
  static getDerivedStateFromError(error: unknown) {
    return { message: String(error) };
  }
  override componentDidCatch(error: unknown) {
    state.refused = String(error);
  }
  override render() {
    return this.state.message === null ? this.props.children : null;
  }
}

type PageScene = 'textures' | 'none' | 'webgl-renderer';

function App() {
  const [scene, setScene] = useState<PageScene>(
    (new URLSearchParams(location.search).get('scene') as PageScene | null) ?? 'textures',
  );
  useEffect(() => {
    hooksPage.setScene = setScene;
  }, []);
  if (scene === 'none') return null;
  if (scene === 'webgl-renderer') {
    return (
      <Refusal>
        <Canvas shadows={{ enabled: false, type: PCFShadowMap }}>
          <TesseraProvider budgetBytes={32 * 2 ** 20} />
        </Canvas>
      </Refusal>
    );
  }
  return (
    <Canvas
      // On demand: frames only while something asks, which the provider does until streaming settles.
      frameloop="demand"
      camera={{ position: [0, 0, 2.2], fov: 50 }}
      shadows={{ enabled: false, type: PCFShadowMap }}
      gl={async (props) => {
        const renderer = new WebGPURenderer({ ...(props as WebGPURendererParameters), forceWebGL });
        await renderer.init();
        return renderer;
      }}
    >
      <TesseraProvider budgetBytes={48 * 2 ** 20}>
        <Probe />
        <Earth />
        <Photo />
      </TesseraProvider>
    </Canvas>
  );
}

const hooksPage = {
  setScene: (_scene: PageScene) => {},
  /** Both textures added, and whether each is still in its system. */
  textures: () => ({
    earth: state.earth !== null && !state.earth.removed,
    photo: state.photo !== null && !state.photo.removed,
  }),
  liveBytes: () => state.systems?.runtime.budget.liveBytes ?? -1,
  /** Render calls of the canvas's renderer since it started (a frame makes at least one). */
  framesDrawn: () => state.systems?.renderer.info.render.calls ?? -1,
  settled: () => state.systems?.whenSettled(),
  /** Whether the provider's runtime was disposed (its `update` then throws TesseraError 'disposed'). */
  runtimeDisposed(): boolean {
    try {
      state.systems?.runtime.update(new PerspectiveCamera(), new Scene());
      return false;
    } catch (error) {
      return (error as { code?: string }).code === 'disposed';
    }
  },
  /** Whether the page's own archive still loads (the hook must not have disposed it). */
  async ownedSourceLoads(): Promise<boolean> {
    const tile = await ownedArchive.load(0, 0, 0, new AbortController().signal);
    return tile.layers.length > 0;
  },
  refused: () => state.refused,
};
(window as unknown as { hooksPage: typeof hooksPage }).hooksPage = hooksPage;
createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <App />
  </StrictMode>,
);
