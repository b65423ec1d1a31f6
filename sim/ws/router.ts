/**
 * Routes dataset change events to the live subscriptions, synchronously, by entity id. This is the per-update hot
 * path of the benchmarks: one Map lookup per event, then each listener of that entity.
 */
import type { ChangeEvent, Dataset, KeyScope, SimAlarm } from '../dataset';
import type { AttributeScope, KvEntry } from '../types';

export type AlarmAction = Extract<ChangeEvent, { kind: 'alarm' }>['action'];

/** Telemetry / attribute / key-deletion events of one entity. */
export interface KvListener {
  onTelemetry(entries: Record<string, KvEntry>): void;
  onAttributes(scope: AttributeScope, entries: Record<string, KvEntry>): void;
  onKeysDeleted(scope: KeyScope, keys: string[]): void;
}

/** Alarm events reaching an entity (its own alarms and the alarms propagated to it). */
export interface AlarmListener {
  onAlarm(action: AlarmAction, alarm: SimAlarm, entityId: string): void;
}

export class LiveRouter {
  /**
   * Per entity id: its one listener, or a set of them. One is the usual case, and at 1,000 devices a set on the way
   * costs two more cache misses per write (the set, its table).
   */
  private readonly kv = new Map<string, KvListener | Set<KvListener>>();
  private readonly alarms = new Map<string, Set<AlarmListener>>();
  /** events routed (for statistics) */
  events = 0;

  constructor(private readonly ds: Dataset) {
    ds.on('change', this.onChange);
  }

  dispose(): void {
    this.ds.off('change', this.onChange);
    this.kv.clear();
    this.alarms.clear();
  }

  addKv(entityId: string, l: KvListener): void {
    const s = this.kv.get(entityId);
    if (s === undefined) this.kv.set(entityId, l);
    else if (s instanceof Set) s.add(l);
    else if (s !== l) this.kv.set(entityId, new Set([s, l]));
  }

  removeKv(entityId: string, l: KvListener): void {
    const s = this.kv.get(entityId);
    if (s === l) this.kv.delete(entityId);
    else if (s instanceof Set && s.delete(l) && s.size === 0) this.kv.delete(entityId);
  }

  private kvListeners(entityId: string): Iterable<KvListener> | undefined {
    const s = this.kv.get(entityId);
    return s === undefined || s instanceof Set ? s : [s];
  }

  addAlarm(entityId: string, l: AlarmListener): void {
    let s = this.alarms.get(entityId);
    if (!s) {
      s = new Set();
      this.alarms.set(entityId, s);
    }
    s.add(l);
  }

  removeAlarm(entityId: string, l: AlarmListener): void {
    const s = this.alarms.get(entityId);
    if (s && s.delete(l) && s.size === 0) this.alarms.delete(entityId);
  }

  /** Number of (entity, listener) registrations, for statistics. */
  get size(): { kv: number; alarm: number } {
    let kv = 0;
    let alarm = 0;
    for (const s of this.kv.values()) kv += s instanceof Set ? s.size : 1;
    for (const s of this.alarms.values()) alarm += s.size;
    return { kv, alarm };
  }

  private readonly onChange = (ev: ChangeEvent): void => {
    switch (ev.kind) {
      case 'telemetry': {
        const s = this.kv.get(ev.entityId.id);
        if (s === undefined) return;
        this.events++;
        // the per-write path of the benchmarks: one listener needs no list
        if (s instanceof Set) for (const l of s) l.onTelemetry(ev.entries);
        else s.onTelemetry(ev.entries);
        return;
      }
      case 'attributes': {
        const ls = this.kvListeners(ev.entityId.id);
        if (!ls) return;
        this.events++;
        for (const l of ls) l.onAttributes(ev.scope, ev.entries);
        return;
      }
      case 'keysDeleted': {
        const ls = this.kvListeners(ev.entityId.id);
        if (!ls) return;
        this.events++;
        for (const l of ls) l.onKeysDeleted(ev.scope, ev.keys);
        return;
      }
      case 'alarm': {
        const a = ev.alarm;
        const targets = [a.originator.id];
        for (const t of a.propagatedTo) if (!targets.includes(t.id)) targets.push(t.id);
        for (const id of targets) {
          const s = this.alarms.get(id);
          if (!s) continue;
          this.events++;
          for (const l of [...s]) l.onAlarm(ev.action, a, id);
        }
        return;
      }
      default:
        // entity and relation events: the server does not push them (dynamic queries and counts poll)
        return;
    }
  };
}
