import type { MipStreamingPlanner, StreamingBackend } from '../../../src/core/index';

/** Records allocations and frees; completes loads after `latencyFrames` ticks; can fail chosen loads. */
export class FakeBackend implements StreamingBackend {
  planner?: MipStreamingPlanner;
  readonly allocations: { id: number; firstMip: number; mipCount: number }[] = [];
  readonly frees: { id: number; firstMip: number }[] = [];
  readonly releases: number[] = [];
  readonly failIds = new Set<number>();
  private pending: { id: number; firstMip: number; due: number }[] = [];
  private frame = 0;

  constructor(private readonly latencyFrames = 0) {}

  allocate(id: number, firstMip: number, mipCount: number): void {
    this.allocations.push({ id, firstMip, mipCount });
    if (this.latencyFrames === 0) this.finish(id, firstMip);
    else this.pending.push({ id, firstMip, due: this.frame + this.latencyFrames });
  }

  free(id: number, firstMip: number): void {
    this.frees.push({ id, firstMip });
  }

  release(id: number): void {
    this.releases.push(id);
  }

  /** Advance one frame, completing due loads. */
  tick(): void {
    this.frame++;
    const due = this.pending.filter((p) => p.due <= this.frame);
    this.pending = this.pending.filter((p) => p.due > this.frame);
    for (const p of due) this.finish(p.id, p.firstMip);
  }

  private finish(id: number, firstMip: number): void {
    this.planner?.completeLoad(
      id,
      firstMip,
      this.failIds.has(id) ? new Error('fake load failure') : undefined,
    );
  }
}
