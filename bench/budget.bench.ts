import {
  ManagedTextureRegistry,
  MipStreamingPlanner,
  SceneTransition,
  StaleSweep,
  TextureBudget,
  type TextureFormatName,
  type TransitionOrder,
} from '../src/core/index';
import { FakeBackend } from '../test/unit/budget/fake-backend';

/** Figures of one simulated transition, bytes. */
export interface TransitionFigures {
  residentBefore: number;
  residentAfter: number;
  peak: number;
  rule: number;
  budget: number;
  framesToReady: number;
}

function prng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

/**
 * Demo-like scene switch: a 128 MiB budget, three regions of 40 streamed textures (256..2048 texels,
 * rgba8 and bc7, full chains, 10 core each), loads completing after 2 frames. Region 0 streams
 * until settled, then transitions to region 1 in the given order; returns the peak and the rule.
 */
export function simulateTransition(order: TransitionOrder, budgetBytes = 128 << 20): TransitionFigures {
  const budget = new TextureBudget({ budgetBytes });
  const registry = new ManagedTextureRegistry(budget.tags);
  const backend = new FakeBackend(2);
  const planner = new MipStreamingPlanner(budget, registry, backend, { maxLoadsInFlight: 8 });
  backend.planner = planner;
  const random = prng(7);
  const sizes = [256, 512, 1024, 2048];
  const regions: { ids: number[]; need: number[] }[] = [];
  let frame = 0;
  const addRegion = (r: number) => {
    const ids: number[] = [];
    const need: number[] = [];
    for (let i = 0; i < 40; i++) {
      const size = sizes[Math.floor(random() * sizes.length)];
      const format: TextureFormatName = i % 2 === 0 ? 'rgba8unorm' : 'bc7-rgba-unorm';
      const id = registry.register({ tag: `scene:region${r}`, core: i < 10 }, frame);
      planner.add(id, { format, width: size, height: size, uvDensity: 1 });
      ids.push(id);
      need.push(size * (0.1 + 0.5 * random()));
    }
    regions[r] = { ids, need };
  };
  const step = (visible: number) => {
    const region = regions[visible];
    if (region && frame % 3 === 0) {
      for (let i = 0; i < region.ids.length; i++)
        planner.setScreenNeed(region.ids[i], region.need[i], 1, frame);
    }
    planner.update(frame);
    budget.update();
    backend.tick();
    frame++;
  };
  const settled = (r: number) =>
    planner.loadsInFlight === 0 && regions[r].ids.every((id) => !registry.has(id) || planner.isSettled(id));
  addRegion(0);
  while (!settled(0) || frame < 10) step(0);
  const residentBefore = budget.liveBytes;
  budget.resetPeak();
  addRegion(1);
  let visible = 0;
  const transition = new SceneTransition(
    budget,
    registry,
    planner,
    { textures: regions[0].ids },
    { textures: regions[1].ids },
    {
      order,
      onReady: () => {
        visible = 1;
      },
    },
  );
  let framesToReady = -1;
  for (let guard = 0; guard < 5000; guard++) {
    transition.update();
    if (framesToReady < 0 && transition.framesToReady >= 0) framesToReady = transition.framesToReady;
    // the old scene is no longer on screen once the app switched
    if (visible === 1)
      for (const id of regions[0].ids) if (registry.has(id)) planner.setScreenNeed(id, 0, 1, frame);
    // the destination's need is known from the start (the app knows where the camera will be)
    if (visible === 0 && frame % 3 === 0) {
      for (let i = 0; i < 40; i++) planner.setScreenNeed(regions[1].ids[i], regions[1].need[i], 1, frame);
    }
    step(visible);
    if (transition.phase === 'done' && settled(1)) break;
  }
  const residentAfter = budget.liveBytes;
  return {
    residentBefore,
    residentAfter,
    peak: budget.peakBytes,
    rule: Math.max(residentBefore, residentAfter) + Math.floor(0.1 * budgetBytes),
    budget: budgetBytes,
    framesToReady,
  };
}

/** Median time of one sweep over 10,000 managed textures (ms), mostly not yet stale. */
function measureSweep(): number {
  const registry = new ManagedTextureRegistry();
  const sweep = new StaleSweep(registry, { transient: { kind: 'idle-frames', frames: 1_000_000 } });
  const tags = ['persistent', 'transient', 'scene:a', 'scene:b', 'ui'];
  for (let i = 0; i < 10_000; i++) registry.register({ tag: tags[i % tags.length] });
  sweep.setPolicy('ui', { kind: 'idle-ms', ms: 1e12 });
  const times: number[] = [];
  for (let rep = 0; rep < 400; rep++) {
    const start = performance.now();
    sweep.sweep(rep, rep * 16);
    times.push(performance.now() - start);
  }
  times.sort((a, b) => a - b);
  return times[times.length >> 1];
}

export default {
  name: 'budget',
  async run(): Promise<Record<string, number>> {
    const ours = simulateTransition('load-while-release');
    const naive = simulateTransition('naive');
    return {
      'budget.transition.peak_bytes': ours.peak,
      'budget.transition.naive_peak_bytes': naive.peak,
      'budget.transition.rule_bytes': ours.rule,
      'budget.transition.resident_before_bytes': ours.residentBefore,
      'budget.transition.resident_after_bytes': ours.residentAfter,
      'budget.transition.frames_to_ready': ours.framesToReady,
      'budget.transition.naive_frames_to_ready': naive.framesToReady,
      'budget.sweep.ms': measureSweep(),
    };
  },
};
