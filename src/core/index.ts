/**
 * `@tessera-vt/tessera/core`: the renderer-agnostic core of Tessera (pure TypeScript, no three.js, no
 * DOM), for a custom binding, a tool or a debug view: the streamer with its events and stats, the
 * tile and mip source contracts, page ids and page-table entries, the pool with its replacement
 * policies, the feedback rule and its jitter, the one budget with exact texture bytes, the mip
 * streaming planner and scene transitions, and the debug images.
 *
 * Names are listed one by one: each is public API and appears in `api/core.api.md`. The rest of
 * `src/core/` is internal and may change in any release.
 * @packageDocumentation
 */

// Budget: one VRAM budget, exact texture bytes.
export { BUDGET_CATEGORIES, type BudgetCategory } from './budget/budget-category';
export { BudgetPriority } from './budget/budget-priority';
export { NO_RESERVATION, TextureBudget } from './budget/texture-budget';
export type {
  BudgetShedder,
  TextureBudgetOptions,
  TextureBudgetStats,
} from './budget/texture-budget-options';
export {
  bufferBytes,
  fullMipCount,
  type TextureByteDescriptor,
  textureBytes,
  textureLevelRangeBytes,
} from './budget/texture-bytes';
export {
  TEXTURE_FORMAT_NAMES,
  type TextureFormatInfo,
  type TextureFormatName,
  textureFormatInfo,
} from './budget/texture-format';
// Errors.
export {
  isAbortError,
  type RuntimeErrorCode,
  TesseraConfigError,
  type TesseraConfigErrorCode,
  TesseraError,
  type TesseraErrorCode,
  TileSourceError,
  type TileSourceErrorCode,
} from './errors';
// Streamed ordinary textures: the mip source contract, the backend contract, planning, lifetimes, transitions.
export {
  type EncodedPyramidSource,
  type Etc1sPyramidFormat,
  levelByteLength,
  type MipPyramidSource,
  type StreamedTextureFormat,
  type UastcPyramidFormat,
} from './streaming/mip-pyramid-source';
export { wantedMipLevel } from './streaming/need/wanted-mip';
export type {
  MipStreamingPlannerOptions,
  StreamedTextureDescriptor,
} from './streaming/planning/mip-streaming-options';
export { MipStreamingPlanner } from './streaming/planning/mip-streaming-planner';
export type { StreamingBackend } from './streaming/streaming-backend';
export { type LifetimePolicy, StaleSweep, type StaleSweepOptions } from './streaming/sweep/stale-sweep';
export { ManagedTextureRegistry, type RegisterTextureOptions } from './streaming/texture-registry';
export {
  type SceneTextureSet,
  SceneTransition,
  type SceneTransitionOptions,
  type TransitionOrder,
  type TransitionPhase,
} from './streaming/transitions/scene-transition';
// Structures: the typed event emitter behind every `events` property.
export { type Listener, TypedEmitter } from './structures/typed-emitter';
// Virtual textures: debug images.
export { paintFeedbackImage } from './vt/debug/feedback-image';
export { writeMipColour } from './vt/debug/mip-palette';
export { paintResidencyImage } from './vt/debug/residency-image';
// Virtual textures: feedback (the mip rule the sampler and the feedback share, the jitter, the bias).
export {
  FeedbackAnalyzer,
  type FeedbackAnalyzerOptions,
  type FeedbackStats,
} from './vt/feedback/feedback-analyzer';
export { FEEDBACK_JITTER_PERIOD, feedbackJitterX, feedbackJitterY } from './vt/feedback/feedback-jitter';
export { MipBiasController, type MipBiasOptions } from './vt/feedback/mip-bias-controller';
export { type FilterMode, type MipRule, mipRule } from './vt/feedback/mip-rule';
// Virtual textures: addressing.
export {
  MAX_VIRTUAL_TEXTURES,
  NO_REQUEST,
  type PageAddress,
  packPageId,
  pageMip,
  pageVt,
  pageX,
  pageY,
  unpackPageId,
} from './vt/page-id';
export type { UvRect } from './vt/page-rect';
export { PageTable } from './vt/page-table/page-table';
// Virtual textures: the page table and its entries (what a custom sampler decodes).
export { PageTableAtlas } from './vt/page-table/page-table-atlas';
export type { PageTableStorage } from './vt/page-table/page-table-blocks';
export { EMPTY_ENTRY, entryMip, entrySlot } from './vt/page-table/page-table-entry';
// Virtual textures: the physical pool and its replacement policies.
export { createReplacementPolicy, REPLACEMENT_POLICIES } from './vt/residency/create-replacement-policy';
export { LhdPolicy } from './vt/residency/lhd-policy';
export { LruPolicy } from './vt/residency/lru-policy';
export { PhysicalPool, type PhysicalPoolOptions } from './vt/residency/physical-pool';
export type { PoolTexelFormat } from './vt/residency/pool-format';
export type {
  ReplacementPolicy,
  ReplacementPolicyFactory,
  ReplacementPolicyName,
  SlotTableView,
} from './vt/residency/replacement-policy';
export type { ResidencySchedulerOptions, SchedulerStats } from './vt/scheduling/residency-scheduler';
// Virtual textures: the streamer that runs the stages, its events, and the tile source contract.
export type {
  PageEvent,
  StreamerErrorEvent,
  StreamerEvents,
  TileUploadHandler,
  UploadAdmission,
} from './vt/streamer-events';
export { tileBytes } from './vt/tile-bytes';
export type {
  NormalChannels,
  TileData,
  TileEncoding,
  TileLayerInfo,
  TileLayerUsage,
  TileSource,
  TileSourceInfo,
  TileSourceRequestCounters,
} from './vt/tile-source';
export {
  type StreamerStats,
  type TextureRegistration,
  type TextureRegistrationOptions,
  VirtualTextureStreamer,
  type VirtualTextureStreamerOptions,
} from './vt/virtual-texture-streamer';
export {
  type FeedbackMode,
  planVirtualTextureBudget,
  type VirtualTextureBudgetInput,
  type VirtualTextureBudgetPlan,
} from './vt/vt-budget-plan';
export { VirtualTextureLayout, type VirtualTextureLayoutOptions } from './vt/vt-layout';
