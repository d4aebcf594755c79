/**
 * The budget bar: one horizontal bar whose full width is the budget, with a segment per budget
 * category (streamed textures split by lifetime tag), and a line of text with the figures.
 */

import { CATEGORY_COLOURS as COLOURS } from './memory-series';

const TAG_COLOURS = ['#46c28e', '#2e8f66', '#7fd6b0', '#1f6b4c'];

const MIB = 1024 * 1024;

/** The bar's DOM and its update. */
export class BudgetBar {
  readonly element = document.createElement('div');
  private readonly bar = document.createElement('div');
  private readonly label = document.createElement('div');

  constructor() {
    this.element.style.cssText =
      'position:fixed;left:8px;right:260px;top:8px;font:12px system-ui,sans-serif;color:#eef;pointer-events:none;text-shadow:0 1px 2px #000';
    this.bar.style.cssText =
      'height:12px;background:#0008;border:1px solid #fff6;display:flex;overflow:hidden';
    this.element.append(this.bar, this.label);
  }

  /** Redraws for `byCategory` (streamed replaced by `byTag` segments) against `budgetBytes`. */
  update(budgetBytes: number, byCategory: Record<string, number>, byTag: Record<string, number>): void {
    const segments: Array<[string, number, string]> = [];
    let used = 0;
    for (const [category, bytes] of Object.entries(byCategory)) {
      used += bytes;
      if (category === 'streamed' && Object.keys(byTag).length > 0) continue;
      if (bytes > 0) segments.push([category, bytes, COLOURS[category] ?? '#888']);
    }
    let tagIndex = 0;
    for (const [tag, bytes] of Object.entries(byTag)) {
      if (bytes > 0) segments.push([tag, bytes, TAG_COLOURS[tagIndex++ % TAG_COLOURS.length]]);
    }
    this.bar.replaceChildren(
      ...segments.map(([name, bytes, colour]) => {
        const segment = document.createElement('div');
        segment.title = `${name}: ${(bytes / MIB).toFixed(1)} MiB`;
        segment.style.cssText = `width:${(100 * bytes) / Math.max(budgetBytes, used)}%;background:${colour};border-right:1px solid #0006`;
        return segment;
      }),
    );
    const parts = segments.map(([name, bytes]) => `${name} ${(bytes / MIB).toFixed(1)}`).join(' · ');
    this.label.textContent = `${(used / MIB).toFixed(1)} / ${(budgetBytes / MIB).toFixed(0)} MiB  (${parts})`;
    this.bar.style.borderColor = used > budgetBytes ? '#f44' : '#fff6';
  }
}
