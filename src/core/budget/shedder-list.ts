import type { BudgetShedder } from './texture-budget-options';

/** What a {@link ShedderList} reads while shedding: the live figure, which each shed lowers. */
interface LiveBytes {
  readonly liveBytes: number;
}

/**
 * The shedders of a {@link TextureBudget}, lowest priority first, and the one shedding pass that
 * may run at a time (a shedder releasing memory can make the budget admit a queued request,
 * which must not start a nested pass).
 */
export class ShedderList {
  private readonly shedders: BudgetShedder[] = [];
  private shedding = false;

  /** Adds `shedder` after those of lower or equal priority. */
  add(shedder: BudgetShedder): void {
    let at = this.shedders.length;
    while (at > 0 && this.shedders[at - 1].priority > shedder.priority) at--;
    this.shedders.splice(at, 0, shedder);
  }

  /** Removes `shedder` (no-op when absent). */
  remove(shedder: BudgetShedder): void {
    const at = this.shedders.indexOf(shedder);
    if (at >= 0) this.shedders.splice(at, 1);
  }

  /**
   * Asks shedders of priority below `belowPriority`, lowest first, to free `bytes` bytes of
   * `budget`, each for what is still missing, until the live figure has dropped by that much.
   * No-op while a pass is running.
   */
  ask(budget: LiveBytes, bytes: number, belowPriority: number): void {
    if (this.shedding) return;
    this.shedding = true;
    try {
      const target = budget.liveBytes - bytes;
      for (let i = 0; i < this.shedders.length && budget.liveBytes > target; i++) {
        const shedder = this.shedders[i];
        if (shedder.priority >= belowPriority) break;
        shedder.shed(budget.liveBytes - target);
      }
    } finally {
      this.shedding = false;
    }
  }
}
