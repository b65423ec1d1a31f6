/**
 * Heated rooms: the thermostats of the dataset as rooms with a heater, for the demo and for clients that act and then
 * wait (set a target, then wait until the room reaches it). Nothing moves until `start()`; then each `step()` moves
 * every room's `temperature` one step toward where it is going and stores it (a point at the simulator clock, as a
 * device reporting it), so that queries, subscriptions and waits see it as any other telemetry.
 *
 * A room goes toward the warmer of its own temperature (what it would be without heating: the sun, the machines in
 * it, the time of day) and its target: below the target the heater warms it, above the target it drifts back to its
 * own temperature, never below the target (a heater does not cool). The target is the shared attribute
 * `targetTemperature` (ThingsBoard pushes it to the device) or the last RPC `setTarget` the device took, whichever
 * came last. The step size is fixed, so the same steps from the same data at the same clock give the same values.
 */
import type { ChangeEvent, Dataset, SimEntity } from './dataset';
import type { RpcCall, RpcService } from './rpc';
import type { EntityRef } from './types';
import { dbl } from './values';

/** The telemetry key a room reports its temperature in, and the shared attribute that holds its target. */
export const ROOM_TEMPERATURE_KEY = 'temperature';
export const ROOM_TARGET_KEY = 'targetTemperature';
/** The RPC method that sets a room's target (params: a number, or `{"target": n}`). */
export const ROOM_TARGET_METHOD = 'setTarget';

export interface RoomsOptions {
  /** The device types that are rooms (default `['thermostat']`). */
  deviceTypes?: string[];
  /** How far a room moves in one step, in °C (default 0.2). */
  stepSize?: number;
  /**
   * A room's own temperature at a time (sim clock, ms). Default (or when it gives undefined): the room's temperature
   * when it was first stepped, for good.
   */
  ownTemperature?: (room: SimEntity, ts: number) => number | undefined;
}

/** One room as the model sees it. */
export interface RoomState {
  id: string;
  name: string;
  /** its last reported temperature (undefined: none that is a number) */
  temperature: number | undefined;
  /** its own temperature now */
  own: number | undefined;
  /** its target (undefined: none) */
  target: number | undefined;
}

/** What the model needs of the simulator. */
export interface RoomsContext {
  data: Dataset;
  rpc: RpcService;
  now: () => number;
}

export class Rooms {
  private opts: Required<Omit<RoomsOptions, 'ownTemperature'>> & Pick<RoomsOptions, 'ownTemperature'> = {
    deviceTypes: ['thermostat'],
    stepSize: 0.2,
  };
  private running = false;
  /** device id → its target, as last set (attribute or RPC) */
  private readonly targets = new Map<string, number>();
  /** device id → its temperature when first seen (the own temperature without an `ownTemperature` option) */
  private readonly seen = new Map<string, number>();

  constructor(private readonly ctx: RoomsContext) {}

  /** Whether the rooms follow their targets (between `start()` and `stop()`). */
  get started(): boolean {
    return this.running;
  }

  /** Starts following targets: the rooms' targets are read now, then kept as attribute writes and RPCs set them. */
  start(opts: RoomsOptions = {}): void {
    this.stop();
    this.opts = {
      deviceTypes: opts.deviceTypes ?? ['thermostat'],
      stepSize: opts.stepSize ?? 0.2,
      ownTemperature: opts.ownTemperature,
    };
    if (!(this.opts.stepSize > 0)) throw new Error('stepSize must be a number of °C above 0');
    for (const room of this.rooms()) {
      const t = asNumber(this.ctx.data.getAttribute(room, 'SHARED_SCOPE', ROOM_TARGET_KEY)?.value);
      if (t !== undefined) this.targets.set(room.id, t);
    }
    this.ctx.data.on('change', this.onChange);
    this.ctx.rpc.events.on('delivered', this.onDelivered);
    this.running = true;
  }

  /** Stops following targets and forgets them (the stored temperatures stay as they are). */
  stop(): void {
    this.ctx.data.off('change', this.onChange);
    this.ctx.rpc.events.off('delivered', this.onDelivered);
    this.targets.clear();
    this.seen.clear();
    this.running = false;
  }

