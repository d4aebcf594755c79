/** Renderer-agnostic core of Tessera: pure TypeScript, no three.js, no DOM. */

export * from './budget/index';
export * from './errors';
export * from './page-id';
export * from './page-table-entry';
export * from './tile-source';
