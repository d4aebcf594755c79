export * from './core/index';
export * from './sim/index';
export * from './three/index';
