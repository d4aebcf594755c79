/**
 * An image pyramid people already have (`?source=` one of {@link OPENERS}, `?url=` where the test
 * server has it) streamed as a virtual texture through `ImageryTileSource`, beside plain three.js
 * drawing the same plane with a `DataTexture` whose mip levels are the pyramid's own levels,
 * composed whole here from every tile of every level. Pages are composed from source tiles that
 * rarely line up with them, so where a page or a source tile ends is where a composition error
 * would show: `compare()` reports the error there apart from the error elsewhere.
 *
 * The plane is the image in its own texel grid (one world unit per texel of the finest level).
 * `?filtering=trilinear|bilinear`, `?w=&h=` canvas size, `?plant=border`: every page's border is
 * the page's own edge texels repeated instead of its neighbours' texels (a seam, for proving that
 * the seam measure sees one).
 */

import { type VirtualTextureFiltering, VirtualTextureSystem, virtualTexture } from '@tessera-vt/tessera';
import {
  type ImageryPyramid,
  ImageryTileSource,
  openCogPyramid,
  openDeepZoomPyramid,
  openIiifPyramid,
  openPmtilesPyramid,
  openXyzPyramid,
} from '@tessera-vt/tessera/imagery';
import {
  ClampToEdgeWrapping,
  DataTexture,
  FloatType,
  Group,
  LinearFilter,
  LinearMipmapLinearFilter,
  LinearMipmapNearestFilter,
  Matrix4,
  Mesh,
  PerspectiveCamera,
  PlaneGeometry,
  RepeatWrapping,
  RGBAFormat,
  Scene,
  SRGBColorSpace,
  UnsignedByteType,
  Vector3,
} from 'three';
import { MeshBasicNodeMaterial, RenderTarget } from 'three/webgpu';
import { downsampleRgba8 } from '../../../../src/sources/mips/box-downsample';
import { type ErrorStats, ErrorSum } from '../../support/error-sum';
import { createTestRenderer } from '../../support/renderer';
import { linearToSrgb } from '../../vt/test-content';

const params = new URLSearchParams(location.search);

/** How each format's pyramid is opened from its fixture's URL: one entry per format. */
const OPENERS: Record<string, (url: string) => Promise<ImageryPyramid>> = {
  // A template: new URL() would escape its braces.
  xyz: (url) => openXyzPyramid(location.origin + url, { maxZoom: Number(params.get('maxZoom')) }),
  pmtiles: (url) => openPmtilesPyramid(new URL(url, location.href).href),
  cog: (url) => openCogPyramid(new URL(url, location.href).href),
  dzi: (url) => openDeepZoomPyramid(new URL(url, location.href).href),
  // sharp's info.json names the service where it was written: the page says where it is served.
  iiif: (url) =>
    openIiifPyramid(new URL(url, location.href).href, {
      serviceId: new URL(url.replace(/\/info\.json$/, ''), location.href).href,
      format: 'png',
    }),
};

const sourceName = params.get('source') ?? 'dzi';
const url = params.get('url') as string;
const filtering = (params.get('filtering') ?? 'trilinear') as VirtualTextureFiltering;
const width = Number(params.get('w') ?? 640);
const height = Number(params.get('h') ?? 360);
const TILE_SIZE = 128;
const BORDER = 4;
const PAYLOAD = TILE_SIZE - 2 * BORDER;

const open = OPENERS[sourceName];
if (open === undefined) throw new Error(`unknown imagery source ${sourceName}`);
const renderer = await createTestRenderer(width, height);
const isWebGPU = (renderer.backend as { isWebGPUBackend?: boolean }).isWebGPUBackend === true;

const vts = new VirtualTextureSystem(renderer, {
  tileSize: TILE_SIZE,
  border: BORDER,
  filtering,
  budgetBytes: 128 * 2 ** 20,
});
const tileSource = new ImageryTileSource(await open(url), { tileSize: TILE_SIZE, border: BORDER });
if (params.get('plant') === 'border') plantBorderSeams(tileSource);
const vt = vts.add(tileSource);
const contentWidth = vt.contentWidth;
const contentHeight = vt.contentHeight;

