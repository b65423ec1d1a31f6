/**
 * The three tb-trigger examples as shipped in examples/, run in the real runtime against the simulator (their
 * connection replaced by the test's, their debug nodes by helper nodes), their deadlines on sinon's fake clock: what
 * each example's comment promises, read in the final text its template node writes. A freezer too warm for 10
 * minutes is told, reminded 3 times at most and said cold again after 2 cold minutes, and a freezer added while
 * the flow runs is watched; a critical alarm nobody acknowledged within 15 minutes is escalated once; a device
 * silent for an hour is told at deploy, and again when it reports.
 */
import assert from 'node:assert/strict';
import type { Node } from 'node-red';
import type sinon from 'sinon';
import type { TbConnectionNode } from '../../src/node-red/connection';
import tbConnection from '../../src/nodes/tb-connection/index';
import tbTrigger from '../../src/nodes/tb-trigger/index';
import { helper, key, loadExample, statuses, useRuntime, type Msg } from '../support/runtime';
import { fakeTimers, realTimers, waitFor } from '../support/wait';

const MIN = 60_000;

const FREEZER = 'Freezer too warm for 10 minutes.json';
const ALARM = 'Alarm not acknowledged in 15 minutes.json';
const SILENT = 'Device silent for an hour.json';

/** A message that reached a helper node: the text its template wrote, and when (ms after the deploy, fake clock). */
interface Heard {
  text: string;
  topic: string;
  entity: unknown;
  at: number;
}

/**
 * Records what reaches a helper node, with the fake clock's time when it arrived. The clock stands still between the
 * test's ticks, which stop at each deadline, and the test waits for each message before it moves the clock on: a
 * message sent at a deadline arrives at that time; one sent in the middle of a tick, at its end (never earlier).
 */
class Listener {
  readonly all: Heard[] = [];
  private waiters: Array<() => void> = [];

  constructor(
    id: string,
    private readonly t0: number,
  ) {
    (helper.getNode(id) as unknown as Node).on('input', (msg: Msg) => {
      this.all.push({ text: String(msg.payload), topic: String(msg.topic), entity: msg.entity, at: Date.now() - t0 });
      for (const w of this.waiters.splice(0)) w();
    });
  }

  /** Message number n (from 0), waited for in real time (the waits of the code under test are on the fake clock). */
  async nth(n: number, ms = 8000): Promise<Heard> {
    const end = performance.now() + ms;
    while (this.all.length <= n) {
      const left = end - performance.now();
      if (left <= 0)
        throw new Error(
          `timed out waiting for message #${n + 1} (got ${this.all.length}: ${this.all.map((h) => h.text).join(' | ')})`,
        );
      await new Promise<void>((resolve) => {
        const t = realTimers.setTimeout(resolve, left);
        this.waiters.push(() => {
          realTimers.clearTimeout(t);
          resolve();
        });
      });
    }
    return this.all[n];
  }

  /** [text, minutes after the deploy] of every message so far. */
  said(): Array<[string, number]> {
    return this.all.map((h) => [h.text, h.at / MIN]);
  }
}

