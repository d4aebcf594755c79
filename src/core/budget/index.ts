/** One VRAM budget: exact texture bytes, categories, tags, priorities and reservations. */
export * from './budget-category';
export * from './budget-priority';
export * from './tag-registry';
export * from './texture-budget';
export * from './texture-budget-options';
export * from './texture-bytes';
export * from './texture-format';
