/** Median of `xs` for the Node benchmarks (the upper middle one for an even count). */
export const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
