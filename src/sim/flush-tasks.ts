/**
 * Resolves after every pending promise callback has run (one macrotask turn), so tile loads that
 * settled in the simulated source reach the streamer before the simulator goes on. Uses
 * `setImmediate` where it exists (Node), else a `MessageChannel` turn, else `setTimeout(0)`.
 */
export function flushTasks(): Promise<void> {
  const g = globalThis as {
    setImmediate?: (callback: () => void) => unknown;
    MessageChannel?: typeof MessageChannel;
  };
  if (typeof g.setImmediate === 'function') {
    const setImmediate = g.setImmediate;
    return new Promise((resolve) => {
      setImmediate(resolve);
    });
  }
  if (typeof g.MessageChannel === 'function') {
    const channel = new g.MessageChannel();
    return new Promise((resolve) => {
      channel.port1.onmessage = () => {
        channel.port1.close();
        resolve();
      };
      channel.port2.postMessage(null);
    });
  }
  return new Promise((resolve) => setTimeout(resolve, 0));
}
