/**
 * Priorities of budget requests and of the data shedders free: a request may only make shedders of
 * strictly lower priority give memory back. Higher numbers win.
 */
export const BudgetPriority = {
  /** Finer mips of streamed textures beyond their pinned level: the first data to go. */
  streamedMips: 10,
  /** Loads of a scene transition (the next scene's coarse mips). */
  transition: 30,
  /** Default for reservations that pass no priority. */
  normal: 50,
  /** Virtual-texture pools, page tables, feedback and readback buffers. */
  infrastructure: 80,
  /** Pinned smallest mips and other data that must exist to render at all. */
  pinned: 100,
} as const;
