/** Listener of event `K` of an event map `M`. */
export type Listener<M, K extends keyof M> = (event: M[K]) => void;

/**
 * Minimal typed event emitter: `M` maps event names to payload types. Listeners are stored per
 * name in arrays that are never mutated: {@link on} and {@link off} replace the array, so an emit
 * in progress keeps iterating the one it started with (a listener removing itself, or another,
 * does not make it skip the next one; a listener added during an emit is first called by the next
 * emit). Emitting allocates nothing; adding and removing allocate one array.
 */
export class TypedEmitter<M> {
  private readonly listeners: { [K in keyof M]?: readonly Listener<M, K>[] } = {};

  /** Adds `listener` for `type`; returns a function that removes it. */
  on<K extends keyof M>(type: K, listener: Listener<M, K>): () => void {
    const list = this.listeners[type];
    this.listeners[type] = list ? [...list, listener] : [listener];
    return () => this.off(type, listener);
  }

  /** Removes `listener` from `type` (no-op when absent). */
  off<K extends keyof M>(type: K, listener: Listener<M, K>): void {
    const list = this.listeners[type];
    if (!list) return;
    const i = list.indexOf(listener);
    if (i < 0) return;
    const next = list.slice();
    next.splice(i, 1);
    this.listeners[type] = next;
  }

  /** Calls every listener of `type` with `event`, in registration order. */
  emit<K extends keyof M>(type: K, event: M[K]): void {
    const list = this.listeners[type];
    if (!list) return;
    for (let i = 0; i < list.length; i++) list[i](event);
  }

  /** True when `type` has at least one listener. */
  has<K extends keyof M>(type: K): boolean {
    return (this.listeners[type]?.length ?? 0) > 0;
  }

  /** Removes every listener. */
  clear(): void {
    for (const key of Object.keys(this.listeners)) delete (this.listeners as Record<string, unknown>)[key];
  }
}
