/**
 * tb-trigger's pure part (src/nodes/tb-trigger/logic.ts): the state of an entity through every hold, hold-off,
 * reminder, flap, silence, reset and removal on sinon's fake clock; deadlines put off while the data is not current
 * and decided by the fresh answer; one timer and a heap bounded by the entities at 10,000 of them; the heap itself
 * against a sorted list; the settings' rules; what the messages say.
 */
import assert from 'node:assert/strict';
import sinon from 'sinon';
import { TbConfigError } from '../../src/errors';
import {
  checkRows,
  lastUpdateOf,
  listItems,
  payloadOf,
  prepareTriggerPlan,
  topicOf,
  valueQuery,
  alarmQuery,
} from '../../src/nodes/tb-trigger/logic';
import {
  DeadlineHeap,
  Group,
  Tracked,
  TriggerMachine,
  type Change,
  type Clock,
  type Timing,
} from '../../src/nodes/tb-trigger/machine';
import { TB_TRIGGER } from '../../src/nodes/tb-trigger/settings';
import type { EntityData } from '../../src/protocol/types';
import { readSettings } from '../../src/settings/read';

const S = 1000;
const MIN = 60 * S;
const T0 = Date.UTC(2026, 0, 1);
const E = { entityType: 'DEVICE', id: '784f394c-42b6-435a-983c-b7beff2784f9' };

/** A machine on sinon's fake clock, with the changes it reports. */
function setup(timing: Partial<Timing> = {}) {
  const clock = sinon.useFakeTimers({ now: T0, toFake: ['setTimeout', 'clearTimeout', 'Date'] });
  const c: Clock = {
    now: () => Date.now(),
    setTimer: (fn, ms) => setTimeout(fn, ms),
    clearTimer: (h) => clearTimeout(h as NodeJS.Timeout),
  };
  const changes: Change<null>[] = [];
  const m = new TriggerMachine<null>(
    { holdMs: 0, holdOffMs: 0, repeatMs: 0, repeatMax: 0, silenceMs: 0, ...timing },
    c,
    (ch) => changes.push(ch),
  );
  const group = new Group<null>();
  group.live = true;
  let n = 0;
  const entity = () => new Tracked<null>(`e${++n}`, { ...E, id: `e${n}` }, group, null, Date.now());
  const kinds = () => changes.map((ch) => `${ch.kind}@${(ch.at - T0) / S}s`);
  return { clock, m, group, entity, changes, kinds };
}

