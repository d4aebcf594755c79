/** Mip streaming of ordinary textures: the planner, lifetimes, stale sweep and scene transitions. */
export * from './etc1s-target';
export * from './mip-pyramid-source';
export * from './mip-streaming-options';
export * from './mip-streaming-planner';
export * from './scene-transition';
export * from './shed-level-cache';
export * from './stale-sweep';
export * from './streaming-backend';
export * from './texture-registry';
export * from './wanted-mip';
