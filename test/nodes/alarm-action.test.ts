/**
 * tb-alarm-action in the real Node-RED runtime against the simulator's alarm endpoints over loopback: every
 * operation, every shape of the alarm / assignee / originator, message overrides, idempotent and strict modes,
 * two acknowledgements at once, not found, permissions, bad input (nothing sent), 429, an expired token, raise
 * created vs updated, delete, comments, and the pipeline tb-subscribe → acknowledge → tb-subscribe.
 */
import assert from 'node:assert/strict';
import { BASE_TIME, HOUR } from '../../sim';
import type { SimAlarm } from '../../sim/dataset';
import tbAlarmAction from '../../src/nodes/tb-alarm-action/index';
import tbConnection from '../../src/nodes/tb-connection/index';
import tbSubscribe from '../../src/nodes/tb-subscribe/index';
import {
  Collector,
  connectionNode,
  flow,
  flowsOn,
  helper,
  inject,
  key,
  lastStatus,
  Msg,
  statuses,
  statusWhere,
  TENANT,
  useRuntime,
} from '../support/runtime';

const NODES = [tbConnection, tbAlarmAction, tbSubscribe];
const NOW = BASE_TIME + HOUR;
const CUSTOMER_A = { username: 'customer@thingsboard.org', password: 'customer' };
type Rec = Record<string, unknown>;

function action(id: string, props: Rec = {}): Rec {
  return { id, type: 'tb-alarm-action', connection: 'c1', wires: [['out']], ...props };
}

