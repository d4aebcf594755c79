import { describe, expect, it } from 'vitest';
import { TesseraConfigError } from '../../../src/core/errors';
import type { TileLayerInfo } from '../../../src/core/vt/tile-source';
import { mapSourceLayers, type VirtualTexturePoolLayer } from '../../../src/three/virtual-texture';

const pool: VirtualTexturePoolLayer[] = [
  { name: 'albedo', format: 'rgba8unorm-srgb' },
  { name: 'normal', format: 'rgba8unorm' },
];
const source: TileLayerInfo[] = [
  { name: 'normal', format: 'rgba8unorm' },
  { name: 'albedo', format: 'rgba8unorm-srgb' },
];

function code(fn: () => unknown): string | undefined {
  try {
    fn();
  } catch (error) {
    expect(error).toBeInstanceOf(TesseraConfigError);
    return (error as TesseraConfigError).code;
  }
  return undefined;
}

describe('mapSourceLayers', () => {
  it('maps by pool-layer name by default, by object and by array', () => {
    expect([...mapSourceLayers('t', source, pool)]).toEqual([1, 0]);
    expect([...mapSourceLayers('t', source, pool, { albedo: 0, normal: 'normal' })]).toEqual([1, 0]);
    expect([...mapSourceLayers('t', source, pool, ['albedo', null])]).toEqual([1, -1]);
  });

  it('falls back to positions when pool layers are unnamed in the source', () => {
    const unnamed: VirtualTexturePoolLayer[] = [{ name: 'layer0', format: 'rgba8unorm' }];
    expect([...mapSourceLayers('t', [{ name: 'x', format: 'rgba8unorm' }], unnamed)]).toEqual([0]);
    expect(code(() => mapSourceLayers('t', source, unnamed))).toBe('invalid-layers');
  });

  it('rejects missing layers, format mismatches, doubles and an unused layer 0', () => {
    expect(code(() => mapSourceLayers('t', source, pool, { roughness: 0 }))).toBe('invalid-layers');
    expect(code(() => mapSourceLayers('t', source, pool, { albedo: 5 }))).toBe('invalid-layers');
    expect(code(() => mapSourceLayers('t', source, pool, { normal: 0 }))).toBe('invalid-layers');
    expect(code(() => mapSourceLayers('t', source, pool, ['albedo', 'albedo']))).toBe('invalid-layers');
    expect(code(() => mapSourceLayers('t', source, pool, [null, 'normal']))).toBe('invalid-layers');
  });

  it('rejects an unknown normalChannels and y in alpha on a layer that is not a normal map', () => {
    const normals = (layer: Partial<TileLayerInfo>): TileLayerInfo[] => [
      { name: 'albedo', format: 'rgba8unorm-srgb' },
      { name: 'normal', format: 'rgba8unorm', ...layer },
    ];
    expect([
      ...mapSourceLayers('t', normals({ usage: 'normal', normalChannels: 'red-alpha' }), pool),
    ]).toEqual([0, 1]);
    expect([
      ...mapSourceLayers('t', normals({ usage: 'normal', normalChannels: 'red-green' }), pool),
    ]).toEqual([0, 1]);
    expect(code(() => mapSourceLayers('t', normals({ normalChannels: 'red-alpha' }), pool))).toBe(
      'invalid-layers',
    );
    const unknown = normals({ usage: 'normal', normalChannels: 'blue' as 'red-green' });
    expect(code(() => mapSourceLayers('t', unknown, pool))).toBe('invalid-layers');
  });
});
