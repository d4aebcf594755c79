/**
 * The HUD's live memory timeline: the last {@link TIMELINE_SECONDS} of the budget as a canvas plot,
 * used bytes stacked by category and by region tag, the budget line, and during a transition the
 * naive order's peak (the new region fully loaded before the old is released) drawn beside the
 * actual curve. Samples go into a preallocated ring; one budget snapshot per sample (20 a second),
 * nothing allocated per frame.
 */

import type { TextureBudget } from '@tessera-vt/tessera';
import type { TransitionEstimate } from '../scenes/region-scenes';
import { MemoryHistory } from './memory-history';
import { fillMemoryRow, MEMORY_SERIES } from './memory-series';

/** Seconds of history shown. */
export const TIMELINE_SECONDS = 20;
/** Samples per second. */
const SAMPLES_PER_SECOND = 20;
const WIDTH = 360;
const HEIGHT = 150;
const LEGEND_HEIGHT = 28;
const MIB = 1024 * 1024;

/** The timeline's canvas and its sampling. */
export class MemoryTimeline {
  /** The plot (`data-hud="memory-timeline"`). */
  readonly canvas = document.createElement('canvas');
  readonly history = new MemoryHistory(TIMELINE_SECONDS * SAMPLES_PER_SECOND, MEMORY_SERIES.length);
  private readonly context: CanvasRenderingContext2D;
  private seconds = 0;
  private nextSample = 0;

  constructor() {
    const ratio = Math.min(2, globalThis.devicePixelRatio || 1);
    this.canvas.width = WIDTH * ratio;
    this.canvas.height = HEIGHT * ratio;
    this.canvas.dataset.hud = 'memory-timeline';
    this.canvas.setAttribute('aria-label', 'memory timeline');
    this.canvas.style.cssText = `position:fixed;left:8px;top:64px;width:${WIDTH}px;height:${HEIGHT}px;background:#000a;border:1px solid #fff4;pointer-events:none;z-index:5`;
    const context = this.canvas.getContext('2d');
    if (!context) throw new Error('2D canvas unavailable for the memory timeline');
    context.scale(ratio, ratio);
    this.context = context;
  }

  /** Advances `dt` seconds; samples `budget` (and the transition's estimate) and redraws when due. */
  update(dt: number, budget: TextureBudget, estimate: TransitionEstimate | null): void {
    this.seconds += dt;
    if (this.seconds < this.nextSample) return;
    this.nextSample = this.seconds + 1 / SAMPLES_PER_SECOND;
    const stats = budget.stats();
    const row = this.history.push(
      this.seconds,
      stats.budgetBytes,
      estimate ? estimate.naivePeakBytes : Number.NaN,
    );
    fillMemoryRow(stats, row);
    this.draw();
  }

  private draw(): void {
    const c = this.context;
    const h = this.history;
    c.clearRect(0, 0, WIDTH, HEIGHT);
    this.drawLegend();
    if (h.count < 2) return;
    const top = LEGEND_HEIGHT;
    const plotHeight = HEIGHT - top - 2;
    const scale = plotHeight / Math.max(1, h.maxBytes() * 1.05);
    const end = h.timeAt(h.count - 1);
    const x = (i: number) => WIDTH - ((end - h.timeAt(i)) / TIMELINE_SECONDS) * WIDTH;
    const y = (bytes: number) => HEIGHT - 2 - bytes * scale;
    // Stacked bands, top band first so each lower one paints over the area below its own top.
    for (let s = MEMORY_SERIES.length - 1; s >= 0; s--) {
      c.beginPath();
      c.moveTo(x(0), y(0));
      for (let i = 0; i < h.count; i++) c.lineTo(x(i), y(h.stackedAt(i, s)));
      c.lineTo(x(h.count - 1), y(0));
      c.closePath();
      c.fillStyle = MEMORY_SERIES[s].colour;
      c.fill();
    }
    c.lineWidth = 1.5;
    c.strokeStyle = '#ff5050';
    c.setLineDash([]);
    this.strokeSeries((i) => h.budgetAt(i), x, y);
    c.strokeStyle = '#ffd000';
    c.setLineDash([5, 3]);
    this.strokeSeries((i) => h.naiveAt(i), x, y);
    c.setLineDash([]);
    c.fillStyle = '#eef';
    c.font = '10px system-ui,sans-serif';
    const used = h.stackedAt(h.count - 1, MEMORY_SERIES.length - 1);
    c.fillText(`${(used / MIB).toFixed(1)} / ${(h.budgetAt(h.count - 1) / MIB).toFixed(0)} MiB`, 4, top + 10);
  }

  /** Strokes `value` over the samples, leaving gaps where it is NaN. */
  private strokeSeries(
    value: (i: number) => number,
    x: (i: number) => number,
    y: (b: number) => number,
  ): void {
    const c = this.context;
    c.beginPath();
    let drawing = false;
    for (let i = 0; i < this.history.count; i++) {
      const v = value(i);
      if (Number.isNaN(v)) {
        drawing = false;
        continue;
      }
      const px = x(i);
      const py = Math.max(LEGEND_HEIGHT, y(v));
      if (drawing) c.lineTo(px, py);
      else c.moveTo(px, py);
      drawing = true;
    }
    c.stroke();
  }

  private drawLegend(): void {
    const c = this.context;
    c.font = '9px system-ui,sans-serif';
    let lx = 4;
    let ly = 9;
    const entries = [
      ['budget', '#ff5050'],
      ['naive order peak', '#ffd000'],
    ] as const;
    for (const [label, colour] of entries) lx = this.legendEntry(label, colour, lx, ly);
    for (const series of MEMORY_SERIES) {
      const label = series.label.replace('scene:', '');
      if (label.startsWith('streamed')) continue;
      if (lx + c.measureText(label).width + 14 > WIDTH) {
        lx = 4;
        ly += 11;
      }
      lx = this.legendEntry(label, series.colour, lx, ly);
    }
  }

  private legendEntry(label: string, colour: string, x: number, y: number): number {
    const c = this.context;
    c.fillStyle = colour;
    c.fillRect(x, y - 7, 7, 7);
    c.fillStyle = '#dde';
    c.fillText(label, x + 9, y);
    return x + 14 + c.measureText(label).width;
  }
}
