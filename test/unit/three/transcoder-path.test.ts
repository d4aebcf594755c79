import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { TesseraConfigError } from '../../../src/core/errors';
import { transcoderUrls } from '../../../src/three/transcode/transcoder-path';

describe('transcoderUrls', () => {
  afterEach(() => vi.unstubAllGlobals());

  it('defaults to three transcoder files that exist (the sources point at node_modules/three)', () => {
    const { script, wasm } = transcoderUrls();
    expect(script).toMatch(/\/basis\/basis_transcoder\.js$/);
    expect(wasm).toMatch(/\/basis\/basis_transcoder\.wasm$/);
    expect(existsSync(fileURLToPath(script))).toBe(true);
    expect(existsSync(fileURLToPath(wasm))).toBe(true);
  });

  it('resolves a relative transcoderPath against the page, with or without the final slash', () => {
    vi.stubGlobal('document', { baseURI: 'https://app.example/game/index.html' });
    expect(transcoderUrls('libs/basis/')).toEqual({
      script: 'https://app.example/game/libs/basis/basis_transcoder.js',
      wasm: 'https://app.example/game/libs/basis/basis_transcoder.wasm',
    });
    expect(transcoderUrls('/basis')).toEqual({
      script: 'https://app.example/basis/basis_transcoder.js',
      wasm: 'https://app.example/basis/basis_transcoder.wasm',
    });
  });

  it('rejects a relative transcoderPath where there is no page, naming the option', () => {
    expect(() => transcoderUrls('libs/basis/')).toThrow(TesseraConfigError);
    expect(() => transcoderUrls('libs/basis/')).toThrow(/transcoderPath/);
  });
});
