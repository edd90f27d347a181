/**
 * Bridges between the shared bodies (Op) and a driver's own modules while the drivers move onto the shared bodies
 * area by area: a body's ops run through the driver's runner, and a driver function becomes a step.
 */
import { done, type Op, runAsync, runSync } from "./run.ts";

type Fn = (...args: never[]) => unknown;

export type Synced<T> = {
  [K in keyof T]: T[K] extends (...args: infer A) => Op<infer R> ? (...args: A) => R : T[K];
};
export type Awaited<T> = {
  [K in keyof T]: T[K] extends (...args: infer A) => Op<infer R> ? (...args: A) => Promise<R> : T[K];
};

function mapOps<T extends object>(ops: T, wrap: (fn: Fn) => Fn): T {
  const out: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(ops)) {
    out[name] =
      typeof value === "function" && value.constructor.name === "GeneratorFunction"
        ? wrap(value as Fn)
        : value;
  }
  return out as T;
}

/** The ops of `ops` run to completion synchronously (SQLite). */
export const synced = <T extends object>(ops: T): Synced<T> =>
  mapOps(
    ops,
    (fn) =>
      (...args) =>
        runSync(fn(...args) as Op<unknown>),
  ) as Synced<T>;

/** The ops of `ops` as promises (PostgreSQL). */
export const awaited = <T extends object>(ops: T): Awaited<T> =>
  mapOps(
    ops,
    (fn) =>
      (...args) =>
        runAsync(fn(...args) as Op<unknown>),
  ) as Awaited<T>;

/** A synchronous driver function as a step. */
export const stepOf =
  <A extends unknown[], R>(fn: (...args: A) => R) =>
  (...args: A): Op<R> =>
    done(fn(...args));

/** An asynchronous driver function as a step. */
export const asyncStepOf = <A extends unknown[], R>(fn: (...args: A) => Promise<R>) =>
  function* (...args: A): Op<R> {
    return (yield fn(...args)) as R;
  };
