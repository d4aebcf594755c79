/**
 * Entry point of the open-world demo: reads the URL, creates the renderer, builds the app, installs
 * `window.demo` (./automation.ts) and, unless `?auto=0`, starts the animation loop.
 */

import { DemoApp } from './app';
import { installAutomation } from './automation';
import { installKeyboardShortcuts } from './keyboard-shortcuts';
import { parseDemoParams } from './params';
import { REGION_NAMES } from './regions';
import { createDemoRenderer } from './renderer';

const params = parseDemoParams(location.search);
const status = document.getElementById('status');
let app: DemoApp | null = null;

async function start(): Promise<DemoApp> {
  const { renderer, backend } = await createDemoRenderer(params, document.body);
  const created = await DemoApp.create(renderer, backend, params);
  if (params.hud) {
    // Loaded only when shown, so `?hud=0` pages (tests) never load lil-gui or stats-gl.
    const { DemoHud } = await import('./hud/demo-hud');
    const hud = await DemoHud.create(created);
    created.onFrame = (a, dt) => hud.update(a, dt);
  }
  installKeyboardShortcuts(created);
  if (!params.size) {
    addEventListener('resize', () => {
      renderer.setSize(innerWidth, innerHeight);
      created.camera.setAspect(innerWidth / innerHeight);
    });
  }
  if (params.auto) {
    created.looping = true;
    renderer.setAnimationLoop((time: number) => created.frame(created.clock.liveStep(time)));
    if (params.tour) created.tour.start();
  }
  if (status) {
    status.textContent = `${backend === 'webgpu' ? 'WebGPU' : 'WebGL2'} · terrain: ${created.surface.kind} (${created.tiles.kind}) · WASD/QE fly, Shift fast, drag to look · 1/2/3 or N region · T tour`;
  }
  return created;
}

const ready = start().then((created) => {
  app = created;
});
ready.catch((error: unknown) => {
  if (status)
    status.textContent = `failed to start: ${error instanceof Error ? error.message : String(error)}`;
});

async function whenReady(): Promise<DemoApp> {
  await ready;
  return app!;
}

installAutomation({
  ready,
  scenes: [...REGION_NAMES],
  renderFrames: async (n) => (await whenReady()).renderFrames(n),
  teleport: (pose) => {
    if (!app) throw new Error('demo.teleport before demo.ready resolved');
    app.teleport(pose);
  },
  transition: async (name) => (await whenReady()).transition(name),
  settle: async (options) => (await whenReady()).settle(options?.maxFrames),
  stats: () => {
    if (!app) throw new Error('demo.stats before demo.ready resolved');
    return app.stats();
  },
  setBudget: (mib) => {
    if (!app) throw new Error('demo.setBudget before demo.ready resolved');
    app.applySettings({ budgetBytes: Math.round(mib * 1024 * 1024) });
  },
  setDebugView: (view, enabled) => {
    if (!app) throw new Error('demo.setDebugView before demo.ready resolved');
    app.setDebugView(view, enabled);
  },
  setLodBias: (mips) => {
    if (!app?.surface.setLodBias) throw new Error('demo.setLodBias needs the virtual-texture terrain');
    app.surface.setLodBias(mips);
  },
  setCompare: (on) => {
    if (!app) throw new Error('demo.setCompare before demo.ready resolved');
    app.compare = on;
  },
});
