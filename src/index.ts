/**
 * `tessera`: what an application needs. The three.js binding (virtual textures, TSL nodes,
 * streamed textures), the tile and mip sources that run in the browser, the budget, the errors and
 * the contracts a custom source implements. The core's internals are in `tessera/core`, the
 * simulator in `tessera/sim`, the baker in `tessera/node`.
 */
export type { BudgetCategory } from './core/budget/budget-category';
export { BudgetPriority } from './core/budget/budget-priority';
export { TextureBudget } from './core/budget/texture-budget';
export type {
  BudgetShedder,
  TextureBudgetOptions,
  TextureBudgetStats,
} from './core/budget/texture-budget-options';
export type { TextureFormatName } from './core/budget/texture-format';
export {
  isAbortError,
  type RuntimeErrorCode,
  TesseraConfigError,
  type TesseraConfigErrorCode,
  TesseraError,
  type TesseraErrorCode,
  TileSourceError,
  type TileSourceErrorCode,
} from './core/errors';
export type { Etc1sTarget, Etc1sTargetChoice } from './core/streaming/etc1s-target';
export type {
  BasisLzGlobalData,
  EncodedPyramidSource,
  Etc1sPyramidFormat,
  MipPyramidSource,
  StreamedTextureFormat,
  UastcPyramidFormat,
} from './core/streaming/mip-pyramid-source';
export type { LifetimePolicy } from './core/streaming/stale-sweep';
export type { UvRect } from './core/vt/page-rect';
export type { PoolTexelFormat, UastcTarget } from './core/vt/pool-format';
export type {
  TileData,
  TileEncoding,
  TileLayerInfo,
  TileLayerUsage,
  TileSource,
  TileSourceInfo,
} from './core/vt/tile-source';
export * from './sources/index';
export * from './three/index';