// The reference reads its own copy of the pyramid, so nothing the virtual texture cached is shared.
const referencePyramid = await open(url);
const reference = await referenceTexture(referencePyramid);
referencePyramid.dispose?.();

/** Both scenes hold the plane under a pivot at the view's target, so a view is one tilt and one distance. */
function planeScene(mesh: Mesh): { scene: Scene; pivot: Group; mesh: Mesh } {
  const scene = new Scene();
  const pivot = new Group();
  pivot.add(mesh);
  scene.add(pivot);
  return { scene, pivot, mesh };
}

const planeGeometry = new PlaneGeometry(contentWidth, contentHeight);
const vtMaterial = new MeshBasicNodeMaterial();
vtMaterial.colorNode = virtualTexture(vt);
const vtSide = planeScene(new Mesh(planeGeometry, vtMaterial));
// The reference texture is padded to whole mips (see referenceTexture), so the plane's uvs address
// the image's part of it: u scaled, v flipped (rows top down, `flipY` false) and scaled.
const referenceGeometry = planeGeometry.clone();
const uvs = referenceGeometry.getAttribute('uv');
for (let i = 0; i < uvs.count; i++) {
  uvs.setXY(
    i,
    (uvs.getX(i) * contentWidth) / reference.paddedWidth,
    ((1 - uvs.getY(i)) * contentHeight) / reference.paddedHeight,
  );
}
const referenceSide = planeScene(
  new Mesh(referenceGeometry, new MeshBasicNodeMaterial({ map: reference.texture })),
);

const camera = new PerspectiveCamera(40, width / height, 1, 1e6);
const capture = new RenderTarget(width, height, { type: FloatType });

/** Where the views look, as a fraction of the image: off every page and tile line. */
const TARGET = { u: 0.47, v: 0.53 };

/**
 * A view: the plane tilted by `tiltDegrees` about its horizontal axis through the target (its top
 * receding), seen straight down the camera's axis from where one screen pixel spans
 * `texelsPerPixel` texels at the target before the tilt.
 */
interface View {
  tiltDegrees: number;
  texelsPerPixel: number;
}

const VIEWS: Record<string, View> = {
  // About 1.5 screen pixels per texel: mip 0 only, magnified, across several pages and tiles.
  straight: { tiltDegrees: 0, texelsPerPixel: 1 / 1.5 },
  // Foreshortened towards the top of the frame: several mips on screen at once.
  oblique: { tiltDegrees: 65, texelsPerPixel: 0.9 },
  // The whole image a few dozen pixels wide: the coarsest mips, which past the shorter side's last
  // page halve the longer axis only (no hardware mip chain does that, so the reference cannot follow).
  distant: { tiltDegrees: 0, texelsPerPixel: 40 },
};

function setView(name: string): void {
  const view = VIEWS[name];
  if (view === undefined) throw new Error(`unknown view ${name}`);
  for (const side of [vtSide, referenceSide]) {
    side.mesh.position.set(-(TARGET.u - 0.5) * contentWidth, -(0.5 - TARGET.v) * contentHeight, 0);
    side.pivot.rotation.x = (-view.tiltDegrees * Math.PI) / 180;
    side.scene.updateMatrixWorld(true);
  }
  const distance = (view.texelsPerPixel * height) / (2 * Math.tan((camera.fov * Math.PI) / 360));
  camera.position.set(0, 0, distance);
  camera.near = distance / 100;
  camera.far = distance * 100;
  camera.lookAt(0, 0, 0);
  camera.updateProjectionMatrix();
  camera.updateMatrixWorld(true);
}
setView(params.get('view') ?? 'straight');

