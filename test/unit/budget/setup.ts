import {
  ManagedTextureRegistry,
  MipStreamingPlanner,
  type MipStreamingPlannerOptions,
  TextureBudget,
} from '../../../src/core/index';
import { FakeBackend } from './fake-backend';

/** A budget, registry, fake backend and planner wired together. */
export function makeSystem(budgetBytes: number, options: MipStreamingPlannerOptions = {}, latency = 0) {
  const budget = new TextureBudget({ budgetBytes });
  const registry = new ManagedTextureRegistry(budget.tags);
  const backend = new FakeBackend(latency);
  const planner = new MipStreamingPlanner(budget, registry, backend, options);
  backend.planner = planner;
  return { budget, registry, backend, planner };
}

/** Register a streamed rgba8 square texture with UV density 1 (texels per world unit = size). */
export function addTexture(
  system: ReturnType<typeof makeSystem>,
  size: number,
  tag = 'persistent',
  core = false,
): number {
  const id = system.registry.register({ tag, core });
  system.planner.add(id, { format: 'rgba8unorm', width: size, height: size, uvDensity: 1 });
  return id;
}
