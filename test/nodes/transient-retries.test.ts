/**
 * Transient server errors (502, 503, 504) and answers too large, per node kind, in the real runtime against the
 * simulator: what is retried (reads, and writes that land the same way twice), what is never sent twice (an alarm
 * comment, a raise, an RPC), retries running out, and the connection's Largest answer (maxResponseMB).
 */
import assert from 'node:assert/strict';
import { BASE_TIME, HOUR } from '../../sim';
import tbAlarmAction from '../../src/nodes/tb-alarm-action/index';
import tbAttributes from '../../src/nodes/tb-attributes/index';
import tbConnection from '../../src/nodes/tb-connection/index';
import tbEntityQuery from '../../src/nodes/tb-entity-query/index';
import tbRpc from '../../src/nodes/tb-rpc/index';
import tbTelemetry from '../../src/nodes/tb-telemetry/index';
import { flowsOn, helper, key, lastStatus, statuses, useRuntime, type Msg, type Rec } from '../support/runtime';

const NODES = [tbConnection, tbEntityQuery, tbTelemetry, tbAttributes, tbAlarmAction, tbRpc];
const T = '/api/plugins/telemetry';
const FIND = '/api/entitiesQuery/find';
const THERMOSTATS = {
  entityFilter: { type: 'deviceType', deviceTypes: ['thermostat'] },
  entityFields: [{ type: 'ENTITY_FIELD', key: 'name' }],
  pageLink: { page: 0, pageSize: 5 },
};

const node = (id: string, type: string, props: Rec = {}): Rec => ({
  id,
  type,
  connection: 'c1',
  wires: [['out']],
  ...props,
});
const query = (id: string, props: Rec = {}) =>
  node(id, 'tb-entity-query', { queryType: 'json', query: JSON.stringify(THERMOSTATS), ...props });

const FAST_RETRIES = { tbConnectionRetryInitialMs: 5, tbConnectionRetryMaxMs: 20 };

