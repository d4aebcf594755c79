/** Mip streaming of ordinary three.js textures under one VRAM budget. */
export * from './chain-texture';
export * from './material-bindings';
export * from './screen-need';
export * from './streamed-texture';
export * from './streaming-transition';
export * from './texture-streaming-system';
