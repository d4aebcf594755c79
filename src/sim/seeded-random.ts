/**
 * Small seeded pseudo-random generator (mulberry32) so that every simulated run, camera path and
 * tile failure is reproducible from one integer seed. Not for cryptography.
 */
export class SeededRandom {
  private state: number;

  /** @param seed any integer; the same seed always yields the same sequence. */
  constructor(seed: number) {
    this.state = seed >>> 0;
  }

  /** Next value in [0, 1). */
  next(): number {
    this.state = (this.state + 0x6d2b79f5) >>> 0;
    let t = this.state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }

  /** Next value in [min, max). */
  range(min: number, max: number): number {
    return min + (max - min) * this.next();
  }

  /** Next integer in [0, n). */
  int(n: number): number {
    return Math.floor(this.next() * n);
  }
}
