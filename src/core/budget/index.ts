/** One VRAM budget: byte accounting, mip streaming, lifetimes, sweeps and scene transitions. */
export * from './budget-category';
export * from './budget-priority';
export * from './mip-streaming-planner';
export * from './scene-transition';
export * from './stale-sweep';
export * from './streaming-backend';
export * from './tag-registry';
export * from './texture-budget';
export * from './texture-bytes';
export * from './texture-format';
export * from './texture-registry';
export * from './wanted-mip';
