/**
 * Life for the `npm start` demo: the simulator's stored data is anchored at 2026-01-01, so the demo first
 * writes a week of hourly history up to now (so "last 24 hours" reports have rows), then keeps changing
 * telemetry every few seconds and raises, acknowledges and clears an alarm now and then (so the live flows
 * have something to show). Deterministic enough to read, random enough to look alive.
 */
import { dbl, long, type Simulator } from '../sim';

const HOUR = 3600000;

export function startDemoActivity(sim: Simulator): () => void {
  const thermostats = sim.data.devices().filter((d) => d.type === 'thermostat');
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
      sim.data.setTelemetry(m.id, { energy: long(e), power: dbl(Math.round((1 + daytime * 2 + i * 0.25) * 100) / 100) }, t);
    }
    for (const [i, d] of thermostats.entries()) {
      const temp = 19 + (i % 5) + 2 * Math.sin((hour / 24) * 2 * Math.PI);
      sim.data.setTelemetry(d.id, { temperature: dbl(Math.round(temp * 10) / 10), humidity: long(40 + ((i * 7 + hour) % 20)) }, t);
    }
  }

  let tick = 0;
  const alarms: Array<{ id: string; step: number }> = [];
  // One alarm from the start, so the alarm examples have something to show at their first run.
  alarms.push({ id: sim.data.createAlarm({ originator: thermostats[0].id, type: 'Demo Overheat', severity: 'CRITICAL' }).id, step: 0 });
  const timer = setInterval(() => {
    tick++;
    for (let k = 0; k < 3; k++) {
      const d = thermostats[(tick * 3 + k) % thermostats.length];
      const last = sim.data.latestOf(d.id, 'temperature');
      const cur = last && typeof last.value === 'number' ? last.value : 21;
      const next = Math.round((cur + (Math.random() - 0.5)) * 10) / 10;
      sim.data.setTelemetry(d.id, { temperature: dbl(Math.min(35, Math.max(12, next))) });
    }
    for (const m of meters) {
      const e = (energy.get(m.id) ?? 0) + 1;
      energy.set(m.id, e);
      sim.data.setTelemetry(m.id, { energy: long(e) });
    }
    // every 15 s an alarm: raised, acknowledged 10 s later, cleared 10 s after that
    if (tick % 5 === 0) {
      const d = thermostats[(tick / 5) % thermostats.length];
      const a = sim.data.createAlarm({ originator: d.id, type: 'Demo Overheat', severity: tick % 10 === 0 ? 'CRITICAL' : 'MAJOR' });
      alarms.push({ id: a.id, step: 0 });
    }
    for (const a of alarms) a.step++;
    for (const a of alarms.filter((x) => x.step === 3)) sim.data.ackAlarm(a.id);
    for (const a of alarms.filter((x) => x.step === 6)) sim.data.clearAlarm(a.id);
    while (alarms.length && alarms[0].step >= 6) alarms.shift();
  }, 3000);
  return () => clearInterval(timer);
}
