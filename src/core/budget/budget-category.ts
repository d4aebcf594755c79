/** What a reservation in the {@link TextureBudget} pays for. */
export type BudgetCategory =
  | 'vt-pool'
  | 'page-table'
  | 'feedback'
  | 'readback'
  | 'staging'
  | 'streamed'
  | 'other';

/** All categories, in the order of their integer indices. */
export const BUDGET_CATEGORIES: readonly BudgetCategory[] = [
  'vt-pool',
  'page-table',
  'feedback',
  'readback',
  'staging',
  'streamed',
  'other',
];

const CATEGORY_INDEX: Readonly<Record<BudgetCategory, number>> = {
  'vt-pool': 0,
  'page-table': 1,
  feedback: 2,
  readback: 3,
  staging: 4,
  streamed: 5,
  other: 6,
};

/** Integer index of `category`, or -1 when it is not a category. */
export function budgetCategoryIndex(category: BudgetCategory): number {
  return Object.hasOwn(CATEGORY_INDEX, category) ? CATEGORY_INDEX[category] : -1;
}
