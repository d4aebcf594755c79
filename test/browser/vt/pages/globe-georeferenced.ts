/**
 * A globe with georeferenced COGs on a world basemap, as an application writes it: each COG opened
 * by URL with `openCogPyramid`, streamed as a virtual texture, and placed by
 * `geographicUv(cog.georeference)` over a plain `DataTexture` basemap of one grey, mixed by the
 * placement's `inside` mask.
 *
 * `?cogs=` comma-separated COG URLs, `?w=&h=` canvas size. Exposes `globeGeoreferenced`:
 * `setView` (camera above a latitude / longitude), `settle`, and `probe`, which projects
 * longitude / latitude points through the camera and reads the sRGB colour drawn there.
 */

import { VirtualTextureSystem, virtualTexture } from '@tessera-vt/tessera';
import { ImageryTileSource, openCogPyramid } from '@tessera-vt/tessera/imagery';
import { geographicUv } from '@tessera-vt/tessera/three';
import {
  DataTexture,
  FloatType,
  Mesh,
  PerspectiveCamera,
  RGBAFormat,
  Scene,
  SphereGeometry,
  SRGBColorSpace,
  UnsignedByteType,
  Vector3,
} from 'three';
import { mix, texture } from 'three/tsl';
import { MeshBasicNodeMaterial, RenderTarget } from 'three/webgpu';
import { createTestRenderer } from '../../support/renderer';
import { linearToSrgb } from '../test-content';

const params = new URLSearchParams(location.search);
const width = Number(params.get('w') ?? 480);
const height = Number(params.get('h') ?? 360);
const cogUrls = (params.get('cogs') ?? '').split(',').filter((u) => u !== '');
/** sRGB grey of the basemap. */
const BASEMAP_GREY = 100;

const renderer = await createTestRenderer(width, height);
const isWebGPU = (renderer.backend as { isWebGPUBackend?: boolean }).isWebGPUBackend === true;

// --- The globe as an application writes it ---
const basemap = new DataTexture(
  new Uint8Array([BASEMAP_GREY, BASEMAP_GREY, BASEMAP_GREY, 255]),
  1,
  1,
  RGBAFormat,
  UnsignedByteType,
);
basemap.colorSpace = SRGBColorSpace;
basemap.needsUpdate = true;

const vts = new VirtualTextureSystem(renderer, { budgetBytes: 32 * 2 ** 20, filtering: 'trilinear' });
const errors: string[] = [];
vts.events.on('error', (event) => errors.push(`${event.error.code}: ${event.error.message}`));
const cogs = await Promise.all(cogUrls.map((url) => openCogPyramid(new URL(url, location.href).href)));
// biome-ignore lint/suspicious/noExplicitAny: a TSL colour node.
let colour: any = texture(basemap);
for (const cog of cogs) {
  if (cog.georeference === null) throw new Error('a COG without georeferencing');
  const placed = geographicUv(cog.georeference);
  const imagery = virtualTexture(vts.add(new ImageryTileSource(cog)), placed.uv);
  colour = mix(colour, imagery, placed.inside.mul(imagery.a));
}
const material = new MeshBasicNodeMaterial();
material.colorNode = colour;
const scene = new Scene();
scene.add(new Mesh(new SphereGeometry(1, 128, 64), material));
// --- end ---

const camera = new PerspectiveCamera(40, width / height, 0.01, 20);
const capture = new RenderTarget(width, height, { type: FloatType });
capture.texture.name = 'tessera-test:capture';

/** The point of the unit sphere at (`lat`, `lon`) degrees, as `SphereGeometry` places uv (u = (lon + 180) / 360). */
function direction(lat: number, lon: number): Vector3 {
  const phi = ((lon + 180) / 360) * 2 * Math.PI;
  const theta = (lat * Math.PI) / 180;
  return new Vector3(-Math.cos(phi) * Math.cos(theta), Math.sin(theta), Math.sin(phi) * Math.cos(theta));
}

/** Looks at the globe's centre from above (`lat`, `lon`) degrees, `distance` radii from the centre. */
function setView(view: { lat: number; lon: number; distance: number }): void {
  camera.position.copy(direction(view.lat, view.lon).multiplyScalar(view.distance));
  camera.up.set(0, 1, 0);
  camera.lookAt(0, 0, 0);
  camera.near = Math.max(0.01, (view.distance - 1) * 0.5);
  camera.far = view.distance + 2;
  camera.updateProjectionMatrix();
  camera.updateMatrixWorld(true);
}

const nextFrame = () => new Promise((resolve) => requestAnimationFrame(resolve));

/** Runs frames until the system settles; returns the frames it took (-1: `maxFrames` ran out). */
async function settle(maxFrames = 300): Promise<number> {
  let settled = false;
  vts.whenSettled().then(() => {
    settled = true;
  });
  for (let i = 0; i < maxFrames; i++) {
    vts.update(camera, scene);
    renderer.render(scene, camera);
    await nextFrame();
    if (settled) return i + 1;
  }
  return -1;
}

/** The frame as sRGB bytes, rows top down. */
async function shoot(): Promise<Uint8Array> {
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

/** What {@link probe} found at one point. */
interface Probe {
  lon: number;
  lat: number;
  /** Pixel column and row (top down) the point projects to. */
  x: number;
  y: number;
  /** Whether the point faces the camera and lies on the canvas. */
  visible: boolean;
  rgb: [number, number, number];
}

/** Projects each (lon, lat) point of the unit sphere through the camera and reads the colour there. */
async function probe(points: readonly { lon: number; lat: number }[]): Promise<Probe[]> {
  const frame = await shoot();
  return points.map(({ lon, lat }) => {
    const onSphere = direction(lat, lon);
    const facing = onSphere.dot(camera.position.clone().sub(onSphere)) > 0;
    const ndc = onSphere.clone().project(camera);
    const x = Math.floor(((ndc.x + 1) / 2) * width);
    const y = Math.floor(((1 - ndc.y) / 2) * height);
    const visible = facing && x >= 0 && y >= 0 && x < width && y < height;
    const p = (Math.min(Math.max(y, 0), height - 1) * width + Math.min(Math.max(x, 0), width - 1)) * 4;
    return { lon, lat, x, y, visible, rgb: [frame[p], frame[p + 1], frame[p + 2]] };
  });
}

const api = {
  georeferences: () => cogs.map((cog) => cog.georeference),
  setView,
  settle,
  probe,
  /** The frame as RGBA bytes, to save and look at. */
  frame: async () => ({ width, height, rgba: Array.from(await shoot()) }),
  errors: () => [...errors],
};
(globalThis as unknown as { globeGeoreferenced: typeof api }).globeGeoreferenced = api;
document.title = 'ready';
