/**
 * The sleep both live waits take between looks (live/wait.ts, live/change-wait.ts): up to `ms`, ended early by
 * `wake` — which a hub's watcher calls when the room changes, and an abort signal when the client goes.
 */
export function nap(ms: number): { done: Promise<void>; wake: () => void } {
  let wake = () => {};
  const done = new Promise<void>((resolve) => {
    const timer = setTimeout(resolve, ms);
    wake = () => {
      clearTimeout(timer);
      resolve();
    };
  });
  return { done, wake };
}
