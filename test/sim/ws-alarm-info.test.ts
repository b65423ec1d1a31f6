import assert from 'node:assert/strict';
import { useSimSetup } from '../support/simulator';

describe('simulator: GET /api/alarm/info/{alarmId}', function () {
  const c = useSimSetup({}, { perTest: true });

  const alarmOf = (name: string): string => {
    const dev = c.sim.data.mustFindByName('DEVICE', name);
    const a = c.sim.data.alarms().find((x) => x.originator.id === dev.id);
    assert.ok(a, `an alarm of ${name}`);
    return a.id;
  };

  it('answers the AlarmInfo of one alarm (no entityId / latest)', async () => {
    const id = alarmOf('Thermo A-101');
    const r = await c.tenant.request('GET', `/api/alarm/info/${id}`);
    assert.equal(r.status, 200);
    const body = r.body as Record<string, unknown>;
    assert.equal(body.entityId, undefined);
    assert.equal(body.latest, undefined);
    assert.equal(body.originatorName, 'Thermo A-101');
    assert.equal(body.status, 'ACTIVE_UNACK');
    const alarm = c.sim.data.getAlarm(id);
    assert.ok(alarm);
    assert.deepEqual(body, c.sim.data.alarmInfo(alarm));
  });

  it('404 code 32 for an unknown id, 400 for a bad UUID, 401 without a token', async () => {
    const r = await c.tenant.request('GET', '/api/alarm/info/5f3c9a10-e71b-11f0-9d7e-8b1f2c3d4e5f');
    assert.equal(r.status, 404);
    // BaseController#checkEntityId: checkNotNull(entity, "<Type> with id [<id>] is not found")
    assert.deepEqual(
      [r.body.status, r.body.message, r.body.errorCode],
      [404, 'Alarm with id [5f3c9a10-e71b-11f0-9d7e-8b1f2c3d4e5f] is not found', 32],
    );
    assert.equal(typeof r.body.timestamp, 'number');
    const bad = await c.tenant.request('GET', '/api/alarm/info/nope');
    assert.deepEqual([bad.status, bad.body.errorCode, bad.body.message], [400, 31, 'Invalid UUID string: nope']);
    assert.equal((await c.anon.request('GET', `/api/alarm/info/${alarmOf('Thermo A-101')}`)).status, 401);
    assert.equal((await c.tenant.request('GET', '/api/alarm/info/')).status, 404, 'no id: unknown path');
  });

  it("customers see their own customer's alarms only", async () => {
    assert.equal((await c.customer.request('GET', `/api/alarm/info/${alarmOf('Thermo A-101')}`)).status, 200);
    const other = await c.customer.request('GET', `/api/alarm/info/${alarmOf('Thermo B-101')}`);
    assert.deepEqual([other.status, other.body.errorCode], [403, 20]);
  });
});