/** One loaded image level, rgba8, rows top down. */
interface Level {
  width: number;
  height: number;
  data: Uint8Array;
}

/**
 * The pyramid as one plain texture: level `m` is the pyramid's level `m` composed whole from its
 * tiles (or, past the pyramid's coarsest, box-filtered from the level above as ImageryTileSource
 * derives it), padded to `paddedWidth >> m` texels with the edge texels repeated (or wrapped for
 * a whole-world map), the same texels a page's border holds past the image's edge. The virtual
 * texture's mip `m` scales the image by exactly `2^-m`, so the padded width is a multiple of
 * `2^(levels - 1)` with the image at its top left, where three's mip chain halves it exactly.
 * Only the mips whose pages halve both ways are kept: further ones of a non-square grid halve
 * one axis only, which no hardware mip chain can hold.
 */
async function referenceTexture(
  pyramid: ImageryPyramid,
): Promise<{ texture: DataTexture; paddedWidth: number; paddedHeight: number; levels: number }> {
  const { widthPages, heightPages } = tileSource.info;
  const levelCount = Math.log2(Math.min(widthPages, heightPages)) + 1;
  const unit = 2 ** (levelCount - 1);
  const paddedWidth = unit * Math.ceil(contentWidth / unit);
  const paddedHeight = unit * Math.ceil(contentHeight / unit);
  const repeat = pyramid.info.wrapX === 'repeat';
  const images: Level[] = [];
  const mipmaps: Level[] = [];
  for (let m = 0; m < levelCount; m++) {
    const image = m < pyramid.info.levels.length ? await wholeLevel(pyramid, m) : halved(images[m - 1]);
    images.push(image);
    mipmaps.push(padded(image, paddedWidth >> m, paddedHeight >> m, repeat));
  }
  const texture = new DataTexture(mipmaps[0].data, paddedWidth, paddedHeight, RGBAFormat, UnsignedByteType);
  texture.mipmaps = mipmaps;
  texture.generateMipmaps = false;
  texture.flipY = false;
  texture.colorSpace = SRGBColorSpace;
  texture.magFilter = LinearFilter;
  // The virtual texture's mip rule: bilinear reads the nearest mip, trilinear blends two.
  texture.minFilter = filtering === 'bilinear' ? LinearMipmapNearestFilter : LinearMipmapLinearFilter;
  // Hardware repeat matches a whole-world map's wrapped borders only when no padding sits between.
  texture.wrapS = repeat && paddedWidth === contentWidth ? RepeatWrapping : ClampToEdgeWrapping;
  texture.wrapT = ClampToEdgeWrapping;
  texture.needsUpdate = true;
  return { texture, paddedWidth, paddedHeight, levels: levelCount };
}

/** Every tile of pyramid level `m`, pasted into one image. */
async function wholeLevel(pyramid: ImageryPyramid, m: number): Promise<Level> {
  const level = pyramid.info.levels[m];
  const data = new Uint8Array(level.width * level.height * 4);
  const columns = Math.ceil(level.width / level.tileWidth);
  const rows = Math.ceil(level.height / level.tileHeight);
  const signal = new AbortController().signal;
  const jobs: Promise<void>[] = [];
  for (let ty = 0; ty < rows; ty++) {
    for (let tx = 0; tx < columns; tx++) {
      jobs.push(
        pyramid.loadTile(m, tx, ty, signal).then((tile) => {
          if (tile === null) throw new Error(`level ${m} tile ${tx},${ty} is missing from the fixture`);
          const left = tx * level.tileWidth;
          const top = ty * level.tileHeight;
          const w = Math.min(level.tileWidth, level.width - left);
          const h = Math.min(level.tileHeight, level.height - top);
          for (let y = 0; y < h; y++) {
            data.set(
              tile.data.subarray(y * tile.width * 4, (y * tile.width + w) * 4),
              ((top + y) * level.width + left) * 4,
            );
          }
        }),
      );
    }
  }
  await Promise.all(jobs);
  return { width: level.width, height: level.height, data };
}

