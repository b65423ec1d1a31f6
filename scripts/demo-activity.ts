/**
 * Life for the `npm start` demo: the simulator's stored data is anchored at 2026-01-01, so the demo first writes a
 * week of hourly history up to now (so "last 24 hours" reports have rows), then every 3 s moves the thermostats'
 * temperatures and the meters' energy, and raises, acknowledges and clears an alarm now and then (so the live flows
 * have something to show). Deterministic: the same clock gives the same values.
 *
 * The thermostats are heated rooms (the simulator's `sim.rooms`): each has a temperature of its own that moves with
 * the day, and a heater that warms it toward its target (the shared attribute `targetTemperature`, or the RPC
 * `setTarget`). Three rooms are warm by themselves, above 25 °C all day. The demo starts with every target at the
 * night setting, 17 °C, below every room, so that a new target (21 °C by day) warms the cooler rooms for a minute or
 * so: set a target, then wait until the room reaches it. A device that gets the RPC `reboot` is inactive for a few
 * seconds, then active again.
 */
import { dbl, long, type RpcCall, type Simulator } from '../sim';

const HOUR = 3600000;
const DAY = 24 * HOUR;
/** The demo's clock: a step of every room, the meters, the alarms. */
const TICK_MS = 3000;
/**
 * How far a heated room moves in one tick, in °C: 4 °C a minute, a room sped up for the demo (a real one warms a few
 * tenths of a degree a minute), so that a wait for a new target is met while one looks.
 */
export const ROOM_STEP = 0.2;
/** Every thermostat's target when the demo starts: the night setting of the example that sets them. */
export const START_TARGET = 17;
/** How long a rebooted device stays inactive. */
const REBOOT_MS = 8000;

/**
 * Each thermostat's own temperature in °C, what its room is without heating, before the swing of the day: from 18.5
 * to 23.5, and three warm rooms (sun, machines) from 26.5.
 */
export const ROOM_TEMPERATURES: Readonly<Record<string, number>> = {
  'Thermo A-101': 21.5,
  'Thermo A-102': 22.5,
  'Thermo A-103': 26.5,
  'Thermo A-201': 19,
  'Thermo A-202': 23.5,
  'Thermo A-203': 22,
  'Thermo B-101': 27.5,
  'Thermo B-102': 20.5,
  'Thermo B-103': 19.5,
  'Thermo B-201': 23,
  'Thermo B-202': 21,
  'Thermo B-203': 18.5,
  'Thermo G-101': 28.5,
  'Thermo G-102': 21,
  'Thermo G-103': 23.5,
  'Thermo G-201': 22.5,
  'Thermo G-202': 20,
  'Thermo G-203': 18.5,
  'Thermo Lab': 20,
  'Thermo C-1': 21.5,
};
const ROOM_NAMES = Object.keys(ROOM_TEMPERATURES);
/** The swing of the day (warmest at 15:00 UTC) and the small one of a minute or two, in °C either way. */
const DAY_SWING = 1;
const WOBBLE = 0.3;

/**
 * A thermostat's own temperature at a time: its base, ±1 °C over the day, ±0.3 °C over a minute or two (a period of
 * its own, 60 to 105 s). A warm room stays above 25.2 °C, the others below 24.8 °C.
 */
export function ownTemperature(name: string, ts: number): number {
  const i = Math.max(0, ROOM_NAMES.indexOf(name));
  const base = ROOM_TEMPERATURES[name] ?? 21;
  const day = Math.sin(((ts % DAY) / DAY - 9 / 24) * 2 * Math.PI);
  const wobble = Math.sin((ts / (60_000 + 15_000 * (i % 4))) * 2 * Math.PI + i);
  return base + DAY_SWING * day + WOBBLE * wobble;
}

/** The thermostats warm by themselves: above 25 °C all day. */
export const WARM_ROOMS = ROOM_NAMES.filter((n) => ROOM_TEMPERATURES[n] - DAY_SWING - WOBBLE > 25);

export interface DemoActivityOptions {
  /**
   * false: no clock. The history, the first alarm, the start targets and the rooms are there, but nothing moves
   * until the caller steps the rooms (`sim.rooms.step()`): for tests.
   */
  clock?: boolean;
}