describe('tb-trigger state machine (pure, fake clock)', function () {
  let ctx: ReturnType<typeof setup> | undefined;
  afterEach(() => {
    ctx?.clock.restore();
    ctx = undefined;
  });
  const use = (timing: Partial<Timing> = {}) => (ctx = setup(timing));

  describe('hold', function () {
    it('no hold: true at once when the condition holds, false at once when it stops', function () {
      const { m, entity, kinds, clock, changes } = use();
      const t = entity();
      m.add(t, false);
      assert.deepEqual(kinds(), []);
      clock.tick(5 * S);
      m.set(t, true);
      clock.tick(S);
      m.set(t, true); // still holding: nothing new
      clock.tick(4 * S);
      m.set(t, false);
      assert.deepEqual(kinds(), ['true@5s', 'false@10s']);
      assert.deepEqual(
        changes.map((c) => [c.state, c.since - T0, c.heldFor, c.previous && c.previous.since - T0]),
        [
          [true, 5 * S, 0, 0],
          [false, 10 * S, 5 * S, 5 * S],
        ],
      );
      assert.equal(m.trueCount, 0);
      assert.equal(m.timerArmed, false, 'nothing held: no timer');
    });

    it('hold 10 min: nothing at 9:59, true at 10:00 with heldFor and since', function () {
      const { m, entity, kinds, clock, changes } = use({ holdMs: 10 * MIN });
      const t = entity();
      m.add(t, true);
      assert.equal(t.phase, 'holding');
      assert.equal(m.timerArmed, true);
      clock.tick(10 * MIN - 1);
      assert.deepEqual(kinds(), []);
      clock.tick(1);
      assert.deepEqual(kinds(), ['true@600s']);
      assert.equal(changes[0].heldFor, 10 * MIN);
      assert.equal(changes[0].since, T0);
      assert.deepEqual(changes[0].previous, { state: false, since: T0 });
      assert.equal(m.trueCount, 1);
      assert.equal(m.timerArmed, false, 'true without reminders: no deadline left');
    });

    it('a flap before the hold is over starts the hold again: no message at 10 min, one at 16 min', function () {
      const { m, entity, kinds, clock } = use({ holdMs: 10 * MIN });
      const t = entity();
      m.add(t, true);
      clock.tick(5 * MIN);
      m.set(t, false);
      assert.equal(m.timerArmed, false, 'the hold was given up: no timer');
      clock.tick(MIN);
      m.set(t, true);
      clock.tick(9 * MIN);
      assert.deepEqual(kinds(), [], 'nothing 10 min after the first start');
      clock.tick(MIN);
      assert.deepEqual(kinds(), ['true@960s']);
    });

    it('many flaps of a noisy sensor within the hold send nothing', function () {
      const { m, entity, kinds, clock } = use({ holdMs: MIN });
      const t = entity();
      m.add(t, false);
      for (let i = 0; i < 100; i++) {
        m.set(t, i % 2 === 0);
        clock.tick(10 * S);
      }
      assert.deepEqual(kinds(), []);
      assert.equal(m.pending, 0);
    });
  });

  describe('hold-off', function () {
    it('false only once it stopped for the hold-off; back before it, still true and nothing sent', function () {
      const { m, entity, kinds, clock, changes } = use({ holdOffMs: MIN });
      const t = entity();
      m.add(t, true);
      assert.deepEqual(kinds(), ['true@0s']);
      clock.tick(MIN);
      m.set(t, false);
      clock.tick(30 * S);
      m.set(t, true); // back within the hold-off
      clock.tick(2 * MIN);
      assert.deepEqual(kinds(), ['true@0s']);
      m.set(t, false); // at 3.5 min
      clock.tick(MIN - 1);
      assert.deepEqual(kinds(), ['true@0s']);
      clock.tick(1);
      assert.deepEqual(kinds(), ['true@0s', 'false@270s']);
      const f = changes[1];
      assert.equal(f.since - T0, 210 * S, 'since: when it stopped holding');
      assert.equal(f.heldFor, 210 * S, 'it held from 0 to 3.5 min (the flap within the hold-off does not count)');
      assert.deepEqual(f.previous, { state: true, since: T0 });
    });

    it('hold and hold-off together: a noisy freezer sends one true and one false', function () {
      const { m, entity, kinds, clock } = use({ holdMs: 10 * MIN, holdOffMs: 5 * MIN });
      const t = entity();
      m.add(t, false);
      const readings = [true, true, false, true, true, true, true, true, true, true, true, true, true, false, true];
      for (const r of readings) {
        m.set(t, r);
        clock.tick(MIN);
      }
      // warm from 3 min on, one cold minute at 13 min (within the hold-off), warm again
      assert.deepEqual(kinds(), ['true@780s']);
      m.set(t, false);
      clock.tick(5 * MIN);
      assert.deepEqual(kinds(), ['true@780s', 'false@1200s']);
    });
  });

  describe('reminders', function () {
    it('every 5 min while true, at most 2; heldFor grows; none after the cap', function () {
      const { m, entity, kinds, clock, changes } = use({ holdMs: MIN, repeatMs: 5 * MIN, repeatMax: 2 });
      const t = entity();
      m.add(t, true);
      clock.tick(30 * MIN);
      assert.deepEqual(kinds(), ['true@60s', 'repeat@360s', 'repeat@660s']);
      assert.deepEqual(
        changes.map((c) => [c.repeat, c.heldFor / MIN, c.state]),
        [
          [0, 1, true],
          [1, 6, true],
          [2, 11, true],
        ],
      );
      assert.equal(m.timerArmed, false, 'the cap reached: no timer');
    });

    it('no cap: a reminder every period until it stops; none while stopping, and none after false', function () {
      const { m, entity, kinds, clock } = use({ repeatMs: 10 * MIN, repeatMax: Infinity, holdOffMs: 5 * MIN });
      const t = entity();
      m.add(t, true);
      clock.tick(25 * MIN);
      m.set(t, false); // stopping from 25 to 30 min: the reminder due at 30 is not sent
      clock.tick(20 * MIN);
      assert.deepEqual(kinds(), ['true@0s', 'repeat@600s', 'repeat@1200s', 'false@1800s']);
      assert.equal(m.timerArmed, false);
    });

    it('back from stopping, a reminder that came due meanwhile is sent at once, the next a period later', function () {
      const { m, entity, kinds, clock } = use({ repeatMs: 10 * MIN, repeatMax: Infinity, holdOffMs: 5 * MIN });
      const t = entity();
      m.add(t, true);
      clock.tick(8 * MIN);
      m.set(t, false);
      clock.tick(4 * MIN); // 12 min: the reminder due at 10 waited
      m.set(t, true);
      clock.tick(0);
      assert.deepEqual(kinds(), ['true@0s', 'repeat@720s']);
      clock.tick(10 * MIN);
      assert.deepEqual(kinds(), ['true@0s', 'repeat@720s', 'repeat@1320s']);
    });
  });

  describe('silence', function () {
    it('true silentFor after the last update, false at the next update; updates cost no heap work', function () {
      const { m, entity, kinds, clock, changes } = use({ silenceMs: 10 * MIN });
      const t = entity();
      t.lastUpdate = T0 - 2 * MIN; // the row's last update, two minutes before the start
      m.add(t, false);
      assert.equal(m.pending, 1, 'one deadline: the silence check');
      clock.tick(7 * MIN);
      m.touched(t, Date.now()); // at 7 min
      for (let i = 0; i < 50; i++) m.touched(t, Date.now() - 1000); // older or equal: nothing
      assert.equal(m.pending, 1, 'still one deadline (moved lazily, at its wake-up)');
      clock.tick(10 * MIN - 1);
      assert.deepEqual(kinds(), []);
      clock.tick(1);
      assert.deepEqual(kinds(), ['true@1020s']);
      assert.equal(changes[0].since - T0, 17 * MIN, 'silent since 10 min after the last update');
      clock.tick(3 * MIN);
      m.touched(t, Date.now());
      assert.deepEqual(kinds(), ['true@1020s', 'false@1200s']);
      clock.tick(10 * MIN);
      assert.deepEqual(kinds(), ['true@1020s', 'false@1200s', 'true@1800s']);
    });

    it('an entity never heard of is silent from the start; a device whose clock runs ahead counts from now', function () {
      const { m, entity, kinds, clock } = use({ silenceMs: MIN });
      const t = entity();
      m.add(t, false);
      const u = entity();
      u.lastUpdate = T0;
      m.add(u, false);
      clock.tick(30 * S);
      m.touched(u, Date.now() + 3600 * S);
      assert.equal(u.lastUpdate, Date.now(), 'an update from the future is taken as now');
      clock.tick(30 * S);
      assert.deepEqual(kinds(), ['true@60s']);
      assert.equal(ctx?.changes[0].tracked, t);
    });

    it('silent at start with a hold: held from when it went silent', function () {
      const { m, entity, kinds, clock } = use({ silenceMs: 10 * MIN, holdMs: 5 * MIN });
      const t = entity();
      t.lastUpdate = T0 - 12 * MIN; // silent for 2 min already
      m.add(t, false);
      clock.tick(3 * MIN - 1);
      assert.deepEqual(kinds(), []);
      clock.tick(1);
      assert.deepEqual(kinds(), ['true@180s']);
    });

    it('lastUpdateOf: the newest of the keys, no later than now; 0 when none', function () {
      const ed = {
        entityId: E,
        latest: { TIME_SERIES: { a: { ts: 5, value: '1' }, b: { ts: 9, value: '2' }, c: { ts: 0, value: '' } } },
        timeseries: null,
      } as unknown as EntityData;
      assert.equal(lastUpdateOf(ed, ['a', 'b'], 100), 9);
      assert.equal(lastUpdateOf(ed, ['a', 'b'], 7), 7);
      assert.equal(lastUpdateOf(ed, ['c', 'x'], 100), 0);
    });
  });

  describe('start, reset, removal', function () {
    it('initial: each state once; one that holds is true at once (its hold is not waited for), with its reminders', function () {
      const { m, entity, kinds, clock, changes } = use({ holdMs: 10 * MIN, repeatMs: 5 * MIN, repeatMax: 1 });
      const a = entity();
      const b = entity();
      m.add(a, true, true);
      m.add(b, false, true);
      assert.deepEqual(
        changes.map((c) => [c.kind, c.state, c.previous]),
        [
          ['initial', true, null],
          ['initial', false, null],
        ],
      );
      assert.equal(m.trueCount, 1);
      clock.tick(5 * MIN);
      assert.deepEqual(kinds(), ['initial@0s', 'initial@0s', 'repeat@300s']);
      m.set(a, false);
      assert.deepEqual(kinds().slice(3), ['false@300s']);
    });

    it('reset: nothing sent; holding again from now when the condition holds (a hold of 10 min: true 10 min later)', function () {
      const { m, entity, kinds, clock } = use({ holdMs: 10 * MIN });
      const t = entity();
      m.add(t, true);
      clock.tick(10 * MIN);
      assert.equal(m.trueCount, 1);
      clock.tick(MIN);
      m.reset(t, true);
      assert.equal(m.trueCount, 0);
      assert.equal(t.phase, 'holding');
      clock.tick(10 * MIN - 1);
      assert.deepEqual(kinds(), ['true@600s']);
      clock.tick(1);
      assert.deepEqual(kinds(), ['true@600s', 'true@1260s']);
      m.reset(t, false);
      clock.tick(60 * MIN);
      assert.deepEqual(kinds(), ['true@600s', 'true@1260s'], 'reset while not holding: false, nothing sent');
      assert.equal(m.timerArmed, false);
    });

    it('removed while true: false, marked removed; while holding: nothing; quietly (closing): nothing', function () {
      const { m, entity, clock, changes } = use({ holdMs: MIN });
      const a = entity();
      const b = entity();
      const c = entity();
      m.add(a, true);
      clock.tick(MIN);
      m.add(b, true);
      m.add(c, true);
      clock.tick(MIN);
      m.add(entity(), true);
      m.remove(a);
      assert.equal(changes.length, 4);
      assert.deepEqual([changes[3].kind, changes[3].removed, changes[3].tracked], ['false', true, a]);
      m.remove(b, false);
      assert.equal(changes.length, 4);
      assert.equal(m.trueCount, 1);
      m.set(a, true);
      m.set(b, false);
      assert.equal(changes.length, 4, 'a removed entity is told nothing more');
      m.remove(c);
      assert.equal(changes.length, 5);
      clock.tick(MIN);
      assert.equal(changes.length, 6, 'the fourth entity');
      assert.equal(m.trueCount, 1);
    });
  });

  describe('the data not current (socket down): the fresh answer decides', function () {
    it('a hold that ends while down waits; unchanged by the answer, true at the answer (heldFor counts the outage)', function () {
      const { m, entity, group, kinds, clock, changes } = use({ holdMs: 10 * MIN });
      const t = entity();
      m.add(t, true);
      clock.tick(5 * MIN);
      m.suspend(group);
      clock.tick(10 * MIN);
      assert.deepEqual(kinds(), [], 'not while down');
      m.resume(group); // the answer changed nothing: the hold went on
      assert.deepEqual(kinds(), ['true@900s']);
      assert.equal(changes[0].heldFor, 15 * MIN);
    });

    it('changed by the answer (the value no longer meets it): nothing sent, the hold given up', function () {
      const { m, entity, group, kinds, clock } = use({ holdMs: 10 * MIN });
      const t = entity();
      m.add(t, true);
      clock.tick(5 * MIN);
      m.suspend(group);
      clock.tick(10 * MIN);
      m.set(t, false); // the fresh answer's update
      m.resume(group);
      clock.tick(60 * MIN);
      assert.deepEqual(kinds(), []);
      assert.equal(m.pending, 0);
    });

    it('a reconnect within the hold changes nothing: true at the hold, as without the outage', function () {
      const { m, entity, group, kinds, clock } = use({ holdMs: 10 * MIN });
      const t = entity();
      m.add(t, true);
      clock.tick(3 * MIN);
      m.suspend(group);
      clock.tick(MIN);
      m.resume(group);
      clock.tick(6 * MIN);
      assert.deepEqual(kinds(), ['true@600s']);
    });
  });

  describe('scale', function () {
    it('10,000 entities: one timer; deadlines only for those held; none left when nothing is held', function () {
      const { m, entity, kinds, clock } = use({ holdMs: 10 * MIN });
      const all = Array.from({ length: 10000 }, () => entity());
      for (const t of all) m.add(t, false);
      assert.equal(m.pending, 0);
      assert.equal(m.timerArmed, false);
      assert.equal(clock.countTimers(), 0, 'no timer at all');
      for (let i = 0; i < all.length; i += 10) {
        m.set(all[i], true);
        clock.tick(10);
      }
      assert.equal(m.pending, 1000, 'one deadline per entity held');
      assert.equal(clock.countTimers(), 1, 'one timer for all of them');
      for (let i = 0; i < all.length; i += 20) m.set(all[i], false);
      assert.equal(m.pending, 500);
      clock.tick(10 * MIN);
      assert.equal(kinds().length, 500);
      assert.equal(m.trueCount, 500);
      assert.equal(m.pending, 0);
      assert.equal(clock.countTimers(), 0);
    });

    it('entities held from the same moment all become true at the one wake-up', function () {
      const { m, entity, changes, clock } = use({ holdMs: MIN });
      const all = Array.from({ length: 100 }, () => entity());
      for (const t of all) m.add(t, true);
      clock.tick(MIN);
      assert.equal(changes.length, 100);
    });
  });
});

