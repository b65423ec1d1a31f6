/**
 * The simulator's lifecycle in a describe block, written once: `useSimulator()` starts it (127.0.0.1, port 0)
 * before the block's tests, or before each test with `perTest`, puts back what the tests change between them, and
 * stops it after. No Node-RED here: the simulator's own tests use it too (the node tests use `useRuntime()` from
 * ./runtime, which adds the runtime's part).
 */
import { Simulator, type SimOptions } from '../../sim';
import type { AnalyticsServerOptions } from '../../sim/analytics';
import { setupAnalytics, type ACtx } from '../../sim/analytics/testkit';
import { setup, type Ctx } from '../../sim/testkit';
import { wsSetup, type WsCtx } from '../../sim/ws-client';

export interface Lifecycle<T> {
  /** A fresh value for every test (default: one for the whole block). */
  perTest?: boolean;
  /** Before each test, once the value is there: put back what a test may have changed (request log, counters). */
  reset?(value: T): void | Promise<void>;
  /** After each test, before a per-test value is stopped: undo what a test set up (faults, latency, flows). */
  cleanup?(value: T): void | Promise<void>;
}

/** The value behind each stand-in, for replaceSimulator(). */
const slots = new WeakMap<object, { current: unknown }>();

/**
 * A value made in a mocha hook, usable in the block's code as if it were made at describe time: the returned object
 * forwards every property to the value `start` resolved with last (methods bound to it, so that class instances
 * keep their `this`). The tests then read `sim.url`, `c.tenant` as before, with no `let` assigned in a hook.
 */
export function useFixture<T extends object>(
  start: () => Promise<T>,
  stop: (value: T) => void | Promise<void>,
  life: Lifecycle<T> = {},
): T {
  const slot: { current: T | undefined } = { current: undefined };
  const value = (): T => {
    if (slot.current === undefined)
      throw new Error('a test fixture used outside the tests of the block that starts it');
    return slot.current;
  };
  const stand = new Proxy({} as T, {
    get(_, p) {
      const v = value();
      const got: unknown = Reflect.get(v, p, v);
      return typeof got === 'function' ? got.bind(v) : got;
    },
    set: (_, p, x) => Reflect.set(value(), p, x),
    has: (_, p) => Reflect.has(value(), p),
  });
  slots.set(stand, slot);

  const up = async (): Promise<void> => {
    slot.current = await start();
  };
  const down = async (): Promise<void> => {
    const v = slot.current;
    slot.current = undefined;
    if (v !== undefined) await stop(v);
  };
  if (life.perTest) beforeEach(up);
  else before(up);
  if (life.reset) beforeEach(() => life.reset!(value()));
  afterEach(async () => {
    if (life.cleanup && slot.current !== undefined) await life.cleanup(slot.current);
    if (life.perTest) await down();
  });
  if (!life.perTest) after(down);
  return stand;
}

/** A simulator started on a free loopback port. */
export async function startSimulator(options: SimOptions = {}): Promise<Simulator> {
  const sim = new Simulator(options);
  await sim.start();
  return sim;
}

/** The simulator of a describe block (see the file's comment); stopped after the block, or after each test. */
export function useSimulator(options: SimOptions = {}, life: Lifecycle<Simulator> = {}): Simulator {
  return useFixture(
    () => startSimulator(options),
    (sim) => sim.stop(),
    life,
  );
}

/**
 * Stops a fixture's simulator and puts another in its place (e.g. restarted on the same port with other keys);
 * the fixture stops the new one when the old one would have been.
 */
export async function replaceSimulator(sim: Simulator, options: SimOptions): Promise<Simulator> {
  const slot = slots.get(sim);
  if (!(slot?.current instanceof Simulator)) throw new Error('replaceSimulator: not a running useSimulator() fixture');
  await slot.current.stop();
  const next = await startSimulator(options);
  slot.current = next;
  return next;
}

/** The simulator's own tests: sim/testkit's `setup()` (a fake clock, logged-in clients) as a fixture. */
export function useSimSetup(options: SimOptions = {}, life: Lifecycle<Ctx> = {}): Ctx {
  return useFixture(
    () => setup(options),
    (c) => c.sim.stop(),
    life,
  );
}

/** The simulator's WebSocket tests: sim/ws-client's `wsSetup()` as a fixture (its sockets closed with it). */
export function useWsSetup(options: SimOptions = {}, life: Lifecycle<WsCtx> = {}): WsCtx {
  return useFixture(
    () => wsSetup(options),
    (c) => c.stop(),
    life,
  );
}

/** The analytics service's tests: sim/analytics/testkit's `setupAnalytics()` as a fixture. */
export function useAnalyticsSetup(options: AnalyticsServerOptions = {}, life: Lifecycle<ACtx> = {}): ACtx {
  return useFixture(
    () => setupAnalytics(options),
    (c) => c.a.stop(),
    life,
  );
}
