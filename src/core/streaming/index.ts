/** Mip streaming of ordinary textures: the planner, lifetimes, stale sweep and scene transitions. */

export * from './mip-pyramid-source';
export * from './need/wanted-mip';
export * from './planning/etc1s-target';
export * from './planning/mip-streaming-options';
export * from './planning/mip-streaming-planner';
export * from './planning/shed-level-cache';
export * from './streaming-backend';
export * from './sweep/stale-sweep';
export * from './texture-registry';
export * from './transitions/scene-transition';
