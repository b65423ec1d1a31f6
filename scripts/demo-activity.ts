/**
 * Life for the `npm start` demo: the simulator's stored data is anchored at 2026-01-01, so the demo first
 * writes a week of hourly history up to now (so "last 24 hours" reports have rows), then keeps changing
 * telemetry every few seconds and raises, acknowledges and clears an alarm now and then (so the live flows
 * have something to show). Deterministic enough to read, random enough to look alive.
 *
 * For the examples that act, then wait (tb-wait-until): Thermo Lab is a heated room that moves toward its shared
 * `targetTemperature`, and a device that gets the RPC `reboot` is inactive for a few seconds, then active again.
 */
import { dbl, long, type RpcCall, type Simulator } from '../sim';

const HOUR = 3600000;
/** The heated room's step toward its target, every 3 s: a few degrees within a minute. */
const HEATING_STEP = 0.5;
/** How long a rebooted device stays inactive. */
const REBOOT_MS = 8000;

export function startDemoActivity(sim: Simulator): () => void {
  const thermostats = sim.data.devices().filter((d) => d.type === 'thermostat');
  const lab = thermostats.find((d) => d.name === 'Thermo Lab');
  // The lab follows its target (below); the others wander.
  const wandering = thermostats.filter((d) => d !== lab);
  const meters = sim.data.devices().filter((d) => d.type === 'meter');
  const now = Date.now();
  const start = now - 7 * 24 * HOUR;
  const energy = new Map<string, number>();
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
    for (const [i, d] of thermostats.entries()) {
      const temp = 19 + (i % 5) + 2 * Math.sin((hour / 24) * 2 * Math.PI);
      sim.data.setTelemetry(
        d.id,
        { temperature: dbl(Math.round(temp * 10) / 10), humidity: long(40 + ((i * 7 + hour) % 20)) },
        t,
      );
    }
  }

  let tick = 0;
  const alarms: Array<{ id: string; step: number }> = [];
  // One alarm from the start, so the alarm examples have something to show at their first run.
  alarms.push({
    id: sim.data.createAlarm({ originator: thermostats[0].id, type: 'Demo Overheat', severity: 'CRITICAL' }).id,
    step: 0,
  });
  const timer = setInterval(() => {
    tick++;
    for (let k = 0; k < 3; k++) {
      const d = wandering[(tick * 3 + k) % wandering.length];
      const last = sim.data.latestOf(d.id, 'temperature');
      const cur = last && typeof last.value === 'number' ? last.value : 21;
      const next = Math.round((cur + (Math.random() - 0.5)) * 10) / 10;
      sim.data.setTelemetry(d.id, { temperature: dbl(Math.min(35, Math.max(12, next))) });
    }
    if (lab) heat(sim, lab.id);
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
  }, 3000);

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
  return () => {
    clearInterval(timer);
    sim.rpc.events.off('delivered', onDelivered);
    for (const t of rebooting) clearTimeout(t);
  };
}

/** One step of a heated room: its temperature moves toward its shared targetTemperature (when it has one). */
function heat(sim: Simulator, id: string): void {
  const target = sim.data.attributeOf(id, 'SHARED_SCOPE', 'targetTemperature')?.value;
  const last = sim.data.latestOf(id, 'temperature')?.value;
  if (typeof target !== 'number' || typeof last !== 'number') return;
  const next = Math.abs(target - last) <= HEATING_STEP ? target : last + Math.sign(target - last) * HEATING_STEP;
  sim.data.setTelemetry(id, { temperature: dbl(Math.round(next * 10) / 10) });
}
