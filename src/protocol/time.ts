/** Injected clock (ms since epoch), so TTL and ordering tests do not sleep. */
export type Clock = () => number;
export const systemClock: Clock = () => Date.now();
export const iso = (ms: number): string => new Date(ms).toISOString();
