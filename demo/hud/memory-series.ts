/**
 * The memory timeline's stacked series: the budget's categories (streamed textures split by region
 * tag) in drawing order, bottom first, with their colours, and how one budget snapshot fills a
 * sample row.
 */

import { REGION_NAMES, regionTag } from '../regions';

/** One stacked band of the timeline. */
export interface MemorySeries {
  /** Legend text. */
  label: string;
  /** CSS colour. */
  colour: string;
}

/** Colours of the budget categories (shared with the budget bar). */
export const CATEGORY_COLOURS: Readonly<Record<string, string>> = {
  'vt-pool': '#4fa3ff',
  'page-table': '#9b7bff',
  feedback: '#ff9f43',
  readback: '#ffcd56',
  staging: '#c0c0c0',
  streamed: '#46c28e',
  other: '#888',
};

/** Colours of the region tags' streamed bytes, in {@link REGION_NAMES} order. */
const REGION_COLOURS = ['#46c28e', '#e0a040', '#e8f0ff'];

/** Categories drawn as their own band (streamed is drawn per region tag instead), bottom first. */
const CATEGORY_BANDS = ['vt-pool', 'page-table', 'feedback', 'readback', 'staging', 'other'] as const;

/** The bands, bottom first: categories, then streamed bytes per region, then other streamed bytes. */
export const MEMORY_SERIES: readonly MemorySeries[] = [
  ...CATEGORY_BANDS.map((category) => ({ label: category, colour: CATEGORY_COLOURS[category] })),
  ...REGION_NAMES.map((name, i) => ({ label: regionTag(name), colour: REGION_COLOURS[i] })),
  { label: 'streamed (placeholders, untagged)', colour: '#2a6e50' },
];

/** What a sample is read from: a budget snapshot's figures by category and by tag, bytes. */
export interface BudgetFigures {
  byCategory: Readonly<Record<string, number>>;
  byTag: Readonly<Record<string, number>>;
}

/** Fills `row` (one value per {@link MEMORY_SERIES} entry) from `figures`. */
export function fillMemoryRow(figures: BudgetFigures, row: Float64Array): void {
  let i = 0;
  for (const category of CATEGORY_BANDS) row[i++] = figures.byCategory[category] ?? 0;
  let tagged = 0;
  for (const name of REGION_NAMES) {
    const bytes = figures.byTag[regionTag(name)] ?? 0;
    row[i++] = bytes;
    tagged += bytes;
  }
  row[i] = Math.max(0, (figures.byCategory.streamed ?? 0) - tagged);
}