describe('DeadlineHeap', function () {
  it('pops in deadline order through random adds, moves and removals, as a sorted list would', function () {
    let seed = 42;
    const rnd = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
    const heap = new DeadlineHeap<{ due: number; slot: number; id: number }>();
    const items = Array.from({ length: 500 }, (_, id) => ({ due: 0, slot: -1, id }));
    const model = new Map<number, number>();
    for (let i = 0; i < 5000; i++) {
      const it = items[Math.floor(rnd() * items.length)];
      const r = rnd();
      if (r < 0.6) {
        const due = Math.floor(rnd() * 10000);
        heap.set(it, due);
        model.set(it.id, due);
      } else {
        heap.remove(it);
        model.delete(it.id);
      }
      assert.equal(heap.size, model.size);
    }
    const popped: number[] = [];
    for (let x = heap.popDue(Infinity); x; x = heap.popDue(Infinity)) {
      popped.push(x.due);
      assert.equal(x.slot, -1);
    }
    assert.deepEqual(
      popped,
      [...model.values()].sort((a, b) => a - b),
    );
    assert.equal(heap.popDue(Infinity), undefined);
  });

  it('popDue takes only what is due', function () {
    const heap = new DeadlineHeap<{ due: number; slot: number }>();
    const a = { due: 0, slot: -1 };
    const b = { due: 0, slot: -1 };
    heap.set(a, 10);
    heap.set(b, 20);
    assert.equal(heap.popDue(9), undefined);
    assert.equal(heap.popDue(15), a);
    assert.equal(heap.popDue(15), undefined);
    heap.set(b, 5);
    assert.equal(heap.popDue(5), b);
  });
});

