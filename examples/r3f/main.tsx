/**
 * Tessera in React Three Fiber (`@tessera-vt/react`): a plane showing the baked photograph as a
 * virtual texture (`useVirtualTexture` + `useVirtualTextureNode`) and the valley glTF, its KTX2
 * textures streamed by Range (`useStreamedGLTF`), under one budget. R3F v9 makes the
 * `WebGPURenderer` through the async `gl` factory; `<TesseraProvider>` updates the runtime every
 * frame before R3F renders. The checkbox mounts and unmounts the glTF; its textures leave the
 * budget with it. `window.example` is for the smoke test.
 */
import { Canvas } from '@react-three/fiber';
import {
  TesseraProvider,
  useStreamedGLTF,
  useTessera,
  useVirtualTexture,
  useVirtualTextureNode,
} from '@tessera-vt/react';
import { ArchiveTileSource, TesseraRuntime, type TextureStreamingSystem } from '@tessera-vt/tessera';
import { StrictMode, Suspense, useEffect, useMemo, useState } from 'react';
import { createRoot } from 'react-dom/client';
import {
  MeshBasicNodeMaterial,
  PCFShadowMap,
  WebGPURenderer,
  type WebGPURendererParameters,
} from 'three/webgpu';

const MIB = 1024 * 1024;
// The examples server serves assets/ at its root; the test server serves the repository.
const assetBase = location.pathname.startsWith('/examples/') ? '/assets/' : '/';
const forceWebGL = new URLSearchParams(location.search).get('backend') === 'webgl';
// The application's runtime, given to the provider: it outlives the canvas, so the smoke test can
// read its budget after everything React made is gone.
const runtime = new TesseraRuntime({ budgetBytes: 96 * MIB });

function Photo() {
  const photo = useVirtualTexture((signal, rt) =>
    ArchiveTileSource.open(`${assetBase}examples/photo-3840x1920.tsva`, { runtime: rt }, signal),
  );
  const color = useVirtualTextureNode(photo);
  useEffect(() => {
    example.photoAdded = photo !== null;
  }, [photo]);
  const material = useMemo(() => new MeshBasicNodeMaterial(), []);
  useEffect(() => () => material.dispose(), [material]);
  if (photo === null || color === null) return null;
  material.colorNode = color;
  material.needsUpdate = true;
  return (
    <mesh material={material} position={[0, 1.5, -4]}>
      <planeGeometry args={[4 * photo.aspect, 4]} />
    </mesh>
  );
}

function Valley() {
  const gltf = useStreamedGLTF(`${assetBase}props/valley.glb`);
  // The valley's props span about 10 x 9 x 13 units.
  return <primitive object={gltf.scene} position={[0, -1, 0.5]} rotation={[0, 0.7, 0]} scale={0.22} />;
}

/** Hands the provider's streaming system to the smoke test. */
let streaming: TextureStreamingSystem | null = null;
function Probe() {
  const systems = useTessera();
  useEffect(() => {
    streaming = systems.streaming();
    return () => {
      streaming = null;
    };
  }, [systems]);
  return null;
}

function App() {
  const [showValley, setShowValley] = useState(true);
  const [mounted, setMounted] = useState(true);
  useEffect(() => {
    example.setValley = setShowValley;
    example.setMounted = setMounted;
  }, []);
  return (
    <>
      <label id="panel">
        <input type="checkbox" checked={showValley} onChange={(e) => setShowValley(e.target.checked)} />{' '}
        valley glTF
      </label>
      {mounted && (
        <Canvas
          camera={{ position: [0, 3, 7], fov: 50 }}
          // R3F's default shadow type is PCFSoftShadowMap, which WebGPURenderer no longer has (it warns).
          shadows={{ enabled: false, type: PCFShadowMap }}
          gl={async (props) => {
            const renderer = new WebGPURenderer({ ...(props as WebGPURendererParameters), forceWebGL });
            await renderer.init();
            return renderer;
          }}
        >
          <ambientLight intensity={1.2} />
          <directionalLight position={[3, 6, 4]} intensity={2} />
          <TesseraProvider runtime={runtime}>
            <Probe />
            <Photo />
            {showValley && (
              <Suspense fallback={null}>
                <Valley />
              </Suspense>
            )}
          </TesseraProvider>
        </Canvas>
      )}
    </>
  );
}

const example = {
  runtime,
  photoAdded: false,
  setValley: (_show: boolean) => {},
  setMounted: (_mounted: boolean) => {},
  stats: () => ({
    liveBytes: runtime.budget.liveBytes,
    budgetBytes: runtime.budget.budgetBytes,
    streamedTextures: streaming?.stats().textures ?? 0,
    photoAdded: example.photoAdded,
  }),
};
(window as unknown as { example: typeof example }).example = example;
// StrictMode mounts, unmounts and mounts every effect once more in development: the provider and
// the hooks give back what the first mount took.
createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <App />
  </StrictMode>,
);
