/** Renderer-agnostic core of Tessera: pure TypeScript, no three.js, no DOM. */
export * from './budget/index';
export * from './dirty-regions';
export * from './errors';
export * from './feedback-analyzer';
export * from './feedback-jitter';
export * from './indexed-heap';
export * from './mip-bias-controller';
export * from './page-id';
export * from './page-table';
export * from './page-table-entry';
export * from './physical-pool';
export * from './residency-scheduler';
export * from './tile-source';
export * from './typed-emitter';
export * from './virtual-texture-streamer';
export * from './vt-layout';
