/**
 * `@tessera-vt/tessera/sim`: the frame simulator, which drives the core without a GPU (feedback from a
 * camera over a terrain), for tests, benchmarks and pool planning; cache policy against Belady's
 * optimum. Names are listed one by one; each appears in `api/sim.api.md`.
 * @packageDocumentation
 */
export {
  type CameraPath,
  type CameraPathOptions,
  type FlyOverOptions,
  flyOverPath,
  type OrbitOptions,
  orbitPath,
  type PingPongOptions,
  pingPongPath,
  type TeleportOptions,
  teleportPath,
} from './camera-paths';
export { type CameraPose, copyCameraPose, createCameraPose } from './camera-pose';
export { flushTasks } from './flush-tasks';
export {
  FrameSimulator,
  type FrameSimulatorOptions,
  type SimulatedTerrain,
  type SimulationReport,
  type TeleportReport,
} from './frame-simulator';
export { countOptimalLoads } from './optimal-loads';
export { type PoolPlan, planPoolBySimulation, planPoolFromTrace } from './pool-planner';
export { RequestTrace } from './request-trace';
export { SeededRandom } from './seeded-random';
export {
  SimulatedTileSource,
  type SimulatedTileSourceOptions,
  type SimulatedTileSourceStats,
} from './simulated-tile-source';
export { type TerrainFeedbackConfig, TerrainFeedbackGenerator } from './terrain-feedback-generator';
