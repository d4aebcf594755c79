/** Generic allocation-free structures: indexed heap, intrusive lists, integer maps, typed events. */
export * from './frame-waiters';
export * from './indexed-heap';
export * from './intrusive-list';
export * from './page-index-map';
export * from './typed-emitter';