function halved(image: Level): Level {
  return {
    width: Math.max(1, image.width >> 1),
    height: Math.max(1, image.height >> 1),
    data: downsampleRgba8(image.data, image.width, image.height, true),
  };
}

function padded(image: Level, width: number, height: number, repeat: boolean): Level {
  const data = new Uint8Array(width * height * 4);
  for (let y = 0; y < height; y++) {
    const sy = Math.min(y, image.height - 1);
    for (let x = 0; x < width; x++) {
      const sx = x < image.width ? x : repeat ? x % image.width : image.width - 1;
      const from = (sy * image.width + sx) * 4;
      data.set(image.data.subarray(from, from + 4), (y * width + x) * 4);
    }
  }
  return { width, height, data };
}

/** Makes every page's border its own edge texels repeated: what composing pages tile by tile without neighbours would give. */
function plantBorderSeams(source: ImageryTileSource): void {
  const load = source.load.bind(source);
  source.load = async (mip, x, y, signal) => {
    const tile = await load(mip, x, y, signal);
    const texels = tile.layers[0];
    const copy = texels.slice();
    const last = TILE_SIZE - BORDER - 1;
    for (let j = 0; j < TILE_SIZE; j++) {
      const sj = Math.min(last, Math.max(BORDER, j));
      for (let i = 0; i < TILE_SIZE; i++) {
        const si = Math.min(last, Math.max(BORDER, i));
        if (si === i && sj === j) continue;
        copy.set(
          texels.subarray((sj * TILE_SIZE + si) * 4, (sj * TILE_SIZE + si) * 4 + 4),
          (j * TILE_SIZE + i) * 4,
        );
      }
    }
    return { layers: [copy] };
  };
}

/** One animation-loop iteration: update, then render to the canvas. */
function frame(): void {
  vts.update(camera, vtSide.scene);
  renderer.render(vtSide.scene, camera);
}

/** Runs frames until `vts.whenSettled()` resolves; returns the frames it took (-1: maxFrames ran out). */
async function settle(maxFrames = 400): Promise<number> {
  let settled = false;
  vts.whenSettled().then(() => {
    settled = true;
  });
  for (let i = 0; i < maxFrames; i++) {
    frame();
    await new Promise((resolve) => requestAnimationFrame(resolve));
    if (settled) return i + 1;
  }
  return -1;
}

/** Renders `scene` into the capture target and reads it as sRGB bytes, rows top down. */
async function shoot(scene: Scene): Promise<Uint8Array> {
  renderer.setRenderTarget(capture);
  renderer.render(scene, camera);
  renderer.setRenderTarget(null);
  const linear = (await renderer.readRenderTargetPixelsAsync(capture, 0, 0, width, height)) as Float32Array;
  const out = new Uint8Array(width * height * 4);
  for (let y = 0; y < height; y++) {
    const row = isWebGPU ? y : height - 1 - y;
    for (let x = 0; x < width * 4; x++) {
      const v = linear[y * width * 4 + x];
      out[row * width * 4 + x] = (x & 3) === 3 ? Math.round(v * 255) : Math.round(linearToSrgb(v));
    }
  }
  return out;
}

