import { FrameSimulator, type FrameSimulatorOptions } from '../../src/sim/frame-simulator';
import type { RequestTrace } from '../../src/sim/request-trace';

/**
 * A product {@link RequestTrace} with each recorded request's feedback coverage beside it (pixels;
 * 0 for a fallback ancestor): the input of coverage-aware lab policies (`adaptive`). The product
 * trace does not keep coverage, since neither `lhd` nor `lru` uses it.
 */
export interface CoverageTrace {
  readonly trace: RequestTrace;
  /** Coverage of the `i`-th id of {@link trace}, in pixels. */
  readonly coverage: Uint32Array;
}

/** A {@link CoverageTrace} from arrays of ids per frame and their coverages (the same shape). */
export function coverageTraceFromFrames(trace: RequestTrace, coverages: ArrayLike<number>[]): CoverageTrace {
  const coverage = new Uint32Array(trace.length);
  let k = 0;
  for (const frame of coverages) for (let i = 0; i < frame.length; i++) coverage[k++] = frame[i];
  if (k !== trace.length) throw new Error(`coverages hold ${k} entries, the trace ${trace.length}`);
  return { trace, coverage };
}

/**
 * Runs `path` with a pool that holds everything (no eviction) and records its request trace with
 * the coverage of each request: the simulator records the ids, and after each frame that analysed
 * a feedback buffer the streamer's analyzer still holds that analysis, in the order the trace took
 * it, so its coverages are read beside (pinned mips left out, as the trace does).
 */
export async function recordCoverageTrace(
  run: Omit<FrameSimulatorOptions, 'poolSlots'>,
): Promise<CoverageTrace> {
  const sim = new FrameSimulator({ ...run, poolSlots: 65536, recordTrace: true });
  const latency = run.feedbackLatencyFrames ?? 1;
  const firstPinned = sim.pageTable.layout.firstPinnedMip;
  let coverage = new Uint32Array(1 << 16);
  let count = 0;
  for (let f = 0; f < run.path.frames; f++) {
    await sim.step();
    if (f < latency) continue;
    const a = sim.streamer.analyzer;
    for (let i = 0; i < a.count; i++) {
      if (((a.pages[i] >>> 24) & 0xf) >= firstPinned) continue;
      if (count === coverage.length) {
        const grown = new Uint32Array(2 * count);
        grown.set(coverage);
        coverage = grown;
      }
      coverage[count++] = a.coverage[i];
    }
  }
  const trace = sim.report().trace;
  sim.dispose();
  if (!trace) throw new Error('trace not recorded');
  if (trace.length !== count) throw new Error(`coverage of ${count} requests, trace of ${trace.length}`);
  return { trace, coverage: coverage.slice(0, count) };
}
