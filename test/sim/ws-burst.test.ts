import assert from 'node:assert/strict';
import { performance } from 'node:perf_hooks';
import { burstKeys } from '../../sim/ws';
import { tsKey, wsSetup, type Msg, type WsCtx } from '../../sim/ws-client';

function benchQuery(keys: string[]): Record<string, unknown> {
  return {
    entityFilter: { type: 'entityName', entityType: 'DEVICE', entityNameFilter: 'Bench-' },
    pageLink: { page: 0, pageSize: 1000, sortOrder: { key: { type: 'ENTITY_FIELD', key: 'name' }, direction: 'ASC' } },
    entityFields: [],
    latestValues: keys.map(tsKey),
    keyFilters: [],
  };
}

describe('simulator ws: telemetry burst hook', function () {
  let c: WsCtx;
  afterEach(async () => {
    await c.stop();
  });

  it('writes `updates` values round-robin, stamped with sentAt and seq; one message per update', async () => {
    c = await wsSetup({ dataset: { extraDevices: 20 } });
    const keys = burstKeys(3);
    assert.deepEqual(keys, ['sentAt', 'seq', 'v3']);
    const ws = await c.connect([
      { type: 'ENTITY_DATA', cmdId: 1, query: benchQuery(keys), latestCmd: { keys: keys.map(tsKey) } },
    ]);
    const page = await ws.forCmd(1);
    assert.equal(page.data.data.length, 20);
    const res = await c.sim.ws.pushTelemetryBurst({ entities: 10, updates: 500, keysPerUpdate: 3 });
    assert.equal(res.updates, 500);
    assert.equal(res.entities, 10);
    assert.equal(res.messagesSent, 500);
    assert.equal(res.aborted, false);
    assert.equal(res.entityIds[0], page.data.data[0].entityId.id, 'the first bench devices');
    await ws.count(501);
    const received = performance.timeOrigin + performance.now();
    const updates = ws.messages.slice(1);
    updates.forEach((m: Msg, i: number) => {
      const ts = m.update[0].latest.TIME_SERIES;
      assert.deepEqual(Object.keys(ts), keys);
      assert.equal(ts.seq.value, String(i + 1));
      assert.equal(ts.v3.value, String(i + 1));
      assert.equal(m.update[0].entityId.id, res.entityIds[i % 10]);
      const sentAt = Number(ts.sentAt.value);
      assert.ok(sentAt >= res.startedAt && sentAt <= received, `sentAt ${ts.sentAt.value}`);
    });
    const perEntity = new Map<string, number[]>();
    for (const m of updates) {
      const l = perEntity.get(m.update[0].entityId.id) ?? [];
      l.push(m.update[0].latest.TIME_SERIES.sentAt.ts);
      perEntity.set(m.update[0].entityId.id, l);
    }
    for (const l of perEntity.values())
      for (let i = 1; i < l.length; i++) assert.ok(l[i] > l[i - 1], 'ts increase per device');
  });

  it('respects backpressure: never overflows wsMaxQueue, stalls until the session drains', async () => {
    c = await wsSetup({ dataset: { extraDevices: 2 }, wsMaxQueue: 40 });
    const ws = await c.connect([
      { type: 'ENTITY_DATA', cmdId: 1, query: benchQuery(['seq']), latestCmd: { keys: [tsKey('seq')] } },
    ]);
    await ws.forCmd(1);
    c.sim.ws.delayMs(3); // messages stay pending for a while: the burst must wait for them
    const res = await c.sim.ws.pushTelemetryBurst({ entities: 1, updates: 300, keysPerUpdate: 2 });
    assert.ok(res.stalls > 0, 'it waited');
    await ws.count(301);
    assert.equal(ws.isClosed, false, 'no 1008 close');
    assert.equal(ws.messages[300].update[0].latest.TIME_SERIES.seq.value, '300');
  });

  it('a session that does not drain within stallTimeoutMs is given up: closed 1008, the burst completes', async () => {
    c = await wsSetup({ dataset: { extraDevices: 1 }, wsMaxQueue: 40 });
    const stuck = await c.connect([
      { type: 'ENTITY_DATA', cmdId: 1, query: benchQuery(['seq']), latestCmd: { keys: [tsKey('seq')] } },
    ]);
    await stuck.forCmd(1);
    c.sim.ws.delayMs(60_000);
    const res = await c.sim.ws.pushTelemetryBurst({ entities: 1, updates: 200, keysPerUpdate: 2, stallTimeoutMs: 30 });
    assert.equal(res.updates, 200);
    assert.equal(res.stalls, 1);
    assert.ok(res.stallMs >= 25);
    assert.deepEqual(await stuck.closed, { code: 1008, reason: 'Max pending updates limit reached!' });
  });

  it('ratePerSec paces the writes', async () => {
    c = await wsSetup({ dataset: { extraDevices: 1 } });
    const res = await c.sim.ws.pushTelemetryBurst({ entities: 1, updates: 41, ratePerSec: 400 });
    assert.equal(res.updates, 41);
    assert.ok(res.durationMs >= 95, `took ${res.durationMs} ms`);
  });

  it('targets: bench devices by default, else a name prefix or explicit ids; too few is an error', async () => {
    c = await wsSetup();
    await assert.rejects(
      c.sim.ws.pushTelemetryBurst({ entities: 100, updates: 1 }),
      /only 28 target devices, 100 requested/,
    );
    const r = await c.sim.ws.pushTelemetryBurst({ entities: 2, updates: 4, namePrefix: 'Thermo G' });
    assert.deepEqual(
      r.entityIds.map((id) => c.sim.data.get(id)?.name),
      ['Thermo G-101', 'Thermo G-102'],
    );
    assert.equal(c.sim.data.latestOf(r.entityIds[1], 'sentAt')?.type, 'DOUBLE');
    const lab = c.sim.data.mustFindByName('DEVICE', 'Thermo Lab');
    const r2 = await c.sim.ws.pushTelemetryBurst({ entities: 1, updates: 3, keysPerUpdate: 2, entityIds: [lab.id] });
    assert.equal(r2.entityIds[0], lab.id);
    assert.deepEqual(c.sim.data.latestOf(lab.id, 'seq')?.value, 3);
  });

  it('a device listed twice in entityIds: each write a later ts than the last, none replaces another', async () => {
    c = await wsSetup({ dataset: { extraDevices: 3 } });
    const [a, b] = [...c.sim.data.entitiesOfType('DEVICE')].filter((e) => e.bench !== undefined);
    // a at places 0 and 2: one clock for the device, not one per place (the fake clock stands still)
    const r = await c.sim.ws.pushTelemetryBurst({
      entities: 3,
      updates: 9,
      keysPerUpdate: 2,
      entityIds: [a.id, b.id, a.id],
    });
    assert.deepEqual(r.entityIds, [a.id, b.id, a.id]);
    const seqs = c.sim.data.history(a.id, 'seq');
    assert.deepEqual(
      seqs.map((p) => p.value),
      [1, 3, 4, 6, 7, 9],
    );
    for (let i = 1; i < seqs.length; i++)
      assert.ok(seqs[i].ts > seqs[i - 1].ts, `ts ${seqs[i].ts} after ${seqs[i - 1].ts}`);
  });

  it('a removed device is no longer written through its old object', async () => {
    c = await wsSetup({ dataset: { extraDevices: 3 } });
    const [a] = [...c.sim.data.entitiesOfType('DEVICE')].filter((e) => e.bench !== undefined);
    c.sim.data.setTelemetry(a, { seq: 1 });
    c.sim.data.removeEntity(a.id);
    assert.throws(() => c.sim.data.setTelemetry(a, { seq: 2 }), /Unknown entity/);
  });

  it('out of process: POST /__sim/ws/burst', async () => {
    c = await wsSetup({ dataset: { extraDevices: 3 } });
    const ws = await c.connect([
      { type: 'ENTITY_DATA', cmdId: 1, query: benchQuery(['sentAt']), latestCmd: { keys: [tsKey('sentAt')] } },
    ]);
    await ws.forCmd(1);
    const post = async (body: unknown): Promise<Msg> =>
      (
        await fetch(`${c.url}/__sim/ws/burst`, {
          method: 'POST',
          body: JSON.stringify(body),
          headers: { 'Content-Type': 'application/json' },
        })
      ).json();
    const r = await post({ entities: 3, updates: 30 });
    assert.equal(r.updates, 30);
    assert.equal(r.messagesSent, 30);
    await ws.count(31);
    const started = await post({ entities: 3, updates: 10, wait: false });
    assert.equal(started.status, 'running');
    const rec = await (await fetch(`${c.url}/__sim/ws/burst/${started.id as number}`)).json();
    assert.equal(rec.id, started.id);
    await ws.count(41);
    const bad = await fetch(`${c.url}/__sim/ws/burst`, { method: 'POST', body: JSON.stringify({ entities: 'x' }) });
    assert.equal(bad.status, 400);
  });
});
