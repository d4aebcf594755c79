/**
 * Stand-in for the `tessera` module in the reference page of packed-readme.spec.ts: the README's
 * code runs unchanged, but each virtual texture is the archive's source photo (`x.tsva` ->
 * `x.jpg`) loaded by three's TextureLoader, so the page shows what plain three.js shows for the
 * same plane, camera and material. Only the API the README uses is here; a README using more
 * fails the build with "X is not exported", which names what to add.
 */

import { SRGBColorSpace, TextureLoader } from 'three';
import { texture } from 'three/tsl';

const loader = new TextureLoader();

export class ArchiveTileSource {
  static async openUrl(url) {
    return new ArchiveTileSource(url);
  }

  constructor(url) {
    this.url = url;
  }

  dispose() {}
}

export class VirtualTextureSystem {
  constructor(renderer, options = {}) {
    this.renderer = renderer;
    this.options = options;
    this.loads = [];
  }

  add(source) {
    let map;
    this.loads.push(
      new Promise((resolve, reject) => {
        map = loader.load(source.url.replace(/\.tsva$/, '.jpg'), resolve, undefined, reject);
      }),
    );
    map.colorSpace = SRGBColorSpace;
    if (this.options.filtering === 'anisotropic') map.anisotropy = 16;
    return { map };
  }

  update() {}

  /** Resolves once every photo has loaded. */
  async whenSettled() {
    await Promise.all(this.loads);
  }

  stats() {
    return {};
  }

  dispose() {}
}

export function virtualTexture(vt, uvNode) {
  return uvNode === undefined ? texture(vt.map) : texture(vt.map, uvNode);
}