describe('transient server errors and answers too large (runtime + simulator)', function () {
  const sim = useRuntime(
    { now: () => BASE_TIME + HOUR },
    {
      settings: FAST_RETRIES,
      reset: (s) => s.resetRequests(),
      cleanup: (s) => s.faults.clear(),
    },
  );
  const { load, results } = flowsOn(sim, NODES);
  const dev = (name: string) => sim.data.mustFindByName('DEVICE', name);
  let n = 0;
  const newAlarm = () =>
    sim.data.createAlarm({ originator: dev('Thermo A-101').id, type: `Transient ${++n}`, severity: 'MAJOR' });
  const ok = (id: string, msg: Msg = {}) => results.ok(id, msg);
  const fails = async (id: string, msg: Msg, code: string, re?: RegExp) =>
    (await results.fails(id, msg, code, re)).error;

  describe('retried: reads and writes that land the same way twice', () => {
    it('a query through 502, 503 and 504 (one each), with "retrying (n)" in the status, then its answer', async () => {
      await load([query('q')]);
      await ok('q'); // signed in
      sim.resetRequests();
      for (const status of [502, 503, 504]) sim.faults.add({ path: FIND, status });
      const out = await ok('q');
      assert.equal((out.payload as unknown[]).length, 5);
      assert.equal(sim.countRequests(FIND), 4, 'three faults, then the answer');
      const retrying = statuses('q').filter((s) => s.fill === 'yellow');
      assert.deepEqual(
        retrying.map((s) => s.text),
        [1, 2, 3].map(() => key('retrying')),
      );
      assert.equal(lastStatus('q')!.fill, 'green');
    });

    it('retries run out: one TB_UNAVAILABLE error with the status, the words and the tries; never more than retries + 1 requests; the next message works', async () => {
      await load([query('q')], undefined, { retries: 2 });
      await ok('q');
      sim.resetRequests();
      const id = sim.faults.add({
        path: FIND,
        status: 503,
        times: Infinity,
        body: { status: 503, message: 'Rule engine queue is full', errorCode: 2 },
      });
      const error = await fails(
        'q',
        {},
        'TB_UNAVAILABLE',
        /HTTP 503, errorCode 2: Rule engine queue is full .*gave up after 2 retries, 3 tries/,
      );
      assert.ok(!/password|tenant@/.test(error.message as string));
      assert.equal(sim.countRequests(FIND), 3, 'retries (2) + 1');
      assert.deepEqual(lastStatus('q'), { fill: 'red', shape: 'ring', text: key('httpError') });
      sim.faults.remove(id);
      assert.equal(((await ok('q')).payload as unknown[]).length, 5, 'the node answers the next message');
    });

    it("retries left empty, or missing from a connection saved before it had them, are settings.js's count", async () => {
      helper.settings({ ...FAST_RETRIES, tbConnectionRetryCount: 1 } as Rec);
      try {
        // [the connection's settings, the requests of a query that meets 503 every time]
        const cases: Array<[Rec, number]> = [
          [{}, 2], // version 1 (0.1.0) had no retries: settings.js's 1
          [{ version: 2, retries: '' }, 2], // left empty: settings.js's 1
          [{ version: 2 }, 4], // version 2 without it (written by hand): its default, 3
          [{ version: 2, retries: 0 }, 1],
        ];
        for (const [conn, requests] of cases) {
          await load([query('q')], undefined, conn);
          await ok('q');
          sim.resetRequests();
          const id = sim.faults.add({ path: FIND, status: 503, times: Infinity });
          await fails('q', {}, 'TB_UNAVAILABLE');
          assert.equal(sim.countRequests(FIND), requests, JSON.stringify(conn));
          sim.faults.remove(id);
          await helper.unload();
        }
      } finally {
        helper.settings(FAST_RETRIES as Rec);
      }
    });

    it('a telemetry save answered 502 after the server stored it: sent again, exactly one point', async () => {
      await load([node('t', 'tb-telemetry')]);
      const d = sim.data.addEntity({ entityType: 'DEVICE', name: `Transient probe ${++n}`, type: 'thermostat' });
      const path = `${T}/DEVICE/${d.id}/timeseries`;
      sim.faults.add({ path, status: 502, handled: true });
      const out = await ok('t', { entity: d.id, payload: { temperature: 30 } });
      const ts = (out.payload as Array<{ ts: number }>)[0].ts;
      assert.equal(sim.countRequests(path, 'POST'), 2);
      assert.deepEqual(
        sim.data.history(d.id, 'temperature').map((x) => [x.ts, x.value]),
        [[ts, 30]],
        'exactly one point',
      );
    });

    it('an attribute save answered 504 after the server stored it: sent again, the same value once', async () => {
      await load([node('a', 'tb-attributes', { scope: 'SHARED_SCOPE' })]);
      const d = sim.data.addEntity({ entityType: 'DEVICE', name: `Transient probe ${++n}`, type: 'thermostat' });
      const path = `${T}/DEVICE/${d.id}/attributes/SHARED_SCOPE`;
      sim.faults.add({ path, status: 504, handled: true });
      await ok('a', { entity: d.id, payload: { targetTemp: 21 } });
      assert.equal(sim.countRequests(path, 'POST'), 2);
      assert.equal(sim.data.attributeOf(d.id, 'SHARED_SCOPE', 'targetTemp')?.value, 21);
    });

    it('an acknowledge answered 502 after the server did it: sent again, and the second answer ("already acknowledged") counts as done', async () => {
      await load([node('a', 'tb-alarm-action')]);
      const alarm = newAlarm();
      sim.faults.add({ path: `/api/alarm/${alarm.id}/ack`, status: 502, handled: true });
      const out = await ok('a', { payload: alarm.id });
      assert.equal((out.payload as Rec).acknowledged, true);
      assert.equal(sim.countRequests(`/api/alarm/${alarm.id}/ack`), 2);
      assert.equal(sim.data.getAlarm(alarm.id)!.acknowledged, true);
    });
  });

  describe('never sent twice once it may have reached the server', () => {
    it('an alarm comment answered 502: at Catch at once, saying the server may or may not have applied it; one comment at most', async () => {
      await load([node('c', 'tb-alarm-action', { operation: 'comment' })]);
      const alarm = newAlarm();
      const path = `/api/alarm/${alarm.id}/comment`;
      sim.faults.add({ path, status: 502, handled: true });
      await fails(
        'c',
        { payload: alarm.id, comment: 'Truck dispatched' },
        'TB_UNAVAILABLE',
        /HTTP 502.*may or may not have applied it/,
      );
      assert.equal(sim.countRequests(path), 1, 'not resent');
      assert.equal(
        sim.data.alarmComments(alarm.id).filter((c) => c.type === 'OTHER').length,
        1,
        'the one comment the server took',
      );
    });

    it('a raise answered 503: at Catch at once, not resent', async () => {
      await load([node('r', 'tb-alarm-action', { operation: 'raise' })]);
      sim.faults.add({ path: /^\/api\/alarm$/, method: 'POST', status: 503 });
      await fails(
        'r',
        {
          payload: {
            originator: { entityType: 'DEVICE', id: dev('Thermo A-102').id },
            type: `Raised ${++n}`,
            severity: 'MINOR',
          },
        },
        'TB_UNAVAILABLE',
        /HTTP 503.*not sent again/,
      );
      assert.equal(sim.countRequests(/^\/api\/alarm$/, 'POST'), 1, 'not resent');
    });

    it('an RPC answered 502: at Catch at once, not resent', async () => {
      await load([node('r', 'tb-rpc', { method: 'reboot', methodType: 'str', mode: 'oneway' })]);
      const d = dev('Thermo A-101');
      sim.rpc.setDevice(d.id, { mode: 'answer', reply: () => ({}) });
      sim.faults.add({ path: '/api/rpc/', status: 502 });
      const error = await fails(
        'r',
        { entity: d.id, payload: {} },
        'TB_UNAVAILABLE',
        /HTTP 502.*may or may not have applied it/,
      );
      assert.ok(error);
      assert.equal(sim.countRequests('/api/rpc/', 'POST'), 1);
    });
  });

  describe('Largest answer (maxResponseMB)', () => {
    for (const chunked of [false, true]) {
      it(`an answer over the limit (${chunked ? 'chunked, as ThingsBoard sends it' : 'its length declared'}) is dropped: TB_RESPONSE_TOO_LARGE names the limit and the setting; the node goes on`, async () => {
        await load([query('q')], undefined, { maxResponseMB: 1 });
        sim.faults.add({ path: FIND, bodyBytes: 3 * 1024 * 1024, chunked });
        const error = await fails(
          'q',
          {},
          'TB_RESPONSE_TOO_LARGE',
          /more than 1 MB, the connection's limit \(Largest answer \(maxResponseMB\)\).*smaller page size/,
        );
        assert.ok(error);
        assert.deepEqual(lastStatus('q'), { fill: 'red', shape: 'dot', text: key('answerTooLarge') });
        assert.equal(
          ((await ok('q')).payload as unknown[]).length,
          5,
          'the next answer, within the limit, is delivered',
        );
      });
    }

    it('the same answer is read and delivered once the limit is raised', async () => {
      const all = { ...THERMOSTATS, pageLink: { page: 0, pageSize: 100 } };
      await load([query('q', { query: JSON.stringify(all) })], undefined, { maxResponseMB: 0.002 });
      await fails('q', {}, 'TB_RESPONSE_TOO_LARGE', /more than 2 KB/);
      await helper.unload();
      await load([query('q', { query: JSON.stringify(all) })], undefined, { maxResponseMB: 1 });
      const out = await ok('q');
      assert.ok((out.payload as unknown[]).length > 5);
    });
  });
});
