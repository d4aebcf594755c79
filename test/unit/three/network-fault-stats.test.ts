/**
 * Issue #35: a streamed texture's chain failing for good is counted once in `stats().failedLevels`
 * (one `error` event), HTTP retries of the system's client in `stats().retries`, and a glTF file
 * loaded through a registration's `load()` is retried on a transient failure, refused at once on a
 * 404.
 */

import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Mesh, MeshBasicMaterial, PerspectiveCamera, PlaneGeometry, Scene } from 'three';
import { GLTFLoader } from 'three/examples/jsm/loaders/GLTFLoader.js';
import { afterEach, describe, expect, it } from 'vitest';
import { TileSourceError } from '../../../src/core/errors';
import { HttpClient } from '../../../src/sources/io/http/http-client';
import { registerGltfTextureStreaming } from '../../../src/three/gltf/gltf-texture-streaming';
import { TextureStreamingSystem } from '../../../src/three/streamed/texture-streaming-system';
import { CountingSource, fakeWebGl2Renderer as fakeRenderer } from '../support/fake-webgl2-renderer';

const fast = { retries: 3, baseDelayMs: 1, maxDelayMs: 5, timeoutMs: 2000, random: () => 0.5 };

/** A source whose levels finer than `coarsest` always fail (a file gone for good). */
class FailingFineSource extends CountingSource {
  constructor(private readonly coarsest: number) {
    super(1024, 1024, { bytes: 0, levels: 0 });
  }
  override async loadLevel(level: number): Promise<Uint8Array> {
    if (level < this.coarsest) throw new TileSourceError('http-status', 'HTTP 503', true);
    return super.loadLevel(level);
  }
}

let server: Server | undefined;
afterEach(async () => {
  await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
  server = undefined;
});

async function serve(handler: (path: string, served: number) => { status: number; body?: string }) {
  const counts = new Map<string, number>();
  server = createServer((req, res) => {
    const path = req.url ?? '/';
    const served = counts.get(path) ?? 0;
    counts.set(path, served + 1);
    const answer = handler(path, served);
    res.writeHead(answer.status, answer.body ? { 'content-length': Buffer.byteLength(answer.body) } : {});
    res.end(answer.body);
  });
  await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: (path: string) => `http://127.0.0.1:${port}${path}`,
    count: (path: string) => counts.get(path) ?? 0,
  };
}

describe('network fault counts', { timeout: 20_000 }, () => {
  it('counts a chain failing for good once in failedLevels, with one error event', async () => {
    const streaming = new TextureStreamingSystem(fakeRenderer(), { budgetBytes: 64 << 20 });
    const errors: string[] = [];
    streaming.events.on('error', (event) => errors.push(event.error.code));
    const texture = streaming.add(new FailingFineSource(5), { name: 'gone' });
    const mesh = new Mesh(new PlaneGeometry(2, 2), new MeshBasicMaterial());
    const scene = new Scene().add(mesh);
    const camera = new PerspectiveCamera(60, 16 / 9, 0.1, 100);
    camera.position.set(0, 0, 1.2);
    scene.updateMatrixWorld();
    camera.updateMatrixWorld();
    streaming.attach(mesh, texture);
    for (let i = 0; i < 60; i++) {
      streaming.update(camera, scene);
      await new Promise((resolve) => setTimeout(resolve, 0));
    }
    const stats = streaming.stats();
    expect(stats.failedLevels).toBe(1);
    // Failed now and in total (failedLevels is the total's deprecated name), in the VT system's words.
    expect(stats.streaming).toMatchObject({ failed: 1, failedTotal: 1, loading: 0, queued: 0 });
    expect(errors).toEqual(['texture-load-failed']);
    expect(stats.retries).toBe(0);
    streaming.dispose();
  });

  it("reports the client's retries, and a glTF load() retries a 503 but refuses a 404 at once", async () => {
    const gltf = JSON.stringify({
      asset: { version: '2.0' },
      scene: 0,
      scenes: [{ nodes: [0] }],
      nodes: [{ name: 'rock' }],
    });
    const host = await serve((path, served) =>
      path === '/scene.gltf' ? (served < 2 ? { status: 503 } : { status: 200, body: gltf }) : { status: 404 },
    );
    const http = new HttpClient(fast);
    const streaming = new TextureStreamingSystem(fakeRenderer(), { budgetBytes: 16 << 20, http });
    const registration = registerGltfTextureStreaming(new GLTFLoader(), streaming, { tag: 'scene:test' });
    const loaded = await registration.load(host.url('/scene.gltf'));
    expect(loaded.scene.getObjectByName('rock')).toBeDefined();
    expect(host.count('/scene.gltf')).toBe(3);
    expect(streaming.stats().retries).toBe(2);

    const missing = await registration.load(host.url('/missing.glb')).catch((e) => e);
    expect(missing).toBeInstanceOf(TileSourceError);
    expect(missing).toMatchObject({ code: 'http-status', retryable: false });
    expect(host.count('/missing.glb')).toBe(1);
    registration.dispose();
    streaming.dispose();
  });
});
