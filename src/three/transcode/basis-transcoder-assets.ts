// The Basis transcoder three ships, bundled with the library: the script as text (evaluated in
// the worker, which as a module worker cannot importScripts it) and the wasm as an asset URL.
import scriptText from 'three/examples/jsm/libs/basis/basis_transcoder.js?raw';
import wasmUrl from 'three/examples/jsm/libs/basis/basis_transcoder.wasm?url';

/** Where the default transcoder comes from (see `VirtualTextureSystemOptions.transcoder`). */
export interface BasisTranscoderAssets {
  /** basis_transcoder.js source text. */
  scriptText: string;
  /** URL of basis_transcoder.wasm, absolute or relative to the page. */
  wasmUrl: string;
}

/** The transcoder bundled from the `three` package this library was built against. */
export function defaultBasisTranscoderAssets(): BasisTranscoderAssets {
  return { scriptText, wasmUrl: new URL(wasmUrl, globalThis.location?.href).href };
}
