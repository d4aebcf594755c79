import { IntrusiveList } from '../../structures/intrusive-list';
import { PageIndexMap } from '../../structures/page-index-map';
import { NO_REQUEST } from '../page-id';

/**
 * Pages LHD evicted, remembered without their data: class, last use and the idle age at which
 * each was evicted, oldest first. A page that comes back while remembered tells at which age it
 * would have been a hit had it stayed; one forgotten (the oldest, when full) counts as an eviction
 * at the age it was evicted. Without this, a policy that evicts before a loop closes never
 * observes the loop. Typed arrays and a {@link PageIndexMap}; O(1) per operation.
 */
export class LhdGhosts {
  private readonly byPage: PageIndexMap;
  private readonly pages: Uint32Array;
  private readonly classes: Uint16Array;
  private readonly lastUses: Int32Array;
  private readonly evictionAges: Int32Array;
  private readonly age: IntrusiveList;
  private readonly unused: IntrusiveList;
  /** Class of the ghost found by the latest {@link take}. */
  takenClass = 0;
  /** Last use of the ghost found by the latest {@link take}, in frames. */
  takenLastUse = 0;
  /** Class of the ghost dropped by the latest {@link add}, or -1 when none was. */
  droppedClass = -1;
  /** Idle age at eviction of the ghost dropped by the latest {@link add}, in frames. */
  droppedAge = 0;

  /** Room for `capacity` ghosts (at least 1). */
  constructor(capacity: number) {
    this.byPage = new PageIndexMap(capacity);
    this.pages = new Uint32Array(capacity).fill(NO_REQUEST);
    this.classes = new Uint16Array(capacity);
    this.lastUses = new Int32Array(capacity);
    this.evictionAges = new Int32Array(capacity);
    this.age = new IntrusiveList(capacity);
    this.unused = new IntrusiveList(capacity);
    for (let g = 0; g < capacity; g++) this.unused.pushBack(g);
  }

  /** Ghosts held. */
  get size(): number {
    return this.age.size;
  }

  /**
   * Remembers `pageId` (class `cls`, last used at `lastUse`, evicted after `evictionAge` idle
   * frames). When full, the oldest ghost is dropped first and reported in `dropped*`.
   */
  add(pageId: number, cls: number, lastUse: number, evictionAge: number): void {
    this.droppedClass = -1;
    let g = this.unused.popFront();
    if (g < 0) {
      g = this.age.head;
      this.droppedClass = this.classes[g];
      this.droppedAge = this.evictionAges[g];
      this.forget(g);
      this.unused.remove(g);
    }
    this.pages[g] = pageId;
    this.classes[g] = cls;
    this.lastUses[g] = lastUse;
    this.evictionAges[g] = evictionAge;
    this.byPage.set(pageId, g);
    this.age.pushBack(g);
  }

  /** Calls `visit` with every ghost (page id, class, last use, idle age at eviction), oldest first. */
  forEachOldestFirst(
    visit: (pageId: number, cls: number, lastUse: number, evictionAge: number) => void,
  ): void {
    for (let g = this.age.head; g >= 0; g = this.age.next(g)) {
      visit(this.pages[g], this.classes[g], this.lastUses[g], this.evictionAges[g]);
    }
  }

  /** Forgets `pageId`'s ghost; true (with `taken*` set) when there was one. */
  take(pageId: number): boolean {
    const g = this.byPage.get(pageId);
    if (g < 0) return false;
    this.takenClass = this.classes[g];
    this.takenLastUse = this.lastUses[g];
    this.forget(g);
    return true;
  }

  private forget(g: number): void {
    this.byPage.delete(this.pages[g]);
    this.pages[g] = NO_REQUEST;
    this.age.remove(g);
    this.unused.pushBack(g);
  }
}