describe('examples: a condition held for a while, tb-trigger (runtime + simulator, fake clock)', function () {
  this.timeout(30000);
  let clock: sinon.SinonFakeTimers | undefined;
  // The simulator's clock is the process's: under fake timers the times of values and alarms follow the fake one. A
  // dynamic query is re-run every 40 ms (of real time): a freezer added while the flow runs is found at once.
  const sim = useRuntime(
    { now: () => Date.now(), wsDynamicRefreshMs: 40 },
    {
      perTest: true,
      cleanup: () => {
        clock?.restore();
        clock = undefined;
      },
    },
  );

  /** The fake clock, from now on: installed before the deploy, so that every deadline of the trigger is on it. */
  const fake = () => {
    clock = fakeTimers();
  };
  const tick = (ms: number) => (clock as sinon.SinonFakeTimers).tickAsync(ms);

  /**
   * Deploys an example with a listener on each of its debug nodes (`outputs`, by name, and "error"), attached as soon
   * as the flow is there, before its trigger has heard from the server; resolves once the trigger has judged its
   * entities (its count shown).
   */
  async function deploy(
    file: string,
    trigger: string,
    outputs: string[],
  ): Promise<{ heard: (name: string) => Listener; error: Listener }> {
    const t0 = Date.now();
    const byName = await loadExample(file, sim.url, [tbConnection, tbTrigger], ['function/80-template.js']);
    const listeners = new Map([...outputs, 'error'].map((name) => [name, new Listener(byName(name).id, t0)]));
    const node = byName(trigger);
    await waitFor(
      () => statuses(node.id).some((s) => s.text === key('triggerTrue')),
      8000,
      `the count of "${trigger}"`,
    );
    return { heard: (name) => listeners.get(name) as Listener, error: listeners.get('error') as Listener };
  }

  /** The live connection's frames read so far: each change below sends one, read before the clock moves on. */
  const frames = () => (helper.getNode('c1') as unknown as TbConnectionNode).live().stats.messages;
  /** Does `change` and waits until the node has read the `n` frames it sends. */
  async function sent(change: () => void, n = 1): Promise<void> {
    const before = frames();
    change();
    await waitFor(() => frames() >= before + n, 5000, 'the change read by the node');
  }

  it('Freezer too warm for 10 minutes: told at 10 min, reminded every 30 min (3 at most), cold again after 2 cold minutes; a new freezer is watched', async () => {
    // The simulator has no freezers: two are set up on the server, as a person would, and report their temperature.
    fake();
    const freezer = (name: string, temperature: number) => {
      const e = sim.data.addEntity({ entityType: 'DEVICE', name, type: 'freezer', label: 'Chest freezer' });
      sim.data.setTelemetry(e.id, { temperature });
      return { entityType: 'DEVICE', id: e.id };
    };
    const one = freezer('Freezer 1', -20);
    const two = freezer('Freezer 2', -18.5);
    const { heard, error } = await deploy(FREEZER, 'too warm 10 min', ['notify', 'all clear']);
    const notify = heard('notify');
    const clear = heard('all clear');
    const setT = (e: { id: string }, temperature: number) => sent(() => sim.data.setTelemetry(e.id, { temperature }));

    // Freezer 1 warms at once; Freezer 2's door is open for a minute (2 to 3 min): nothing for it.
    await setT(one, -12.5);
    await tick(2 * MIN);
    await setT(two, -8);
    await tick(MIN);
    await setT(two, -19);
    await tick(7 * MIN - 1);
    await tick(1);
    const told = await notify.nth(0);
    assert.deepEqual(
      [told.text, told.at, told.entity],
      ['Freezer 1 is too warm: -12.5 °C, above −15 °C for 10 minutes or more.', 10 * MIN, one],
    );
    assert.match(told.topic, /^true: temperature -12\.5 held 10 min \(Freezer 1\)$/);

    // A reminder every 30 min while it stays warm, 3 at most: none at 130 min (the next message is the cold one).
    for (const n of [1, 2, 3]) {
      await tick(30 * MIN);
      const reminder = await notify.nth(n);
      assert.equal(
        reminder.text,
        `Freezer 1 is too warm: -12.5 °C, above −15 °C for 10 minutes or more (reminder ${n}).`,
      );
      assert.equal(reminder.at, (10 + 30 * n) * MIN);
    }
    await tick(40 * MIN);

    // Back at −20 °C for a minute (within the hold-off of 2 min), warm again: nothing. Then 2 cold minutes: cold again.
    await setT(one, -20);
    await tick(MIN);
    await setT(one, -13);
    await tick(MIN);
    await setT(one, -21);
    await tick(2 * MIN - 1);
    await tick(1);
    const cold = await clear.nth(0);
    assert.deepEqual([cold.text, cold.at, cold.entity], ['Freezer 1 is cold again: -21 °C.', 144 * MIN, one]);
    assert.deepEqual(
      notify.said(),
      [
        ['Freezer 1 is too warm: -12.5 °C, above −15 °C for 10 minutes or more.', 10],
        ['Freezer 1 is too warm: -12.5 °C, above −15 °C for 10 minutes or more (reminder 1).', 40],
        ['Freezer 1 is too warm: -12.5 °C, above −15 °C for 10 minutes or more (reminder 2).', 70],
        ['Freezer 1 is too warm: -12.5 °C, above −15 °C for 10 minutes or more (reminder 3).', 100],
      ],
      'no fourth reminder, nothing for the cold minute or for Freezer 2',
    );

    // A freezer set up while the flow runs (still warm: just plugged in) is watched from when the query finds it.
    let three: { entityType: string; id: string } | undefined;
    await sent(() => (three = freezer('Freezer 3', -9)));
    await tick(10 * MIN - 1);
    await tick(1);
    const added = await notify.nth(4);
    assert.deepEqual(
      [added.text, added.at, added.entity],
      ['Freezer 3 is too warm: -9 °C, above −15 °C for 10 minutes or more.', 154 * MIN, three],
    );
    assert.deepEqual([clear.all.length, error.all.length], [1, 0]);
  });

  it('Alarm not acknowledged in 15 minutes: one acknowledged in time sends nothing; one not acknowledged is escalated once, at 15 min; its acknowledgement comes out second', async () => {
    fake();
    const device = (name: string) => ({ entityType: 'DEVICE', id: sim.data.mustFindByName('DEVICE', name).id });
    const seeded = device('Thermo A-101');
    // The simulator's alarm on Thermo A-101 (High Temperature, critical, raised an hour before 2026-01-01) was never
    // acknowledged: it is active and unacknowledged at the deploy, so it holds from then.
    const old = sim.data.findActiveAlarm(seeded.id, 'High Temperature');
    assert.deepEqual([old?.severity, old?.acknowledged], ['CRITICAL', false]);
    const { heard, error } = await deploy(ALARM, 'unacknowledged 15 min', ['escalate', 'acknowledged or cleared']);
    const escalate = heard('escalate');
    const back = heard('acknowledged or cleared');
    /** Raises an alarm on the device and waits until the trigger has read it; resolves with its id. */
    const raise = async (e: { id: string }, type: string, severity: 'CRITICAL' | 'MAJOR') => {
      let id = '';
      await sent(() => (id = sim.data.createAlarm({ originator: e.id, type, severity }).id));
      return id;
    };

    // 1 min: a critical alarm on Thermo B-201, acknowledged at 11 min. 2 min: a critical one on Thermo G-102, nobody
    // acknowledges it; a major one on Thermo A-102 (not critical: not watched).
    await tick(MIN);
    const inTime = await raise(device('Thermo B-201'), 'Overheating', 'CRITICAL');
    await tick(MIN);
    const g102 = device('Thermo G-102');
    const forgotten = await raise(g102, 'Door open', 'CRITICAL');
    sim.data.createAlarm({ originator: device('Thermo A-102').id, type: 'Overheating', severity: 'MAJOR' });
    await tick(9 * MIN);
    await sent(() => sim.data.ackAlarm(inTime));

    await tick(4 * MIN);
    const first = await escalate.nth(0);
    assert.deepEqual(
      [first.text, first.at, first.entity],
      [
        'Nobody acknowledged the High Temperature alarm of Thermo A-101 within 15 minutes: calling the manager.',
        15 * MIN,
        seeded,
      ],
    );
    await tick(2 * MIN - 1);
    await tick(1);
    const second = await escalate.nth(1);
    assert.deepEqual(
      [second.text, second.at, second.entity],
      [
        'Nobody acknowledged the Door open alarm of Thermo G-102 within 15 minutes: calling the manager.',
        17 * MIN,
        g102,
      ],
    );
    assert.match(second.topic, /^true: alarm Door open \(CRITICAL\) held 15 min \(Thermo G-102\)$/);

    // Nobody acknowledges it for the rest of the hour: no second escalation. Acknowledged at 60 min: output 2.
    await tick(43 * MIN);
    await sent(() => sim.data.ackAlarm(forgotten));
    const acked = await back.nth(0);
    assert.deepEqual([acked.at, acked.entity], [60 * MIN, g102]);
    assert.match(acked.topic, /^false: no alarm, held 58 min \(Thermo G-102\)$/);

    // A new critical alarm on it: escalated 15 min later, the next message of the escalation (none came between).
    await raise(g102, 'Overheating', 'CRITICAL');
    await tick(15 * MIN);
    const again = await escalate.nth(2);
    assert.deepEqual(
      escalate.said(),
      [
        ['Nobody acknowledged the High Temperature alarm of Thermo A-101 within 15 minutes: calling the manager.', 15],
        ['Nobody acknowledged the Door open alarm of Thermo G-102 within 15 minutes: calling the manager.', 17],
        ['Nobody acknowledged the Overheating alarm of Thermo G-102 within 15 minutes: calling the manager.', 75],
      ],
      'nothing for the alarm acknowledged in time, nor for the major one; the forgotten one once',
    );
    assert.deepEqual(again.entity, g102);
    assert.deepEqual([back.all.length, error.all.length], [1, 0]);
  });

  it('Device silent for an hour: Gateway 1, silent since 2026-01-01, is told at deploy and reports again; silence is counted from the last report', async () => {
    fake();
    const keys = ['temperature', 'energy', 'uptime'];
    const gateway = sim.data.mustFindByName('DEVICE', 'Gateway 1');
    assert.equal(sim.data.latestOf(gateway.id, 'uptime')?.ts, Date.UTC(2026, 0, 1), 'silent since 2026-01-01');
    // Every other device that reports one of the keys reports it now (as in the `npm start` demo, whose history
    // reaches the last hour); those that never reported any (Thermo B-202, the spare sensor) are silent from now on.
    const devices = sim.data.devices();
    for (const d of devices) {
      if (d.id === gateway.id) continue;
      for (const k of keys) {
        const v = sim.data.latestOf(d.id, k);
        if (v) sim.data.setTelemetryEntries(d.id, [[k, { ...v, ts: Date.now() }]]);
      }
    }
    const { heard, error } = await deploy(SILENT, 'silent 1 h', ['notify', 'reports again']);
    const notify = heard('notify');
    const back = heard('reports again');
    const gw = { entityType: 'DEVICE', id: gateway.id };

    const told = await notify.nth(0);
    assert.deepEqual([told.text, told.at, told.entity], ['Gateway 1 has sent nothing for an hour.', 0, gw]);
    assert.match(told.topic, /^true: silent 1 h held .* \(Gateway 1\)$/);

    await tick(5 * MIN);
    await sent(() => sim.data.setTelemetry(gateway.id, { uptime: 300 }));
    const again = await back.nth(0);
    assert.deepEqual([again.text, again.at, again.entity], ['Gateway 1 reports again.', 5 * MIN, gw]);

    // An hour after the deploy every other device is silent, all at once and none before; Gateway 1 an hour after
    // its report.
    await tick(55 * MIN - 1);
    await tick(1);
    const others = devices.filter((d) => d.id !== gateway.id);
    await notify.nth(others.length);
    assert.deepEqual(
      notify.all
        .slice(1)
        .map((h) => [h.text, h.at])
        .sort(),
      others.map((d) => [`${d.name} has sent nothing for an hour.`, 60 * MIN]).sort(),
    );
    await tick(5 * MIN);
    const gwAgain = await notify.nth(others.length + 1);
    assert.deepEqual([gwAgain.text, gwAgain.at], ['Gateway 1 has sent nothing for an hour.', 65 * MIN]);
    assert.deepEqual([back.all.length, error.all.length], [1, 0]);
  });
});
