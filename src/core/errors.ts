/**
 * Every error Tessera raises or emits is a {@link TesseraError} with a machine-readable `code`,
 * so callers branch on codes, never on message strings. Each class has its own code union and
 * no code belongs to two classes, so a code alone says what went wrong and where.
 */

/** Codes of a plain {@link TesseraError}: what went wrong while streaming (uploads, budget, lifetime). */
export type RuntimeErrorCode =
  | 'tile-load-failed'
  | 'tile-failed-permanently'
  | 'aborted'
  | 'unknown-texture'
  | 'unknown-handle'
  | 'texture-load-failed'
  | 'released-twice'
  | 'over-budget'
  | 'transition-in-progress'
  | 'disposed'
  /** The baker: encoding one tile failed (the tile, its page and the encoder's message are named). */
  | 'tile-encode-failed'
  /** The baker: an encoding worker thread exited or crashed; the bake stops, nothing is written. */
  | 'worker-failed';

/** Codes of {@link TesseraConfigError}: what was wrong with a configuration, at construction time. */
export type TesseraConfigErrorCode =
  | 'invalid-size'
  | 'not-power-of-two'
  | 'too-large'
  | 'invalid-tile'
  | 'invalid-layers'
  | 'budget-too-small'
  | 'pool-too-small'
  | 'invalid-option'
  /**
   * An optional peer dependency is not installed: `geotiff` (opening a Cloud-Optimized GeoTIFF)
   * or `pmtiles` (opening a PMTiles archive). The message names the `npm install` command.
   */
  | 'missing-dependency';

/**
 * Codes of {@link TesseraConfigError}.
 * @deprecated Use {@link TesseraConfigErrorCode}.
 */
export type ConfigErrorCode = TesseraConfigErrorCode;

/** Codes of {@link TileSourceError}: what went wrong producing one tile's bytes. */
export type TileSourceErrorCode =
  | 'network'
  | 'http-status'
  | 'timeout'
  | 'range-ignored'
  | 'bad-magic'
  | 'bad-version'
  | 'truncated'
  | 'corrupt'
  | 'bad-index'
  | 'decode-failed'
  | 'wrong-size'
  /** Larger than allowed or expected: a tile's payload or image, the tile size, the archive index. */
  | 'oversized'
  /** The source (or the worker pool it decodes on) was disposed while the load was pending. */
  | 'source-disposed'
  /** Well-formed input this build cannot use: a texel format, supercompression or texture type. */
  | 'unsupported'
  /**
   * A file does not match the prefix of it held elsewhere (a glTF's `TESSERA_texture_prefix`: the
   * bytes are not a KTX2 file's start, or the file's length or bytes differ); the file's own
   * metadata is read instead.
   */
  | 'prefix-mismatch'
  /**
   * three's Basis transcoder (`basis_transcoder.js` and `.wasm`) could not be fetched or started
   * from the `transcoderPath` option's folder (or the library's own copy, by default); every
   * UASTC and ETC1S tile and level of that system fails with it.
   */
  | 'transcoder-unavailable';

/** Every code a {@link TesseraError} (of any class) may carry. */
export type TesseraErrorCode = RuntimeErrorCode | TesseraConfigErrorCode | TileSourceErrorCode;

declare const subclassCodeBrand: unique symbol;
/**
 * A subclass's code passed through the base constructor: the brand keeps the public constructor
 * of {@link TesseraError} to {@link RuntimeErrorCode}, so a config or tile-source code given to the
 * wrong class fails to compile, while subclasses still store theirs in the one `code` field.
 */
type SubclassCode = (TesseraConfigErrorCode | TileSourceErrorCode) & { readonly [subclassCodeBrand]: true };

/** Base class of all Tessera errors. */
export class TesseraError extends Error {
  /** Machine-readable reason; stable across versions. */
  readonly code: TesseraErrorCode;

  constructor(code: RuntimeErrorCode, message: string, options?: { cause?: unknown });
  /** @internal a subclass's code (see `SubclassCode`). */
  constructor(code: SubclassCode, message: string, options?: { cause?: unknown });
  constructor(code: RuntimeErrorCode | SubclassCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'TesseraError';
    this.code = code;
  }
}

/** A configuration was rejected at construction; nothing was allocated. */
export class TesseraConfigError extends TesseraError {
  /** Which option or input was rejected; stable across versions. */
  declare readonly code: TesseraConfigErrorCode;

  constructor(code: TesseraConfigErrorCode, message: string, options?: { cause?: unknown }) {
    super(code as SubclassCode, message, options);
    this.name = 'TesseraConfigError';
  }
}

/** A tile source failed to produce a tile; the page keeps its fallback. */
export class TileSourceError extends TesseraError {
  /** Why the tile failed; stable across versions. */
  declare readonly code: TileSourceErrorCode;
  /** Whether trying again may succeed (network errors, 5xx, 408, 429, timeouts). */
  readonly retryable: boolean;

  constructor(code: TileSourceErrorCode, message: string, retryable: boolean, options?: { cause?: unknown }) {
    super(code as SubclassCode, message, options);
    this.name = 'TileSourceError';
    this.retryable = retryable;
  }
}

/**
 * True when `error` is the rejection of an aborted operation: a DOMException `AbortError`, a
 * {@link TesseraError} `aborted`, or a {@link TileSourceError} `source-disposed` (disposing a
 * source aborts its pending loads).
 */
export function isAbortError(error: unknown): boolean {
  if (error instanceof TesseraError) return error.code === 'aborted' || error.code === 'source-disposed';
  return typeof error === 'object' && error !== null && (error as { name?: unknown }).name === 'AbortError';
}
