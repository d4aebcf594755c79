/**
 * Stand-in for the `@tessera-vt/tessera` module in the reference page of packed-tarball.spec.ts: the README's
 * code runs unchanged, but each virtual texture is the archive's source photo (`x.tsva` ->
 * `x.jpg`) loaded by three's TextureLoader, so the page shows what plain three.js shows for the
 * same plane, camera and material. Only the API the README uses is here; a README using more
 * fails the build with "X is not exported", which names what to add.
 */

import { SRGBColorSpace, TextureLoader } from 'three';
import { texture } from 'three/tsl';

const loader = new TextureLoader();

export class ArchiveTileSource {
  static async open(url) {
    const map = await loader.loadAsync(url.replace(/\.tsva$/, '.jpg'));
    map.colorSpace = SRGBColorSpace;
    return new ArchiveTileSource(map);
  }

  constructor(map) {
    this.map = map;
  }

  dispose() {}
}

export class VirtualTextureSystem {
  constructor(renderer, options = {}) {
    this.renderer = renderer;
    this.options = options;
  }

  add(source) {
    const map = source.map;
    if (this.options.filtering === 'anisotropic') map.anisotropy = 16;
    const { width, height } = map.image;
    return { map, contentWidth: width, contentHeight: height, aspect: width / height };
  }

  update() {}

  /** The photo loaded before `add`: settled at once (the README logs it, the spec waits for it). */
  async whenSettled() {
    return 0;
  }

  stats() {
    return {};
  }

  dispose() {}
}

export function virtualTexture(vt, uvNode) {
  return uvNode === undefined ? texture(vt.map) : texture(vt.map, uvNode);
}