/** Where each pixel's centre meets the plane, in finest-level texels (NaN off the plane). */
function texelsUnderPixels(): { tx: Float32Array; ty: Float32Array } {
  const tx = new Float32Array(width * height).fill(Number.NaN);
  const ty = new Float32Array(width * height).fill(Number.NaN);
  const toLocal = new Matrix4().copy(vtSide.mesh.matrixWorld).invert().multiply(camera.matrixWorld);
  const origin = new Vector3().applyMatrix4(toLocal);
  const direction = new Vector3();
  const tanHalf = Math.tan((camera.fov * Math.PI) / 360);
  for (let py = 0; py < height; py++) {
    for (let px = 0; px < width; px++) {
      const ndcX = ((px + 0.5) / width) * 2 - 1;
      const ndcY = 1 - ((py + 0.5) / height) * 2;
      direction.set(ndcX * tanHalf * camera.aspect, ndcY * tanHalf, -1).transformDirection(toLocal);
      const t = -origin.z / direction.z;
      if (!(t > 0)) continue;
      const u = (origin.x + t * direction.x) / contentWidth + 0.5;
      const v = (origin.y + t * direction.y) / contentHeight + 0.5;
      if (u < 0 || u > 1 || v < 0 || v > 1) continue;
      tx[py * width + px] = u * contentWidth;
      ty[py * width + px] = (1 - v) * contentHeight;
    }
  }
  return { tx, ty };
}

/** Pixels counted near a line: within this many screen pixels of it, on either side. */
const EDGE_RADIUS = 2;

/** What {@link compare} reports. */
interface Comparison {
  /** Every pixel of the plane (its outline excluded, where a pixel is partly off it). */
  all: ErrorStats;
  /** Pixels within {@link EDGE_RADIUS} of a page edge of a mip they read. */
  pageEdges: ErrorStats;
  /** Pixels within {@link EDGE_RADIUS} of a source tile's edge at a mip they read. */
  tileEdges: ErrorStats;
  /** The plane's other pixels. */
  rest: ErrorStats;
  /**
   * Bilinear only: pixels whose footprint is within {@link MIP_SWITCH_MARGIN} of where the nearest
   * mip flips, left out of the three sets above (in `all` still).
   */
  mipSwitch: ErrorStats;
  /** Plane pixels per mip the footprint asks for, `floor(lambda)` clamped to the mips. */
  mipPixels: number[];
  /** The pixels of largest error near page edges: where, footprint, texel under them, error. */
  worstAtPageEdges: { x: number; y: number; lambda: number; tx: number; ty: number; error: number }[];
}

/**
 * The virtual texture's frame against the reference over the plane's pixels, with the pixels
 * near page edges and source-tile edges (of the mips each pixel reads, edges found in screen space
 * from the camera) counted apart from the rest.
 */