/** Starts the demo's life on the simulator; returns what stops it. */
export function startDemoActivity(sim: Simulator, opts: DemoActivityOptions = {}): () => void {
  const thermostats = sim.data.devices().filter((d) => d.type === 'thermostat');
  const meters = sim.data.devices().filter((d) => d.type === 'meter');
  const now = Date.now();
  const start = now - 7 * DAY;
  const energy = new Map<string, number>();
  const round1 = (n: number) => Math.round(n * 10) / 10;
  for (let t = start - (start % HOUR); t <= now; t += HOUR) {
    const hour = new Date(t).getUTCHours();
    const daytime = hour >= 7 && hour <= 19 ? 1 : 0.4;
    for (const [i, m] of meters.entries()) {
      const e = (energy.get(m.id) ?? 1000 + 100 * i) + Math.round(20 * daytime + i);
      energy.set(m.id, e);
      sim.data.setTelemetry(
        m.id,
        { energy: long(e), power: dbl(Math.round((1 + daytime * 2 + i * 0.25) * 100) / 100) },
        t,
      );
    }
    // Below every room's own temperature, the night target never held one up: the history is the rooms' own.
    for (const [i, d] of thermostats.entries()) {
      sim.data.setTelemetry(
        d.id,
        { temperature: dbl(round1(ownTemperature(d.name, t))), humidity: long(40 + ((i * 7 + hour) % 20)) },
        t,
      );
    }
  }
  for (const d of thermostats) sim.data.setAttributes(d.id, 'SHARED_SCOPE', { targetTemperature: dbl(START_TARGET) });
  sim.rooms.start({ stepSize: ROOM_STEP, ownTemperature: (room, ts) => ownTemperature(room.name, ts) });

  let tick = 0;
  const alarms: Array<{ id: string; step: number }> = [];
  // One alarm from the start, so the alarm examples have something to show at their first run.
  alarms.push({
    id: sim.data.createAlarm({ originator: thermostats[0].id, type: 'Demo Overheat', severity: 'CRITICAL' }).id,
    step: 0,
  });
  const timer =
    opts.clock === false
      ? undefined
      : setInterval(() => {
          tick++;
          sim.rooms.step();
          for (const m of meters) {
            const e = (energy.get(m.id) ?? 0) + 1;
            energy.set(m.id, e);
            sim.data.setTelemetry(m.id, { energy: long(e) });
          }
          // every 15 s an alarm: raised, acknowledged 10 s later, cleared 10 s after that
          if (tick % 5 === 0) {
            const d = thermostats[(tick / 5) % thermostats.length];
            const a = sim.data.createAlarm({
              originator: d.id,
              type: 'Demo Overheat',
              severity: tick % 10 === 0 ? 'CRITICAL' : 'MAJOR',
            });
            alarms.push({ id: a.id, step: 0 });
          }
          for (const a of alarms) a.step++;
          for (const a of alarms.filter((x) => x.step === 3)) sim.data.ackAlarm(a.id);
          for (const a of alarms.filter((x) => x.step === 6)) sim.data.clearAlarm(a.id);
          while (alarms.length && alarms[0].step >= 6) alarms.shift();
        }, TICK_MS);

  // A reboot: the device goes quiet at once and reports again a few seconds later (ThingsBoard's `active` flag).
  const rebooting = new Set<NodeJS.Timeout>();
  const onDelivered = (call: RpcCall) => {
    if (call.method !== 'reboot') return;
    sim.data.setAttributes(call.deviceId, 'SERVER_SCOPE', { active: false });
    const t = setTimeout(() => {
      rebooting.delete(t);
      sim.data.setAttributes(call.deviceId, 'SERVER_SCOPE', { active: true });
    }, REBOOT_MS);
    rebooting.add(t);
  };
  sim.rpc.events.on('delivered', onDelivered);
  // What to stop, taken now: the stop may come after the caller let go of the simulator.
  const rooms = sim.rooms;
  const events = sim.rpc.events;
  return () => {
    clearInterval(timer);
    rooms.stop();
    events.off('delivered', onDelivered);
    for (const t of rebooting) clearTimeout(t);
  };
}
