/**
 * Waiting in real time for something the system under test does by itself. The timers and the clock used here are
 * the real ones, taken when this module loads: a wait still ends while a test has installed sinon's fake timers.
 */
import sinon from 'sinon';

const realSetTimeout = globalThis.setTimeout;
const realClearTimeout = globalThis.clearTimeout;
const realNow = performance.now.bind(performance);

/** setTimeout and clearTimeout as they were before any fake timers: for a test's own guards. */
export const realTimers = { setTimeout: realSetTimeout, clearTimeout: realClearTimeout };

/** Resolves once `pred` holds (checked every 10 ms), or rejects after `ms`. */
export async function waitFor(pred: () => boolean, ms = 5000, what = 'a condition'): Promise<void> {
  const end = realNow() + ms;
  while (!pred()) {
    if (realNow() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => realSetTimeout(r, 10));
  }
}

/**
 * Sinon's fake timers for the timers of the code under test: setTimeout, clearTimeout and Date stand still until
 * the test moves them (`tickAsync`), starting from the real now. Everything else stays real (setImmediate,
 * setInterval, process.nextTick, I/O), so servers, sockets and Node-RED's message passing go on as usual. Install
 * them before the code under test starts the timers they are to drive; `restore()` them after.
 */
export function fakeTimers(): sinon.SinonFakeTimers {
  return sinon.useFakeTimers({ now: Date.now(), toFake: ['setTimeout', 'clearTimeout', 'Date'] });
}
