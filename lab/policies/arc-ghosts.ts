import { IntrusiveList } from '../../src/core/structures/intrusive-list';
import { PageIndexMap } from '../../src/core/structures/page-index-map';
import { NO_REQUEST } from '../../src/core/vt/page-id';

/** Ghost list a page id is in: {@link ArcGhosts.RECENT} (B1) or {@link ArcGhosts.FREQUENT} (B2). */
export type GhostList = 1 | 2;

/**
 * ARC's ghost lists B1 and B2: page ids recently evicted from T1 (seen in one visit) and T2 (seen
 * in two or more), oldest first, without their data. A ghost hit tells ARC which of its two lists
 * was too small. Page ids are looked up in a {@link PageIndexMap}; typed arrays only.
 */
export class ArcGhosts {
  /** B1: evicted after one visit. */
  static readonly RECENT = 1;
  /** B2: evicted after two or more visits. */
  static readonly FREQUENT = 2;
  private readonly byPage: PageIndexMap;
  private readonly pages: Uint32Array;
  private readonly listOf: Uint8Array;
  private readonly b1: IntrusiveList;
  private readonly b2: IntrusiveList;
  private readonly unused: IntrusiveList;

  /** Room for `capacity` ghosts in both lists together. */
  constructor(capacity: number) {
    this.byPage = new PageIndexMap(capacity);
    this.pages = new Uint32Array(capacity).fill(NO_REQUEST);
    this.listOf = new Uint8Array(capacity);
    this.b1 = new IntrusiveList(capacity);
    this.b2 = new IntrusiveList(capacity);
    this.unused = new IntrusiveList(capacity);
    for (let i = 0; i < capacity; i++) this.unused.pushBack(i);
  }

  /** Ghosts in B1. */
  get recentSize(): number {
    return this.b1.size;
  }

  /** Ghosts in B2. */
  get frequentSize(): number {
    return this.b2.size;
  }

  /** List holding `pageId`'s ghost, or 0 when it has none. */
  find(pageId: number): number {
    const e = this.byPage.get(pageId);
    return e < 0 ? 0 : this.listOf[e];
  }

  /** Adds `pageId` as the newest ghost of `list` (drops the oldest ghost overall if full). */
  add(pageId: number, list: GhostList): void {
    this.forget(pageId);
    let e = this.unused.popFront();
    if (e < 0) {
      this.dropOldest(this.b1.size >= this.b2.size ? ArcGhosts.RECENT : ArcGhosts.FREQUENT);
      e = this.unused.popFront();
    }
    this.pages[e] = pageId;
    this.listOf[e] = list;
    this.byPage.set(pageId, e);
    (list === ArcGhosts.RECENT ? this.b1 : this.b2).pushBack(e);
  }

  /** Removes `pageId`'s ghost, if any. */
  forget(pageId: number): void {
    const e = this.byPage.get(pageId);
    if (e < 0) return;
    this.byPage.delete(pageId);
    (this.listOf[e] === ArcGhosts.RECENT ? this.b1 : this.b2).remove(e);
    this.listOf[e] = 0;
    this.pages[e] = NO_REQUEST;
    this.unused.pushBack(e);
  }

  /** Drops the oldest ghost of `list`, if any. */
  dropOldest(list: GhostList): void {
    const e = (list === ArcGhosts.RECENT ? this.b1 : this.b2).head;
    if (e >= 0) this.forget(this.pages[e]);
  }
}
