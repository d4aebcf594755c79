/** Renderer-agnostic core of Tessera: pure TypeScript, no three.js, no DOM. */
export * from './budget/index';
export * from './errors';
export * from './streaming/index';
export * from './structures/index';
export * from './vt/index';