async function compare(): Promise<Comparison> {
  const a = await shoot(vtSide.scene);
  const b = await shoot(referenceSide.scene);
  const { tx, ty } = texelsUnderPixels();
  const levels = referencePyramid.info.levels;
  const mipCount = vt.mipCount;
  const all = new ErrorSum();
  const pageEdges = new ErrorSum();
  const tileEdges = new ErrorSum();
  const rest = new ErrorSum();
  const mipSwitch = new ErrorSum();
  const mipPixels = new Array<number>(mipCount).fill(0);
  const worstAtPageEdges: Comparison['worstAtPageEdges'] = [];
  const at = (x: number, y: number) => y * width + x;
  for (let y = 1; y < height - 1; y++) {
    for (let x = 1; x < width - 1; x++) {
      const i = at(x, y);
      // Off the plane, or on its outline (a neighbour is off it).
      if (
        Number.isNaN(tx[i]) ||
        Number.isNaN(tx[i - 1]) ||
        Number.isNaN(tx[i + 1]) ||
        Number.isNaN(tx[i - width]) ||
        Number.isNaN(tx[i + width])
      ) {
        continue;
      }
      const dx = Math.hypot(tx[i + 1] - tx[i], ty[i + 1] - ty[i]);
      const dy = Math.hypot(tx[i + width] - tx[i], ty[i + width] - ty[i]);
      const lambda = Math.log2(Math.max(dx, dy, 1e-8));
      const clampMip = (m: number) => Math.max(0, Math.min(mipCount - 1, m));
      const fine = filtering === 'bilinear' ? clampMip(Math.round(lambda)) : clampMip(Math.floor(lambda));
      const coarse = filtering === 'bilinear' ? fine : clampMip(fine + 1);
      mipPixels[clampMip(Math.floor(lambda))]++;
      let nearPage = false;
      let nearTile = false;
      for (let m = fine; m <= coarse; m++) {
        const page = PAYLOAD * 2 ** m;
        const tileW = m < levels.length ? levels[m].tileWidth * 2 ** m : Number.POSITIVE_INFINITY;
        const tileH = m < levels.length ? levels[m].tileHeight * 2 ** m : Number.POSITIVE_INFINITY;
        const px = Math.floor(tx[i] / page);
        const py = Math.floor(ty[i] / page);
        const qx = Math.floor(tx[i] / tileW);
        const qy = Math.floor(ty[i] / tileH);
        for (let oy = -EDGE_RADIUS; oy <= EDGE_RADIUS; oy++) {
          const ny = y + oy;
          if (ny < 0 || ny >= height) continue;
          for (let ox = -EDGE_RADIUS; ox <= EDGE_RADIUS; ox++) {
            const nx = x + ox;
            if (nx < 0 || nx >= width) continue;
            const j = at(nx, ny);
            if (Number.isNaN(tx[j])) continue;
            if (Math.floor(tx[j] / page) !== px || Math.floor(ty[j] / page) !== py) nearPage = true;
            if (Math.floor(tx[j] / tileW) !== qx || Math.floor(ty[j] / tileH) !== qy) nearTile = true;
          }
        }
      }
      all.add(a, b, i);
      // Where bilinear's nearest mip flips, the GPU's footprint and this one may round apart: a
      // whole mip's difference along a line that runs parallel to page rows on a tilted plane.
      if (filtering === 'bilinear' && Math.abs(lambda - Math.floor(lambda) - 0.5) < MIP_SWITCH_MARGIN) {
        mipSwitch.add(a, b, i);
        continue;
      }
      if (nearPage) {
        pageEdges.add(a, b, i);
        const error = Math.max(
          Math.abs(a[i * 4] - b[i * 4]),
          Math.abs(a[i * 4 + 1] - b[i * 4 + 1]),
          Math.abs(a[i * 4 + 2] - b[i * 4 + 2]),
        );
        if (error > 2 && worstAtPageEdges.length < WORST_REPORTED) {
          worstAtPageEdges.push({
            x,
            y,
            lambda: round2(lambda),
            tx: round2(tx[i]),
            ty: round2(ty[i]),
            error,
          });
        }
      }
      if (nearTile) tileEdges.add(a, b, i);
      if (!nearPage && !nearTile) rest.add(a, b, i);
    }
  }
  return {
    all: all.stats(),
    pageEdges: pageEdges.stats(),
    tileEdges: tileEdges.stats(),
    rest: rest.stats(),
    mipSwitch: mipSwitch.stats(),
    mipPixels,
    worstAtPageEdges,
  };
}

/** How close to a bilinear mip flip a footprint counts as at the flip, in mips. */
const MIP_SWITCH_MARGIN = 0.05;

/** Pixels near page edges listed with their error, at most. */
const WORST_REPORTED = 12;

function round2(v: number): number {
  return Math.round(v * 100) / 100;
}

/** Both frames as RGBA bytes (for a failing test to save and look at). */
async function frames(): Promise<{ width: number; height: number; vt: number[]; reference: number[] }> {
  return {
    width,
    height,
    vt: Array.from(await shoot(vtSide.scene)),
    reference: Array.from(await shoot(referenceSide.scene)),
  };
}

const api = {
  settle,
  setView,
  compare,
  frames,
  content: () => ({
    width: contentWidth,
    height: contentHeight,
    mipCount: vt.mipCount,
    referenceLevels: reference.levels,
    pyramidLevels: referencePyramid.info.levels.length,
  }),
  counters: () => tileSource.counters,
};
(window as unknown as { imagerySeams: typeof api }).imagerySeams = api;
document.title = 'ready';
