/**
 * The simulator's heated rooms (sim/rooms.ts): off until started; then each step moves every thermostat's temperature
 * toward the warmer of its own temperature and its target, the target set by the shared attribute
 * `targetTemperature` (over REST, as a client saves it) or by the RPC `setTarget` the device took. Steps are called
 * by the test and the clock is the simulator's fake one: no timers, no sleeps.
 */
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { Simulator, type SimEntity } from '../../sim/index';
import { NOW, type Ctx } from '../../sim/testkit';
import { useSimSetup } from '../support/simulator';

describe('simulator: heated rooms (sim.rooms)', function () {
  const c: Ctx = useSimSetup({ rpcTimers: 'manual' }, { perTest: true });
  let room: SimEntity;

  beforeEach(() => {
    room = c.sim.data.mustFindByName('DEVICE', 'Thermo A-201'); // 19.0 °C, shared targetTemperature 21.0
  });

  const temperature = (e: SimEntity = room) => c.sim.data.latestOf(e.id, 'temperature')?.value;
  /** Steps until nothing changes any more (at most `max` steps); returns the room's temperatures, one per step. */
  function stepAll(max = 100, e: SimEntity = room): unknown[] {
    const seen: unknown[] = [];
    for (let i = 0; i < max; i++) {
      const before = temperature(e);
      c.sim.rooms.step();
      if (temperature(e) === before) return seen;
      seen.push(temperature(e));
    }
    throw new Error(`still moving after ${max} steps`);
  }
  const saveTarget = (e: SimEntity, body: unknown) =>
    c.tenant.ok(`/api/plugins/telemetry/DEVICE/${e.id}/attributes/SHARED_SCOPE`, body);
  const rpc = (e: SimEntity, params: unknown) =>
    c.tenant.post(`/api/rpc/oneway/${e.id}`, { method: 'setTarget', params });

  it('nothing moves until started: the stored data stays as it is', () => {
    assert.equal(c.sim.rooms.started, false);
    const version = c.sim.data.version;
    assert.equal(c.sim.rooms.step(), 0);
    assert.equal(c.sim.data.version, version);
    assert.equal(temperature(), 19);
  });

  it('a room below its target warms one step at a time, each point at the clock and after the last, then holds', () => {
    c.sim.rooms.start();
    assert.deepEqual(c.sim.rooms.room(room.id), {
      id: room.id,
      name: 'Thermo A-201',
      temperature: 19,
      own: 19,
      target: 21,
    });
    const before = c.sim.data.history(room.id, 'temperature').length;
    assert.deepEqual(stepAll(), [19.2, 19.4, 19.6, 19.8, 20, 20.2, 20.4, 20.6, 20.8, 21]);
    // Stored as a device reports it: doubles, at the simulator clock (frozen here), each point after the one before.
    const points = c.sim.data.history(room.id, 'temperature').slice(before);
    assert.deepEqual(
      points.map((p) => [p.type, p.ts - NOW]),
      Array.from({ length: 10 }, (_, i) => ['DOUBLE', i]),
    );
    // Held at the target: nothing more is written.
    for (let i = 0; i < 5; i++) c.sim.rooms.step();
    assert.equal(temperature(), 21);
    assert.equal(c.sim.data.history(room.id, 'temperature').length, before + 10);
  });

  it('the shared attribute saved over REST sets the target; above it a room drifts back to its own temperature, never below the target', async () => {
    c.sim.rooms.start({ ownTemperature: () => 19 });
    await saveTarget(room, { targetTemperature: 20 });
    assert.equal(stepAll().at(-1), 20);
    await saveTarget(room, { targetTemperature: 22.5 });
    assert.equal(c.sim.rooms.room(room.id)?.target, 22.5);
    assert.deepEqual(stepAll(), [20.2, 20.4, 20.6, 20.8, 21, 21.2, 21.4, 21.6, 21.8, 22, 22.2, 22.4, 22.5]);
    // A lower target: the heater stops and the room cools toward its own 19 °C, held up at the new target.
    await saveTarget(room, { targetTemperature: 21.5 });
    assert.deepEqual(stepAll(), [22.3, 22.1, 21.9, 21.7, 21.5]);
    // No target any more: back to its own temperature.
    await c.tenant.request('DELETE', `/api/plugins/telemetry/DEVICE/${room.id}/SHARED_SCOPE?keys=targetTemperature`);
    assert.equal(c.sim.rooms.room(room.id)?.target, undefined);
    assert.equal(stepAll().at(-1), 19);
  });

  it('a warm room stays warm: a target below its own temperature does not cool it', async () => {
    const warm = c.sim.data.mustFindByName('DEVICE', 'Thermo G-202'); // 30.5 °C
    c.sim.rooms.start();
    await saveTarget(warm, { targetTemperature: 31 });
    assert.deepEqual(stepAll(100, warm), [30.7, 30.9, 31]);
    await saveTarget(warm, { targetTemperature: 21 });
    assert.deepEqual(stepAll(100, warm), [30.8, 30.6, 30.5]);
    for (let i = 0; i < 20; i++) c.sim.rooms.step();
    assert.equal(temperature(warm), 30.5);
  });

  it('the RPC setTarget a device takes sets its target (a number, a text, {target}); the last of RPC and attribute wins', async () => {
    c.sim.rooms.start();
    assert.equal((await rpc(room, 20)).status, 200);
    assert.equal(c.sim.rooms.room(room.id)?.target, 20);
    await rpc(room, '22');
    assert.equal(c.sim.rooms.room(room.id)?.target, 22);
    await rpc(room, { target: 23.5 });
    assert.equal(c.sim.rooms.room(room.id)?.target, 23.5);
    assert.equal(stepAll().at(-1), 23.5);
    // Params that hold no number, and other methods, change nothing.
    await rpc(room, { mode: 'eco' });
    await c.tenant.post(`/api/rpc/oneway/${room.id}`, { method: 'setFanSpeed', params: 3 });
    assert.equal(c.sim.rooms.room(room.id)?.target, 23.5);
    // An attribute saved after it wins, and an RPC after that wins again.
    await saveTarget(room, { targetTemperature: 24 });
    assert.equal(c.sim.rooms.room(room.id)?.target, 24);
    await rpc(room, { targetTemperature: 22 });
    assert.equal(c.sim.rooms.room(room.id)?.target, 22);
  });

  it('a device that is offline takes no setTarget: its room does not move (the RPC hooks apply)', async () => {
    c.sim.rooms.start();
    c.sim.rpc.setDevice(room.id, { mode: 'offline' });
    const taken = once(c.sim.rpc.events, 'request');
    const answer = rpc(room, 25);
    // The server waits the whole window for an offline device: moved on by the manual RPC timers.
    await taken;
    c.sim.rpc.advance(30_000);
    assert.equal((await answer).status, 504);
    assert.equal(c.sim.rooms.room(room.id)?.target, 21);
    assert.equal(stepAll().at(-1), 21);
  });

  it("a room's own temperature follows the clock given: the same clock and steps give the same values", () => {
    const own = (_: SimEntity, ts: number) => 18 + ((ts - NOW) / 60_000) * 0.1; // 0.1 °C warmer a minute
    const runs: unknown[][] = [];
    for (const sim of [c.sim, new Simulator({ now: () => c.clock.now })]) {
      c.clock.now = NOW;
      const thermo = sim.data.mustFindByName('DEVICE', 'Thermo G-203'); // 17.5 °C, target 21
      sim.rooms.start({ ownTemperature: own, stepSize: 0.5 });
      sim.data.setAttributes(thermo.id, 'SHARED_SCOPE', { targetTemperature: 15 });
      const seen: unknown[] = [];
      for (let minute = 0; minute < 40; minute += 5) {
        c.clock.now = NOW + minute * 60_000;
        sim.rooms.step();
        seen.push(sim.data.latestOf(thermo.id, 'temperature')?.value);
      }
      sim.rooms.stop();
      runs.push(seen);
    }
    assert.deepEqual(runs[0], [18, 18.5, 19, 19.5, 20, 20.5, 21, 21.5]);
    assert.deepEqual(runs[1], runs[0]);
  });

  it('only thermostats are rooms; one without a number starts from its own temperature', () => {
    const meter = c.sim.data.mustFindByName('DEVICE', 'Meter A-100');
    const odd = c.sim.data.mustFindByName('DEVICE', 'Thermo B-102'); // temperature "n/a"
    const missing = c.sim.data.mustFindByName('DEVICE', 'Thermo B-202'); // no temperature
    c.sim.rooms.start({ ownTemperature: (r) => (r.name === 'Thermo B-102' ? 20 : undefined) });
    assert.equal(c.sim.rooms.room(meter.id), undefined);
    c.sim.rooms.step();
    assert.equal(temperature(odd), 20.2, 'from its own 20 °C toward the target 21');
    assert.equal(temperature(missing), undefined, 'no value and no own temperature: left alone');
    assert.equal(c.sim.data.latestOf(meter.id, 'temperature'), undefined);
  });

  it('stop: the targets are forgotten and nothing moves; a new start reads them again', async () => {
    c.sim.rooms.start();
    await rpc(room, 25);
    c.sim.rooms.stop();
    assert.equal(c.sim.rooms.step(), 0);
    assert.equal(temperature(), 19);
    c.sim.rooms.start();
    assert.equal(c.sim.rooms.room(room.id)?.target, 21, 'the shared attribute, not the old RPC');
    assert.throws(() => c.sim.rooms.start({ stepSize: 0 }), /stepSize/);
  });
});
