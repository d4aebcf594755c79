/** Mip streaming of ordinary three.js textures under one VRAM budget. */

export * from './need/screen-need';
export * from './sampling/material-bindings';
export * from './streamed-texture';
export * from './texture-streaming-system';
export * from './transitions/streaming-transition';
export * from './uploads/chain-texture';
