import { describe, expect, expectTypeOf, it } from 'vitest';
import {
  isAbortError,
  type RuntimeErrorCode,
  TesseraConfigError,
  type TesseraConfigErrorCode,
  TesseraError,
  TileSourceError,
  type TileSourceErrorCode,
} from '../../../src/core/errors';

describe('error codes', () => {
  it('belong to one class each', () => {
    expectTypeOf<RuntimeErrorCode & TesseraConfigErrorCode>().toBeNever();
    expectTypeOf<RuntimeErrorCode & TileSourceErrorCode>().toBeNever();
    expectTypeOf<TesseraConfigErrorCode & TileSourceErrorCode>().toBeNever();
  });

  it('are checked by each constructor', () => {
    // @ts-expect-error a config code is not a runtime code
    new TesseraError('invalid-option', 'x');
    // @ts-expect-error a typo
    new TesseraConfigError('invalid-opton', 'x');
    // @ts-expect-error a runtime code is not a tile-source code
    new TileSourceError('aborted', 'x', false);
    const error = new TileSourceError('oversized', 'x', false);
    expect(error).toBeInstanceOf(TesseraError);
    expect(error.code).toBe('oversized');
    expect(new TesseraConfigError('too-large', 'x').code).toBe('too-large');
  });

  it('tell aborts, including disposed sources, from failures', () => {
    expect(isAbortError(new TesseraError('aborted', 'x'))).toBe(true);
    expect(isAbortError(new TileSourceError('source-disposed', 'x', false))).toBe(true);
    expect(isAbortError(new DOMException('x', 'AbortError'))).toBe(true);
    expect(isAbortError(new TileSourceError('network', 'x', true))).toBe(false);
    expect(isAbortError(new TesseraError('over-budget', 'x'))).toBe(false);
  });
});