  /**
   * One step of every room: its temperature moves `stepSize` toward the warmer of its own temperature and its target
   * (the rest of the way when closer), rounded to 0.1 °C, and is stored when it changed. Returns the rooms that
   * changed. Nothing moves before `start()`.
   */
  step(): number {
    if (!this.running) return 0;
    const now = this.ctx.now();
    let changed = 0;
    for (const room of this.rooms()) {
      const s = this.state(room, now);
      if (s.temperature === undefined && s.own === undefined) continue;
      const from = s.temperature ?? (s.own as number);
      const goal = Math.max(s.own ?? from, s.target ?? -Infinity);
      const next = round1(
        Math.abs(goal - from) <= this.opts.stepSize ? goal : from + Math.sign(goal - from) * this.opts.stepSize,
      );
      if (next === s.temperature) continue;
      // Each point after the room's last one, so that a client that drops stale values sees every step.
      const last = this.ctx.data.getLatest(room, ROOM_TEMPERATURE_KEY)?.ts ?? -Infinity;
      this.ctx.data.setTelemetry(room, { [ROOM_TEMPERATURE_KEY]: dbl(next) }, Math.max(now, last + 1));
      changed++;
    }
    return changed;
  }

  /** A room as the model sees it now (undefined: not a room). */
  room(ref: EntityRef): RoomState | undefined {
    const e = this.ctx.data.get(typeof ref === 'string' ? ref : ref.id);
    if (!e || !this.isRoom(e)) return undefined;
    return this.state(e, this.ctx.now());
  }

  private state(room: SimEntity, now: number): RoomState {
    const temperature = asNumber(this.ctx.data.getLatest(room, ROOM_TEMPERATURE_KEY)?.value);
    if (temperature !== undefined && !this.seen.has(room.id)) this.seen.set(room.id, temperature);
    const own = this.opts.ownTemperature?.(room, now) ?? this.seen.get(room.id);
    return { id: room.id, name: room.name, temperature, own, target: this.targets.get(room.id) };
  }

  private rooms(): SimEntity[] {
    return this.ctx.data.devices().filter((d) => this.isRoom(d));
  }

  private isRoom(e: SimEntity): boolean {
    return e.entityType === 'DEVICE' && e.type !== null && this.opts.deviceTypes.includes(e.type);
  }

  private readonly onChange = (ev: ChangeEvent): void => {
    if (ev.kind === 'attributes' && ev.scope === 'SHARED_SCOPE' && ROOM_TARGET_KEY in ev.entries) {
      const t = asNumber(ev.entries[ROOM_TARGET_KEY].value);
      if (t === undefined) this.targets.delete(ev.entityId.id);
      else this.targets.set(ev.entityId.id, t);
    } else if (ev.kind === 'keysDeleted' && ev.scope === 'SHARED_SCOPE' && ev.keys.includes(ROOM_TARGET_KEY)) {
      this.targets.delete(ev.entityId.id);
    }
  };

  private readonly onDelivered = (call: RpcCall): void => {
    if (call.method !== ROOM_TARGET_METHOD) return;
    const t = targetOf(call.params);
    if (t !== undefined) this.targets.set(call.deviceId, t);
  };
}

/** The target an RPC `setTarget` carries: a number, a text that is one, or `{target | targetTemperature | value}`. */
export function targetOf(params: unknown): number | undefined {
  if (params !== null && typeof params === 'object' && !Array.isArray(params)) {
    const p = params as Record<string, unknown>;
    return asNumber(p.target ?? p.targetTemperature ?? p.value);
  }
  return asNumber(params);
}

function asNumber(v: unknown): number | undefined {
  if (typeof v === 'number') return Number.isFinite(v) ? v : undefined;
  if (typeof v === 'string' && /^\s*-?\d+(\.\d+)?\s*$/.test(v)) return Number(v);
  return undefined;
}

function round1(n: number): number {
  return Math.round(n * 10) / 10;
}
