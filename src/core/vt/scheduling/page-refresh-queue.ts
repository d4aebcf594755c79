import { PageIndexMap } from '../../structures/page-index-map';
import { NO_REQUEST } from '../page-id';

/**
 * Resident pages whose content changed and must be produced again (an invalidated rectangle of a
 * rendered texture), in the order they were marked, each at most once. Page ids are integers; the
 * ring and the membership map grow by doubling (rarely, never per frame in steady state), so
 * marking and taking allocate nothing.
 */
export class PageRefreshQueue {
  private ring: Uint32Array;
  private members: PageIndexMap;
  private head = 0;
  private count = 0;

  /** @param capacity pages held before the first growth. */
  constructor(capacity = 256) {
    const size = Math.max(8, capacity);
    this.ring = new Uint32Array(size);
    this.members = new PageIndexMap(size);
  }

  /** Pages waiting. */
  get size(): number {
    return this.count;
  }

  /** True when `pageId` waits. */
  has(pageId: number): boolean {
    return this.members.get(pageId) >= 0;
  }

  /** Marks `pageId` (a page already waiting keeps its place). Returns true when newly added. */
  add(pageId: number): boolean {
    if (this.members.get(pageId) >= 0) return false;
    if (this.count === this.ring.length) this.grow();
    this.ring[(this.head + this.count) % this.ring.length] = pageId;
    this.count++;
    this.members.set(pageId, 0);
    return true;
  }

  /** Removes and returns the oldest page, or {@link NO_REQUEST} when none waits. */
  take(): number {
    if (this.count === 0) return NO_REQUEST;
    const pageId = this.ring[this.head];
    this.head = (this.head + 1) % this.ring.length;
    this.count--;
    this.members.delete(pageId);
    return pageId;
  }

  /** Forgets every page of texture `vt` (it was removed) or, with no argument, every page. */
  clear(vt = -1): void {
    if (vt < 0) {
      this.head = 0;
      this.count = 0;
      this.members.clear();
      return;
    }
    for (let n = this.count; n > 0; n--) {
      const pageId = this.take();
      if (pageId >>> 28 !== vt) this.add(pageId);
    }
  }

  private grow(): void {
    const ring = new Uint32Array(this.ring.length * 2);
    const members = new PageIndexMap(ring.length);
    for (let i = 0; i < this.count; i++) {
      const pageId = this.ring[(this.head + i) % this.ring.length];
      ring[i] = pageId;
      members.set(pageId, 0);
    }
    this.ring = ring;
    this.members = members;
    this.head = 0;
  }
}
