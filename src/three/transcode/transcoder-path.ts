import { TesseraConfigError } from '../../core/errors';

/** The two files of three's Basis transcoder, as absolute URLs. */
export interface TranscoderUrls {
  /** URL of `basis_transcoder.js`. */
  script: string;
  /** URL of `basis_transcoder.wasm`. */
  wasm: string;
}

/**
 * Where the transcode workers fetch three's Basis transcoder from: `transcoderPath` (a folder
 * holding `basis_transcoder.js` and `basis_transcoder.wasm`, as three's
 * `KTX2Loader.setTranscoderPath` takes it; relative to the page), or by default the copy beside
 * this module. The workers start from Blob URLs, so the URLs are made absolute here.
 *
 * The default is written as `new URL(literal, import.meta.url)`, which Vite and webpack turn
 * into emitted assets and which resolves beside the library's own file when it is served
 * unbundled (node_modules, a CDN). In the sources it names three's copy in `node_modules`; the
 * library build (vite.config.ts) rewrites it to the copy shipped in `dist/basis/`.
 * @throws TesseraConfigError('invalid-option') when `transcoderPath` is relative and there is no
 *   page to resolve it against, or is not a URL.
 */
export function transcoderUrls(transcoderPath?: string): TranscoderUrls {
  if (transcoderPath === undefined) {
    return {
      script: new URL(
        '../../../node_modules/three/examples/jsm/libs/basis/basis_transcoder.js',
        import.meta.url,
      ).href,
      wasm: new URL(
        '../../../node_modules/three/examples/jsm/libs/basis/basis_transcoder.wasm',
        import.meta.url,
      ).href,
    };
  }
  const scope = globalThis as { document?: { baseURI?: string }; location?: { href?: string } };
  const base = scope.document?.baseURI ?? scope.location?.href;
  let folder: URL;
  try {
    folder = new URL(transcoderPath.endsWith('/') ? transcoderPath : `${transcoderPath}/`, base);
  } catch {
    throw new TesseraConfigError(
      'invalid-option',
      `transcoderPath '${transcoderPath}' is not a URL${base === undefined ? ' (and there is no page to resolve it against)' : ''}`,
    );
  }
  return {
    script: new URL('basis_transcoder.js', folder).href,
    wasm: new URL('basis_transcoder.wasm', folder).href,
  };
}
