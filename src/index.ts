export * from './core/index';
export * from './sim/index';
export * from './sources/index';
export * from './three/index';