describe('tb-trigger settings and messages (pure)', function () {
  const plan = (saved: Record<string, unknown>) => prepareTriggerPlan(readSettings(TB_TRIGGER, saved));
  const row = (r: Record<string, unknown> = {}) => ({
    keyType: 'TIME_SERIES',
    key: 'temperature',
    operator: 'gt',
    value: '25',
    valueType: 'num',
    ...r,
  });

  it('a value trigger with its rows; durations in ms; no reminder without a period', function () {
    const { plan: p, problem } = plan({ conditions: [row()], holdFor: '10m', holdOffFor: '30s', repeatMax: 3 });
    assert.equal(problem, undefined);
    assert.deepEqual(p.timing, { holdMs: 600000, holdOffMs: 30000, repeatMs: 0, repeatMax: 0, silenceMs: 0 });
    assert.equal(p.rows[0].field, 'conditions row 1 (temperature)');
    const r = plan({ conditions: [row()], repeatEvery: '1h' }).plan.timing;
    assert.deepEqual([r.repeatMs, r.repeatMax], [3600000, Infinity]);
  });

  it('bad input, each a clear error at deploy: a hold that is no duration, no condition, no key, an operator for events', function () {
    const cases: Array<[Record<string, unknown>, RegExp]> = [
      [{ conditions: [row()], holdFor: 'ten minutes' }, /^holdFor must be a duration such as 30s, 15m, 2h/],
      [{ conditions: [row()], repeatEvery: '0' }, /^repeatEvery must be a duration .*more than 0/],
      [{ conditions: [] }, /^conditions: add a condition/],
      [{ conditions: [row({ key: ' ' })] }, /^conditions row 1 has no key: name the time series it reads/],
      [{ conditions: [row(), row({ operator: 'changes' })] }, /^conditions row 2 \(temperature\): choose a comparison/],
      [{ conditions: [row({ operator: 'like' })] }, /the operator must be one of eq, neq/],
      [{ conditions: [row({ keyType: 'SOMETHING' })] }, /the key type must be one of TIME_SERIES/],
      [{ conditions: [row({ valueType: 'date' })] }, /the value's type must be one of str/],
      [{ condition: 'silence', silenceKeys: ' , ' }, /^silenceKeys: name the time series/],
      [{ condition: 'silence', silenceKeys: 'temperature', silentFor: '0' }, /^silentFor must be a duration/],
      [{ condition: 'alarm', severities: 'CRITICAL, urgent' }, /^severities: "URGENT" is no severity/],
      [{ conditions: [row()], watch: 'entity', targetType: 'auto' }, /^target: pick the entity to watch/],
      [{ conditions: [row()], watch: 'message', targetType: 'json', target: '{}' }, /^targetType: the entities/],
    ];
    for (const [saved, re] of cases) {
      const { problem } = plan(saved);
      assert.ok(problem instanceof TbConfigError, JSON.stringify(saved));
      assert.match(problem.message, re);
    }
  });

  it('checkRows: defaults for a row saved without type, operator or value type', function () {
    assert.deepEqual(checkRows([{ key: 'door' }]), [
      {
        keyType: 'TIME_SERIES',
        key: 'door',
        operator: 'eq',
        value: '',
        valueType: 'str',
        field: 'conditions row 1 (door)',
      },
    ]);
  });

  it('alarm conditions: severities in any case, a type; silence keys as a list', function () {
    const a = plan({ condition: 'alarm', alarmType: ' High temperature ', severities: 'critical,MAJOR' }).plan;
    assert.deepEqual(a.alarm.severityList, ['CRITICAL', 'MAJOR']);
    assert.equal(a.alarm.type, 'High temperature');
    const q = alarmQuery(a, { type: 'singleEntity', singleEntity: E } as never, 100);
    assert.deepEqual(q.pageLink.typeList, ['High temperature']);
    assert.deepEqual(q.pageLink.statusList, ['ACTIVE']);
    assert.deepEqual(listItems('a, b ,,a'), ['a', 'b']);
  });

  it('the live query: the user query keeps its own, plus the name and the keys read; an entity field asks a dynamic page', function () {
    const p = plan({
      conditions: [row(), row({ key: 'humidity' }), row({ keyType: 'ENTITY_FIELD', key: 'label', operator: 'eq' })],
    }).plan;
    const q = valueQuery(
      p,
      {
        entityFilter: { type: 'deviceType', deviceTypes: ['thermostat'] },
        entityFields: [{ type: 'ENTITY_FIELD', key: 'name' }],
        latestValues: [{ type: 'TIME_SERIES', key: 'temperature' }],
        pageLink: { page: 0, pageSize: 50 },
      } as never,
      10,
    );
    assert.deepEqual(q.entityFields, [
      { type: 'ENTITY_FIELD', key: 'name' },
      { type: 'ENTITY_FIELD', key: 'label' },
    ]);
    assert.deepEqual(q.latestValues, [
      { type: 'TIME_SERIES', key: 'temperature' },
      { type: 'TIME_SERIES', key: 'humidity' },
    ]);
    assert.deepEqual(q.pageLink, { page: 0, pageSize: 50, dynamic: true });
  });

  it('what a message says: payload and topic for each kind of change', function () {
    const t = new Tracked<null>('x', E, new Group<null>(), null, T0);
    const change = (over: Partial<Change<unknown>>): Change<unknown> => ({
      kind: 'true',
      tracked: t as Tracked<unknown>,
      state: true,
      since: T0,
      heldFor: 10 * MIN,
      previous: { state: false, since: T0 - MIN },
      repeat: 0,
      removed: false,
      at: T0 + 10 * MIN,
      ...over,
    });
    const reading = { values: { temperature: 26.1 }, value: 26.1 };
    const p = payloadOf(change({}), 'Freezer 3', reading);
    assert.deepEqual(p, {
      state: true,
      event: 'true',
      name: 'Freezer 3',
      values: { temperature: 26.1 },
      value: 26.1,
      since: T0,
      heldFor: 600000,
      previous: { state: false, since: T0 - MIN },
      repeat: 0,
    });
    assert.equal(topicOf('value', p, 0), 'true: temperature 26.1 held 10 min (Freezer 3)');
    // A timer wakes a little after its deadline: the span measured is said rounded.
    assert.equal(
      topicOf('value', payloadOf(change({ heldFor: 600004 }), 'F', reading), 0),
      'true: temperature 26.1 held 10 min (F)',
    );
    assert.equal(topicOf('value', payloadOf(change({ heldFor: 0 }), undefined, reading), 0), 'true: temperature 26.1');
    assert.equal(
      topicOf('value', payloadOf(change({ kind: 'repeat', repeat: 2, heldFor: 20 * MIN }), 'F', reading), 0),
      'still true: temperature 26.1 for 20 min, reminder 2 (F)',
    );
    assert.equal(
      topicOf('value', payloadOf(change({ kind: 'false', state: false, heldFor: 15 * MIN }), 'F', reading), 0),
      'false: temperature 26.1, held 15 min (F)',
    );
    assert.equal(
      topicOf('value', payloadOf(change({ kind: 'false', state: false, removed: true }), 'F', reading), 0),
      'false: no longer watched (F)',
    );
    assert.equal(
      topicOf('value', payloadOf(change({ kind: 'initial', state: false, previous: null }), 'F', reading), 0),
      'now false: temperature 26.1 (F)',
    );
    assert.equal(
      topicOf('silence', payloadOf(change({}), 'F', { values: { t: 1 }, lastUpdate: T0 }), 3600000),
      'true: silent 1 h held 10 min (F)',
    );
    const alarm = { type: 'HIGH_TEMP', severity: 'CRITICAL' } as never;
    assert.equal(
      topicOf('alarm', payloadOf(change({ heldFor: 15 * MIN }), 'F', { alarm }), 0),
      'true: alarm HIGH_TEMP (CRITICAL) held 15 min (F)',
    );
  });
});
