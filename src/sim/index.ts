/** Frame simulator: drives the core without a GPU, for tests, benchmarks and pool planning. */
export * from './camera-paths';
export * from './camera-pose';
export * from './flush-tasks';
export * from './frame-simulator';
export * from './optimal-loads';
export * from './pool-planner';
export * from './request-trace';
export * from './seeded-random';
export * from './simulated-tile-source';
export * from './terrain-feedback-generator';