describe('tb-alarm-action (runtime + simulator)', function () {
  const sim = useRuntime(
    { now: () => NOW },
    {
      settings: { tbConnectionRetryInitialMs: 5, tbConnectionRetryMaxMs: 20 },
      reset: (s) => s.resetRequests(),
      cleanup: (s) => s.faults.clear(),
    },
  );
  /** What comes out of the flow, in order: the output, or the error a Catch node got. */
  const { load, results } = flowsOn(sim, NODES);
  let n = 0;

  const dev = (name: string) => sim.data.mustFindByName('DEVICE', name);
  const userId = (email: string) => sim.data.users().find((u) => u.name === email)!.id;
  /** A fresh active alarm of its own type (the tests do not share alarms). */
  const newAlarm = (device = 'Thermo A-101', extra: Rec = {}): SimAlarm =>
    sim.data.createAlarm({ originator: dev(device).id, type: `Test Alarm ${++n}`, severity: 'MAJOR', ...extra });
  const stored = (id: string) => sim.data.getAlarm(id);
  const last = lastStatus;
  const ok = (nodeId: string, msg: Msg): Promise<Msg> => results.ok(nodeId, msg);
  const fails = async (nodeId: string, msg: Msg, code: string, re?: RegExp): Promise<Rec> =>
    (await results.fails(nodeId, msg, code, re)).error;

  describe('acknowledge and clear', () => {
    it('acknowledges an alarm event: the flat alarm after the action, its id as topic, the rest of the message kept', async () => {
      await load([action('a')]);
      const alarm = newAlarm();
      const flat = { id: alarm.id, type: alarm.type, severity: 'MAJOR', status: 'ACTIVE_UNACK' };
      const out = await ok('a', { payload: flat, topic: 'ignored', chatId: 42, _reply: { to: 'ops' } });
      const p = out.payload as Rec;
      assert.equal(p.id, alarm.id);
      assert.equal(p.acknowledged, true);
      assert.equal(p.status, 'ACTIVE_ACK');
      assert.equal(p.ackTs, NOW);
      assert.equal(p.originatorName, 'Thermo A-101', 'an AlarmInfo: originator names');
      assert.deepEqual(p.originator, { id: dev('Thermo A-101').id, entityType: 'DEVICE' });
      assert.equal(p.entity, null);
      assert.equal(out.topic, alarm.id);
      assert.equal(out.operation, 'acknowledge');
      assert.equal(out.alreadyDone, false);
      assert.equal(out.chatId, 42);
      assert.deepEqual(out._reply, { to: 'ops' });
      assert.ok(!('created' in out) && !('alarmComment' in out));
      assert.equal(stored(alarm.id)!.acknowledged, true);
      assert.equal(sim.countRequests(`/api/alarm/${alarm.id}/ack`, 'POST'), 1);
      assert.equal(sim.countRequests('/api/alarm/info/'), 0, 'ack answers an AlarmInfo: no second request');
      assert.deepEqual(last('a'), { fill: 'green', shape: 'dot', text: key('acknowledged') });
    });

    it('idempotent by default: acknowledging an acknowledged alarm is a success with alreadyDone and the alarm as it is', async () => {
      await load([action('a')]);
      const alarm = newAlarm('Thermo A-102', { acknowledged: true });
      const out = await ok('a', { payload: alarm.id });
      assert.equal(out.alreadyDone, true);
      assert.equal((out.payload as Rec).acknowledged, true);
      assert.equal((out.payload as Rec).id, alarm.id);
      assert.deepEqual(last('a'), { fill: 'green', shape: 'dot', text: key('alreadyAcknowledged') });
    });

    it("strict: already done is an error with the server's message, and a red status that says so", async () => {
      await load([action('a', { strict: true })]);
      const alarm = newAlarm('Thermo A-102', { acknowledged: true });
      const err = await fails(
        'a',
        { payload: alarm.id },
        'TB_BAD_REQUEST',
        /HTTP 400, errorCode 31: Alarm was already acknowledged!/,
      );
      assert.match(err.message as string, /^TbApiError: /);
      assert.deepEqual(last('a'), { fill: 'red', shape: 'ring', text: key('alreadyAcknowledged') });
      // and a first acknowledgement still works
      const fresh = newAlarm();
      assert.equal((await ok('a', { payload: fresh.id })).alreadyDone, false);
    });

    it('clears, and clearing a cleared alarm is already done (strict: an error); a cleared alarm can still be acknowledged', async () => {
      await load([
        action('c', { operation: 'clear' }),
        action('cs', { operation: 'clear', strict: 'true' }),
        action('a'),
      ]);
      const alarm = newAlarm();
      let out = await ok('c', { payload: { id: { entityType: 'ALARM', id: alarm.id } } });
      assert.equal((out.payload as Rec).status, 'CLEARED_UNACK');
      assert.equal(out.operation, 'clear');
      assert.deepEqual(last('c'), { fill: 'green', shape: 'dot', text: key('cleared') });
      out = await ok('c', { topic: alarm.id });
      assert.equal(out.alreadyDone, true);
      assert.deepEqual(last('c'), { fill: 'green', shape: 'dot', text: key('alreadyCleared') });
      await fails('cs', { topic: alarm.id }, 'TB_BAD_REQUEST', /Alarm was already cleared!/);
      assert.deepEqual(last('cs'), { fill: 'red', shape: 'ring', text: key('alreadyCleared') });
      out = await ok('a', { topic: alarm.id });
      assert.equal((out.payload as Rec).status, 'CLEARED_ACK');
    });

    it('two operators pressing "ack" at once both get a clean answer: one acknowledged it, the other finds it done', async () => {
      await load([action('a')]);
      const alarm = newAlarm();
      inject('a', { payload: alarm.id, operator: 'ann' });
      inject('a', { payload: alarm.id, operator: 'bob' });
      const got = [await results.next(), await results.next()];
      assert.deepEqual(
        got.map((r) => r.error),
        [undefined, undefined],
        'no error',
      );
      const outs = got.map((r) => r.out as Msg);
      assert.deepEqual(outs.map((m) => m.alreadyDone).sort(), [false, true]);
      for (const m of outs) {
        assert.equal((m.payload as Rec).acknowledged, true);
        assert.equal(m.topic, alarm.id);
      }
      assert.deepEqual(outs.map((m) => m.operator).sort(), ['ann', 'bob']);
      assert.equal(sim.countRequests(`/api/alarm/${alarm.id}/ack`, 'POST'), 2);
    });

    it('a comment is written after the action, also when it was already done, and comes back as msg.alarmComment', async () => {
      await load([action('a')]);
      const alarm = newAlarm();
      let out = await ok('a', { payload: alarm.id, comment: 'On my way (Ann, via chat)' });
      const c = out.alarmComment as Rec;
      assert.equal((c.comment as Rec).text, 'On my way (Ann, via chat)');
      assert.equal(c.type, 'OTHER');
      assert.deepEqual(c.alarmId, { entityType: 'ALARM', id: alarm.id });
      out = await ok('a', { payload: alarm.id, comment: 'Bob saw it too' });
      assert.equal(out.alreadyDone, true);
      assert.equal(((out.alarmComment as Rec).comment as Rec).text, 'Bob saw it too');
      const texts = sim.data
        .alarmComments(alarm.id)
        .filter((x) => x.type === 'OTHER')
        .map((x) => (x.comment as Rec).text);
      assert.deepEqual(texts, ['On my way (Ann, via chat)', 'Bob saw it too']);
      assert.equal(
        sim.data.alarmComments(alarm.id).filter((x) => x.type === 'SYSTEM').length,
        1,
        'the server\'s own "acknowledged by" comment, once',
      );
    });

    it('strict mode writes no comment when the action was already done', async () => {
      await load([action('a', { strict: true })]);
      const alarm = newAlarm('Thermo A-102', { acknowledged: true });
      await fails('a', { payload: alarm.id, comment: 'late' }, 'TB_BAD_REQUEST');
      assert.equal(sim.data.alarmComments(alarm.id).length, 0);
    });

    it("raw format: the server's AlarmInfo", async () => {
      await load([action('a', { format: 'raw' })]);
      const alarm = newAlarm();
      const out = await ok('a', { payload: alarm.id });
      const p = out.payload as Rec;
      assert.deepEqual(p.id, { entityType: 'ALARM', id: alarm.id });
      assert.deepEqual(p.originator, { entityType: 'DEVICE', id: dev('Thermo A-101').id });
      assert.equal(p.acknowledged, true);
      assert.ok('tenantId' in p && 'originatorName' in p);
    });
  });

  describe('assign, unassign, comment', () => {
    it('assigns by user id, by {entityType: USER, id} and by e-mail (any case); the same user again is already done; unassign', async () => {
      await load([action('as', { operation: 'assign' }), action('un', { operation: 'unassign' })]);
      const alarm = newAlarm();
      const tech = userId('tech@thingsboard.org');
      const tenant = userId('tenant@thingsboard.org');
      let out = await ok('as', { payload: alarm.id, assignee: tech });
      assert.deepEqual((out.payload as Rec).assignee, {
        id: tech,
        firstName: 'Terry',
        lastName: 'Tech',
        email: 'tech@thingsboard.org',
      });
      assert.equal(out.operation, 'assign');
      assert.deepEqual(last('as'), { fill: 'green', shape: 'dot', text: key('assigned') });
      out = await ok('as', { payload: alarm.id, assignee: { entityType: 'USER', id: tech } });
      assert.equal(out.alreadyDone, true);
      assert.deepEqual(last('as'), { fill: 'green', shape: 'dot', text: key('alreadyAssigned') });
      sim.resetRequests();
      out = await ok('as', { payload: alarm.id, assignee: 'Tenant@ThingsBoard.org' });
      assert.equal(((out.payload as Rec).assignee as Rec).id, tenant);
      assert.equal(stored(alarm.id)!.assigneeId, tenant);
      assert.equal(sim.countRequests(`/api/users/assign/${alarm.id}`, 'GET'), 1, 'the e-mail was looked up');
      assert.equal(
        sim.requests
          .entries(10)
          .find((e) => e.path.startsWith('/api/users/assign'))!
          .query.includes('textSearch='),
        true,
      );
      out = await ok('un', { payload: alarm.id });
      assert.equal((out.payload as Rec).assignee, null);
      assert.deepEqual(last('un'), { fill: 'green', shape: 'dot', text: key('unassigned') });
      out = await ok('un', { payload: alarm.id, comment: 'back to the pool' });
      assert.equal(out.alreadyDone, true);
      assert.deepEqual(last('un'), { fill: 'green', shape: 'dot', text: key('alreadyUnassigned') });
      assert.equal(((out.alarmComment as Rec).comment as Rec).text, 'back to the pool');
    });

    it('the assignee from the node (an e-mail), from a message property, from JSONata', async () => {
      await load([
        action('s', { operation: 'assign', assignee: 'tech@thingsboard.org', assigneeType: 'str' }),
        action('m', {
          operation: 'assign',
          assignee: 'payload.user',
          assigneeType: 'msg',
          alarm: 'payload.alarm',
          alarmType: 'msg',
        }),
        action('j', { operation: 'assign', assignee: '"tenant@" & "thingsboard.org"', assigneeType: 'jsonata' }),
      ]);
      const a1 = newAlarm();
      assert.equal(
        (((await ok('s', { payload: a1.id, assignee: 'ignored@x.org' })).payload as Rec).assignee as Rec).email,
        'tech@thingsboard.org',
      );
      const a2 = newAlarm();
      const tech = userId('tech@thingsboard.org');
      const out = await ok('m', {
        payload: { alarm: a2.id, user: { id: { entityType: 'USER', id: tech }, email: 'tech@thingsboard.org' } },
      });
      assert.equal(((out.payload as Rec).assignee as Rec).id, tech);
      const a3 = newAlarm();
      assert.equal(
        (((await ok('j', { payload: a3.id })).payload as Rec).assignee as Rec).email,
        'tenant@thingsboard.org',
      );
    });

    it('an unknown e-mail is a clear error naming it; a user that does not exist is not found; nothing is changed', async () => {
      await load([action('as', { operation: 'assign' })]);
      const alarm = newAlarm();
      const err = await fails(
        'as',
        { payload: alarm.id, assignee: 'nobody@thingsboard.org' },
        'TB_NOT_FOUND',
        /No user with the e-mail "nobody@thingsboard\.org" can be assigned alarm/,
      );
      assert.match(err.message as string, new RegExp(alarm.id));
      assert.deepEqual(last('as'), { fill: 'red', shape: 'ring', text: key('notFound') });
      await fails(
        'as',
        { payload: alarm.id, assignee: '0f8fad5b-d9cb-469f-a165-70867728950e' },
        'TB_NOT_FOUND',
        /User 0f8fad5b-d9cb-469f-a165-70867728950e was not found/,
      );
      assert.equal(stored(alarm.id)!.assigneeId, null);
      await fails(
        'as',
        { payload: alarm.id },
        'TB_INVALID_INPUT',
        /msg\.assignee must be the user to assign.*\(missing\)/,
      );
    });

    it('comment: the text is required; the alarm comes back with the saved comment', async () => {
      await load([
        action('c', { operation: 'comment' }),
        action('f', { operation: 'comment', comment: 'Escalated to {{name}}', commentType: 'str' }),
      ]);
      const alarm = newAlarm();
      const out = await ok('c', { payload: alarm.id, comment: '  Truck dispatched  ' });
      assert.equal(out.operation, 'comment');
      assert.equal(out.alreadyDone, false);
      assert.equal((out.payload as Rec).id, alarm.id);
      assert.equal(((out.alarmComment as Rec).comment as Rec).text, 'Truck dispatched');
      assert.deepEqual(last('c'), { fill: 'green', shape: 'dot', text: key('commented') });
      sim.resetRequests();
      await fails(
        'c',
        { payload: alarm.id },
        'TB_INVALID_INPUT',
        /msg\.comment must be the comment's text \(a non-empty string\) \(missing\)/,
      );
      await fails(
        'c',
        { payload: alarm.id, comment: 7 },
        'TB_INVALID_INPUT',
        /msg\.comment must be the comment's text \(a string\) \(got 7\)/,
      );
      assert.equal(sim.countRequests('/api/alarm'), 0);
      // the server's own validation comes through (a template is refused as XSS)
      await fails('f', { payload: alarm.id }, 'TB_BAD_REQUEST', /comment is malformed/);
    });
  });

  describe('raise', () => {
    it('creates a new alarm, then updates the active one (created true, then false), then creates again once it is cleared', async () => {
      await load([action('r', { operation: 'raise' }), action('c', { operation: 'clear', wires: [['out']] })]);
      const thermo = dev('Thermo A-103');
      const type = `Raised ${++n}`;
      let out = await ok('r', {
        payload: {
          originator: { entityType: 'DEVICE', id: thermo.id },
          type,
          severity: 'MINOR',
          details: { temperature: 31 },
        },
        topic: 'x',
      });
      const p = out.payload as Rec;
      assert.equal(out.created, true);
      assert.equal(out.operation, 'raise');
      assert.equal(out.alreadyDone, false);
      assert.equal(out.topic, p.id);
      assert.equal(p.type, type);
      assert.equal(p.severity, 'MINOR');
      assert.deepEqual(p.details, { temperature: 31 });
      assert.equal(p.originatorName, 'Thermo A-103');
      assert.equal(p.status, 'ACTIVE_UNACK');
      assert.deepEqual(last('r'), { fill: 'green', shape: 'dot', text: key('alarmRaised') });
      const first = p.id as string;

      out = await ok('r', { payload: { originator: thermo.id, type, severity: 'CRITICAL' } });
      assert.equal(out.created, false);
      assert.equal((out.payload as Rec).id, first, 'the same alarm');
      assert.equal((out.payload as Rec).severity, 'CRITICAL');
      assert.deepEqual(last('r'), { fill: 'green', shape: 'dot', text: key('alarmUpdated') });

      await ok('c', { payload: first });
      out = await ok('r', { payload: { originator: thermo.id, type, severity: 'CRITICAL' } });
      assert.equal(out.created, true);
      assert.notEqual((out.payload as Rec).id, first);
    });

    it("the node's settings win, msg.payload fills the blanks; originator from a fixed JSON, propagation flags", async () => {
      const building = sim.data.mustFindByName('ASSET', 'Building Alpha');
      await load([
        action('r', {
          operation: 'raise',
          originator: JSON.stringify({ entityType: 'ASSET', id: building.id }),
          originatorType: 'json',
          alarmName: `Maintenance ${++n}`,
          severity: 'WARNING',
          propagateToOwner: true,
          propagateRelationTypes: 'Contains',
          details: '{"by":"node"}',
          detailsType: 'json',
        }),
      ]);
      const out = await ok('r', {
        payload: {
          type: 'ignored',
          severity: 'CRITICAL',
          propagate: true,
          propagateToTenant: false,
          details: { by: 'msg' },
        },
      });
      const p = out.payload as Rec;
      assert.equal(p.type, `Maintenance ${n}`);
      assert.equal(p.severity, 'WARNING');
      assert.deepEqual(p.originator, { id: building.id, entityType: 'ASSET' });
      assert.deepEqual(p.details, { by: 'node' });
      assert.equal(p.propagate, true, 'from the message');
      assert.equal(p.propagateToOwner, true, 'from the node');
      assert.equal(p.propagateToTenant, false);
      assert.deepEqual(p.propagateRelationTypes, ['Contains']);
    });

    it("every originator shape: a UUID (of the node's entity type), a flat and a raw tb-entity-query item; from msg and JSONata", async () => {
      const asset = sim.data.mustFindByName('ASSET', 'Building Gamma');
      const device = dev('Thermo G-101');
      await load([
        action('u', { operation: 'raise', originatorEntityType: 'ASSET', alarmName: 'Shape', severity: 'MINOR' }),
        action('m', {
          operation: 'raise',
          originator: 'payload.row',
          originatorType: 'msg',
          alarmName: 'Shape',
          severity: 'MINOR',
        }),
        action('j', {
          operation: 'raise',
          originator: '{"entityType": "DEVICE", "id": payload.deviceId}',
          originatorType: 'jsonata',
          alarmName: 'Shape J',
          severity: 'MINOR',
        }),
      ]);
      assert.deepEqual(((await ok('u', { payload: { originator: asset.id } })).payload as Rec).originator, {
        id: asset.id,
        entityType: 'ASSET',
      });
      const flatRow = { id: device.id, entityType: 'DEVICE', name: 'Thermo G-101', temperature: 29 };
      assert.deepEqual(((await ok('m', { payload: { row: flatRow } })).payload as Rec).originator, {
        id: device.id,
        entityType: 'DEVICE',
      });
      const rawRow = { entityId: { entityType: 'DEVICE', id: device.id }, latest: {}, timeseries: {} };
      const out = await ok('m', { payload: { row: rawRow } });
      assert.equal(out.created, false, 'the same originator and type: updated');
      assert.deepEqual(((await ok('j', { payload: { deviceId: device.id } })).payload as Rec).originator, {
        id: device.id,
        entityType: 'DEVICE',
      });
    });

    it('raising an alarm that is active and assigned keeps its assignee (the server would otherwise fail after saving)', async () => {
      await load([action('r', { operation: 'raise' })]);
      const a102 = sim.data
        .alarms()
        .find((a) => a.originator.id === dev('Thermo A-102').id && a.type === 'High Temperature')!;
      assert.ok(a102.assigneeId, 'the seeded alarm is assigned');
      const out = await ok('r', {
        payload: {
          originator: { entityType: 'DEVICE', id: a102.originator.id },
          type: 'High Temperature',
          severity: 'CRITICAL',
        },
      });
      assert.equal(out.created, false);
      assert.equal((out.payload as Rec).id, a102.id);
      assert.equal(((out.payload as Rec).assignee as Rec).id, a102.assigneeId);
      assert.equal(stored(a102.id)!.severity, 'CRITICAL');
    });

    it('two raises of a new alarm at once: one creates it, the other updates it', async () => {
      await load([action('r', { operation: 'raise', alarmName: `Burst ${++n}`, severity: 'MAJOR' })]);
      const origin = { entityType: 'DEVICE', id: dev('Thermo B-203').id };
      inject('r', { payload: { originator: origin } });
      inject('r', { payload: { originator: origin } });
      const outs = [(await results.next()).out as Msg, (await results.next()).out as Msg];
      assert.deepEqual(outs.map((m) => m.created).sort(), [false, true]);
      assert.equal((outs[0].payload as Rec).id, (outs[1].payload as Rec).id);
    });

    it("a customer user raises on its own devices (its customer in the body), not on another customer's", async () => {
      await load([action('r', { operation: 'raise', alarmName: `Customer ${++n}`, severity: 'MINOR' })], CUSTOMER_A);
      const out = await ok('r', { payload: { originator: { entityType: 'DEVICE', id: dev('Thermo A-201').id } } });
      assert.equal(out.created, true);
      assert.equal(
        stored((out.payload as Rec).id as string)!.customerId,
        sim.data.mustFindByName('CUSTOMER', 'Customer A').id,
      );
      await fails(
        'r',
        { payload: { originator: { entityType: 'DEVICE', id: dev('Thermo B-201').id } } },
        'TB_PERMISSION',
        /did not allow this connection's user to raise an alarm on DEVICE/,
      );
      assert.deepEqual(last('r'), { fill: 'red', shape: 'ring', text: key('notPermitted') });
    });

    it('what is missing for a raise is named before anything is sent', async () => {
      await load([action('r', { operation: 'raise' })]);
      const cases: Array<[unknown, RegExp]> = [
        [
          { type: 'T', severity: 'MAJOR' },
          /msg\.payload\.originator must be the entity to raise the alarm on.*\(missing\)/,
        ],
        [{ originator: 'abc', type: 'T', severity: 'MAJOR' }, /msg\.payload\.originator must be/],
        [
          { originator: { entityType: 'DEVICE', id: dev('Thermo A-101').id }, severity: 'MAJOR' },
          /msg\.payload\.type must be the alarm type/,
        ],
        [
          { originator: { entityType: 'DEVICE', id: dev('Thermo A-101').id }, type: 'T', severity: 'high' },
          /msg\.payload\.severity must be one of CRITICAL/,
        ],
        [
          {
            originator: { entityType: 'DEVICE', id: dev('Thermo A-101').id },
            type: 'T',
            severity: 'MAJOR',
            propagate: 'yes',
          },
          /msg\.payload\.propagate must be true or false/,
        ],
        ['a string', /msg\.payload\.originator/],
      ];
      for (const [payload, re] of cases) await fails('r', { payload }, 'TB_INVALID_INPUT', re);
      assert.equal(sim.countRequests('/api'), 0, 'nothing was sent (not even a login)');
    });
  });

  describe('delete', () => {
    it('answers the alarm as it was; an alarm already gone is already done (strict: not found)', async () => {
      await load([action('d', { operation: 'delete' }), action('ds', { operation: 'delete', strict: true })]);
      const alarm = newAlarm();
      let out = await ok('d', { payload: { id: alarm.id, type: alarm.type } });
      assert.equal((out.payload as Rec).id, alarm.id);
      assert.equal((out.payload as Rec).status, 'ACTIVE_UNACK');
      assert.equal(out.alreadyDone, false);
      assert.equal(out.operation, 'delete');
      assert.equal(stored(alarm.id), undefined);
      assert.deepEqual(last('d'), { fill: 'green', shape: 'dot', text: key('deleted') });
      out = await ok('d', { payload: alarm.id });
      assert.equal(out.alreadyDone, true);
      assert.equal(out.payload, null);
      assert.equal(out.topic, alarm.id);
      assert.deepEqual(last('d'), { fill: 'green', shape: 'dot', text: key('alreadyDeleted') });
      await fails(
        'ds',
        { payload: alarm.id },
        'TB_NOT_FOUND',
        new RegExp(`Alarm ${alarm.id} was not found: it was deleted, or never existed`),
      );
    });

    it('an alarm deleted between the look-up and the delete is already done, with the alarm as it was', async () => {
      await load([action('d', { operation: 'delete' })]);
      const alarm = newAlarm();
      sim.faults.add({
        path: `/api/alarm/${alarm.id}`,
        method: 'DELETE',
        status: 404,
        body: { status: 404, message: `Alarm with id [${alarm.id}] is not found`, errorCode: 32 },
      });
      const out = await ok('d', { payload: alarm.id });
      assert.equal(out.alreadyDone, true);
      assert.equal((out.payload as Rec).id, alarm.id);
    });
  });

  describe('where the alarm and the operation come from', () => {
    it('msg.operation, a message property, a fixed id, JSONata', async () => {
      const fixed = newAlarm();
      await load([
        action('op', { operation: 'msg' }),
        action('m', { alarm: 'req.alarmId', alarmType: 'msg' }),
        action('s', { alarm: fixed.id, alarmType: 'str', operation: 'clear' }),
        action('j', { alarm: 'payload.rows[0]', alarmType: 'jsonata' }),
      ]);
      const a = newAlarm();
      let out = await ok('op', { payload: a.id, operation: 'clear' });
      assert.equal(out.operation, 'clear');
      assert.equal(stored(a.id)!.cleared, true);
      await ok('op', { payload: a.id, operation: 'delete' });
      assert.equal(stored(a.id), undefined);
      await fails(
        'op',
        { payload: a.id, operation: 'Acknowledge' },
        'TB_INVALID_INPUT',
        /msg\.operation must be one of .*did you mean "acknowledge"\?/,
      );
      await fails(
        'op',
        { payload: a.id },
        'TB_INVALID_INPUT',
        /msg\.operation must be one of acknowledge, clear, assign, unassign, comment, raise, delete \(missing\)/,
      );

      const b = newAlarm();
      assert.equal((await ok('m', { payload: 'not this', req: { alarmId: b.id } })).topic, b.id);
      out = await ok('s', { payload: 'whatever', topic: 'whatever' });
      assert.equal(out.topic, fixed.id);
      assert.equal(stored(fixed.id)!.cleared, true);
      const c = newAlarm();
      const raw = { id: { entityType: 'ALARM', id: c.id }, type: c.type };
      assert.equal((await ok('j', { payload: { rows: [raw] } })).topic, c.id);
      assert.equal(stored(c.id)!.acknowledged, true);
    });

    it('bad alarm ids of every kind reach a Catch node naming where the node looked; nothing is sent; the node keeps working', async () => {
      await load([
        action('a'),
        action('m', { alarm: 'payload.alarm', alarmType: 'msg' }),
        action('j', { alarm: 'payload.nope', alarmType: 'jsonata' }),
      ]);
      const bad: Array<[string, Msg, RegExp]> = [
        [
          'a',
          { payload: 'ack' },
          /msg\.payload must be an alarm id.*\(got "ack"\).*looks for the alarm in msg\.payload\.id, then msg\.payload \(an alarm id\), then msg\.topic/,
        ],
        ['a', {}, /Send the alarm, or its id, in msg\.payload \(msg\.payload and msg\.topic are empty\)/],
        ['a', { payload: { id: 'abc' } }, /msg\.payload\.id must be the alarm's UUID \(got "abc"\)/],
        [
          'a',
          { payload: { id: dev('Thermo A-101').id, entityType: 'DEVICE', name: 'Thermo A-101' } },
          /this is a "DEVICE", not an alarm/,
        ],
        ['a', { topic: 'alarm-7' }, /msg\.topic must be an alarm id/],
        ['a', { payload: 12.5 }, /msg\.payload must be an alarm id.*\(got 12\.5\)/],
        ['m', { payload: { alarm: '1234' } }, /^TbInputError: msg\.payload\.alarm must be an alarm id/],
        ['m', { payload: {} }, /msg\.payload\.alarm must be an alarm id.*\(missing\)/],
        ['j', { payload: {} }, /alarm \(JSONata result\) must be an alarm id.*\(missing\)/],
      ];
      for (const [id, msg, re] of bad) await fails(id, msg, 'TB_INVALID_INPUT', re);
      assert.equal(sim.countRequests('/api'), 0, 'nothing was sent');
      assert.deepEqual(last('a'), { fill: 'red', shape: 'ring', text: key('invalidInput') });
      const alarm = newAlarm();
      assert.equal((await ok('a', { payload: alarm.id })).alreadyDone, false);
    });

    it('bad settings show a red dot at deploy and reject each message; a missing connection too', async () => {
      await load([
        action('s', { alarm: 'not-an-id', alarmType: 'str' }),
        action('o', { operation: 'escalate' }),
        action('f', { format: 'csv' }),
        action('r', { operation: 'raise', severity: 'HIGH' }),
        action('j', { alarm: 'payload.(', alarmType: 'jsonata' }),
        action('x', { connection: '' }),
        action('ok', { operation: 'raise', alarm: 'not-an-id', alarmType: 'str', alarmName: 'T', severity: 'MINOR' }),
      ]);
      for (const id of ['s', 'o', 'f', 'r', 'j', 'x'])
        assert.equal(statuses(id)[0].shape, 'dot', `${id}: a red dot at deploy`);
      assert.equal(statuses('ok').length, 0, 'a setting the operation does not use is no problem');
      await fails(
        's',
        { payload: newAlarm().id },
        'TB_INVALID_INPUT',
        /^TbInputError: alarm must be an alarm id.*\(got "not-an-id"\)/,
      );
      await fails(
        'o',
        { payload: newAlarm().id },
        'TB_CONFIG',
        /operation must be one of acknowledge, clear, assign, unassign, comment, raise, delete, msg \(got "escalate"\)/,
      );
      await fails('f', { payload: newAlarm().id }, 'TB_CONFIG', /format must be flat or raw/);
      await fails('r', { payload: {} }, 'TB_INVALID_INPUT', /severity must be one of/);
      await fails('j', { payload: {} }, 'TB_CONFIG', /JSONata expression of alarm is not valid/);
      await fails('x', { payload: newAlarm().id }, 'TB_CONFIG', /No ThingsBoard connection is selected/);
      assert.equal(sim.countRequests('/api'), 0);
    });

    it('a source, an entity type or a check box it does not allow is a problem where the operation uses it', async () => {
      await load([
        action('t', { alarmType: 'fixed' }),
        action('tr', { operation: 'raise', alarmType: 'fixed', alarmName: 'T', severity: 'MINOR' }),
        action('e', { operation: 'raise', originatorEntityType: 'GADGET' }),
        action('s', { strict: 'maybe' }),
      ]);
      for (const id of ['t', 'e', 's']) assert.equal(statuses(id)[0].shape, 'dot', `${id}: a red dot at deploy`);
      assert.equal(statuses('tr').length, 0, 'the alarm source of a raise is no problem');
      await fails(
        't',
        { payload: newAlarm().id },
        'TB_CONFIG',
        /^TbConfigError: alarmType must be one of auto, msg, str, jsonata \(got "fixed"\)$/,
      );
      await fails(
        'e',
        { payload: {} },
        'TB_CONFIG',
        /originatorEntityType must be one of DEVICE, ASSET, .* \(got "GADGET"\)/,
      );
      await fails('s', { payload: newAlarm().id }, 'TB_CONFIG', /strict must be true or false \(got "maybe"\)/);
      assert.equal(sim.countRequests('/api'), 0);
      const out = await ok('tr', { payload: { originator: { entityType: 'DEVICE', id: dev('Thermo A-101').id } } });
      assert.equal(out.created, true);
    });
  });

  describe('failures', () => {
    it('an alarm that is gone: TB_NOT_FOUND naming it, a red "not found"', async () => {
      await load([action('a'), action('c', { operation: 'comment' }), action('as', { operation: 'assign' })]);
      const gone = '0f8fad5b-d9cb-469f-a165-70867728950e';
      const err = await fails(
        'a',
        { payload: gone },
        'TB_NOT_FOUND',
        new RegExp(
          `^TbApiError: Alarm ${gone} was not found: it was deleted, or never existed \\(ThingsBoard answered HTTP ` +
            '404, errorCode 32',
        ),
      );
      assert.match(err.message as string, /POST \/api\/alarm\/.*\/ack/);
      assert.deepEqual(last('a'), { fill: 'red', shape: 'ring', text: key('notFound') });
      await fails('c', { payload: gone, comment: 'x' }, 'TB_NOT_FOUND', /was not found/);
      await fails('as', { payload: gone, assignee: 'tech@thingsboard.org' }, 'TB_NOT_FOUND', /Alarm .* was not found/);
    });

    it('a customer user acting on another customer\'s alarm: TB_PERMISSION, a red "not permitted"; its own alarms work', async () => {
      await load([action('a'), action('d', { operation: 'delete' })], CUSTOMER_A);
      const theirs = newAlarm('Thermo B-101');
      const err = await fails(
        'a',
        { payload: theirs.id },
        'TB_PERMISSION',
        new RegExp(`did not allow this connection's user to acknowledge alarm ${theirs.id}`),
      );
      assert.match(err.message as string, /HTTP 403, errorCode 20/);
      assert.deepEqual(last('a'), { fill: 'red', shape: 'ring', text: key('notPermitted') });
      await fails('d', { payload: theirs.id }, 'TB_PERMISSION');
      assert.equal(stored(theirs.id)!.acknowledged, false);
      assert.ok(stored(theirs.id));
      const mine = newAlarm('Thermo A-201');
      assert.equal(((await ok('a', { payload: mine.id })).payload as Rec).acknowledged, true);
    });

    it('429: retried with backoff, with a yellow status, then done; after every retry a rate-limit error', async () => {
      await load([action('a')]);
      const alarm = newAlarm();
      await ok('a', { payload: newAlarm().id }); // logged in
      sim.resetRequests();
      sim.faults.add({ path: `/api/alarm/${alarm.id}/ack`, status: 429, times: 2, retryAfter: 0 });
      const out = await ok('a', { payload: alarm.id });
      assert.equal(out.alreadyDone, false, 'the 429s changed nothing: the third try acknowledged it');
      assert.equal(sim.countRequests(`/api/alarm/${alarm.id}/ack`), 3);
      assert.ok(statuses('a').some((s) => s.fill === 'yellow' && s.text === key('retrying')));
      const other = newAlarm();
      sim.faults.add({ path: `/api/alarm/${other.id}/ack`, status: 429, times: 10 });
      await fails(
        'a',
        { payload: other.id },
        'TB_RATE_LIMITED',
        /Too many requests for current tenant! .*gave up after 3 retries/,
      );
      assert.deepEqual(last('a'), { fill: 'red', shape: 'ring', text: key('rateLimited') });
    });

    it('an expired token is refreshed and the action retried once', async () => {
      await load([action('a')]);
      await ok('a', { payload: newAlarm().id });
      sim.expireAllTokens();
      sim.resetRequests();
      const alarm = newAlarm();
      const out = await ok('a', { payload: alarm.id, comment: 'after refresh' });
      assert.equal(out.alreadyDone, false);
      assert.equal(sim.countRequests('/api/auth/token'), 1);
      assert.equal(sim.countRequests('/api/auth/login'), 0);
      assert.equal(sim.countRequests(`/api/alarm/${alarm.id}/ack`), 2, 'the 401 and the retry');
    });

    it('a server before 3.5: acknowledge answers nothing (the alarm is read back); assign says the server lacks it', async () => {
      sim.setVersion('3.4.4');
      try {
        await load([action('a'), action('as', { operation: 'assign' })]);
        const alarm = newAlarm();
        const out = await ok('a', { payload: alarm.id });
        assert.equal((out.payload as Rec).acknowledged, true);
        assert.equal((out.payload as Rec).id, alarm.id);
        assert.equal(sim.countRequests(`/api/alarm/info/${alarm.id}`, 'GET'), 1, 'the alarm read back');
        await fails(
          'as',
          { payload: alarm.id, assignee: userId('tech@thingsboard.org') },
          'TB_NOT_FOUND',
          /This ThingsBoard server does not offer "assign" for alarms \(.*ThingsBoard 3\.5 or newer\)/,
        );
        await fails(
          'as',
          { payload: alarm.id, assignee: 'tech@thingsboard.org' },
          'TB_NOT_FOUND',
          /does not offer "assign"/,
        );
      } finally {
        sim.setVersion('4.3.1.3');
      }
    });

    it('never puts the password in a message, an error or a status', async () => {
      const secret = 'S3cr3t-Pa55word';
      await load([action('a')], { username: 'tenant@thingsboard.org', password: secret });
      const err = await fails('a', { payload: newAlarm().id }, 'TB_AUTH_FAILED');
      assert.ok(!JSON.stringify(err).includes(secret));
      assert.ok(!JSON.stringify(statuses('a')).includes(secret));
    });
  });

  it('pipeline: tb-subscribe alarm "created" → acknowledge with a comment → tb-subscribe reports "acknowledged"', async () => {
    const query = {
      entityFilter: { type: 'entityType', entityType: 'DEVICE' },
      pageLink: {
        page: 0,
        pageSize: 100,
        statusList: ['ACTIVE'],
        sortOrder: { key: { type: 'ALARM_FIELD', key: 'createdTime' }, direction: 'DESC' },
      },
    };
    const sub = (id: string, events: string, wires: string[][]) => ({
      id,
      type: 'tb-subscribe',
      connection: 'c1',
      kind: 'alarmData',
      queryType: 'json',
      query: JSON.stringify(query),
      format: 'flat',
      events,
      wires,
    });
    await helper.load(
      NODES,
      [
        ...(flow(
          connectionNode(sim.url),
          sub('created', 'created', [['ack']]),
          sub('changes', 'acknowledged', [['seen']]),
          action('ack', { comment: 'Acknowledged by the on-call flow', commentType: 'str' }),
        ) as Rec[]),
        { id: 'seen', type: 'helper', z: 't', x: 500, y: 300, wires: [] },
      ] as never,
      { c1: TENANT },
    );
    const out = new Collector('out');
    const seen = new Collector('seen');
    // both subscriptions are live (green) before the alarm is raised
    const live = (id: string) =>
      statuses(id).some((s) => s.fill === 'green') ? Promise.resolve() : statusWhere(id, (s) => s.fill === 'green');
    await Promise.all([live('created'), live('changes')]);
    const alarm = sim.data.createAlarm({
      originator: dev('Thermo G-102').id,
      type: `Pipeline ${++n}`,
      severity: 'CRITICAL',
    });
    const done = await out.until((m) => m.topic === alarm.id, 8000, true);
    assert.equal(done.operation, 'acknowledge');
    assert.equal(done.alreadyDone, false);
    assert.equal(done.event, 'created', "the subscription's message, passed on");
    const ev = await seen.until((m) => m.topic === alarm.id && m.event === 'acknowledged', 8000, true);
    assert.equal((ev.payload as Rec).acknowledged, true);
    assert.equal((ev.payload as Rec).status, 'ACTIVE_ACK');
    assert.equal(sim.data.alarmComments(alarm.id).filter((c) => c.type === 'OTHER').length, 1);
  });
});
