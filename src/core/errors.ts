/**
 * Every error Tessera raises or emits is a {@link TesseraError} with a machine-readable `code`,
 * so callers branch on codes, never on message strings.
 */

/** Codes of errors found in a configuration, at construction time. */
export type ConfigErrorCode =
  | 'invalid-size'
  | 'not-power-of-two'
  | 'too-large'
  | 'invalid-tile'
  | 'invalid-layers'
  | 'budget-too-small'
  | 'pool-too-small'
  | 'invalid-option';

/** Codes of errors raised while streaming (tile sources, uploads, budget, lifetime). */
export type RuntimeErrorCode =
  | 'tile-load-failed'
  | 'tile-failed-permanently'
  | 'aborted'
  | 'unknown-texture'
  | 'unknown-handle'
  | 'texture-load-failed'
  | 'released-twice'
  | 'over-budget'
  | 'disposed';

export type TesseraErrorCode = ConfigErrorCode | RuntimeErrorCode | TileSourceErrorCode;

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
  | 'too-large'
  | 'aborted';

/** Base class of all Tessera errors. */
export class TesseraError extends Error {
  /** Machine-readable reason; stable across versions. */
  readonly code: TesseraErrorCode;

  constructor(code: TesseraErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'TesseraError';
    this.code = code;
  }
}

/** A configuration was rejected at construction; nothing was allocated. */
export class TesseraConfigError extends TesseraError {
  declare readonly code: ConfigErrorCode;

  constructor(code: ConfigErrorCode, message: string) {
    super(code, message);
    this.name = 'TesseraConfigError';
  }
}

/** A tile source failed to produce a tile; the page keeps its fallback. */
export class TileSourceError extends TesseraError {
  declare readonly code: TileSourceErrorCode;
  /** Whether trying again may succeed (network errors, 5xx, 408, 429, timeouts). */
  readonly retryable: boolean;

  constructor(code: TileSourceErrorCode, message: string, retryable: boolean, options?: { cause?: unknown }) {
    super(code, message, options);
    this.name = 'TileSourceError';
    this.retryable = retryable;
  }
}

/** True when `error` is the rejection of an aborted operation (DOMException or Tessera's own). */
export function isAbortError(error: unknown): boolean {
  if (error instanceof TesseraError) return error.code === 'aborted';
  return typeof error === 'object' && error !== null && (error as { name?: unknown }).name === 'AbortError';
}
