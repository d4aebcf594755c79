/**
 * `@tessera-vt/react`: React Three Fiber bindings for Tessera. A {@link TesseraProvider} inside
 * `<Canvas>` (whose renderer must be a three.js `WebGPURenderer`, made by R3F v9's async `gl`
 * factory) makes or receives the `TesseraRuntime`, runs `runtime.update(camera, scene)` every
 * frame before R3F renders and disposes what it made at unmount; hooks add virtual textures
 * ({@link useVirtualTexture}, {@link useVirtualTextureNode}, {@link useImagery}) and streamed glTF
 * scenes ({@link useStreamedGLTF}) for as long as their component is mounted.
 */
export { TesseraProvider, type TesseraProviderProps, useTessera } from './tessera-provider.js';
export {
  type ProviderStreamingOptions,
  type ProviderVirtualTextureOptions,
  TesseraSystems,
  type TesseraSystemsOptions,
} from './tessera-systems.js';
export { type StreamedGLTFOptions, useStreamedGLTF } from './use-streamed-gltf.js';
export {
  type ImageryPyramidOpener,
  type TileSourceOpener,
  useImagery,
  useVirtualTexture,
  useVirtualTextureNode,
} from './use-virtual-texture.js';
