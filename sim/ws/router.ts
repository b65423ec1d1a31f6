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
  private readonly kv = new Map<string, Set<KvListener>>();
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
    let s = this.kv.get(entityId);
    if (!s) {
      s = new Set();
      this.kv.set(entityId, s);
    }
    s.add(l);
  }

  removeKv(entityId: string, l: KvListener): void {
    const s = this.kv.get(entityId);
    if (s && s.delete(l) && s.size === 0) this.kv.delete(entityId);
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
    for (const s of this.kv.values()) kv += s.size;
    for (const s of this.alarms.values()) alarm += s.size;
    return { kv, alarm };
  }

  private readonly onChange = (ev: ChangeEvent): void => {
    switch (ev.kind) {
      case 'telemetry': {
        const s = this.kv.get(ev.entityId.id);
        if (!s) return;
        this.events++;
        for (const l of s) l.onTelemetry(ev.entries);
        return;
      }
      case 'attributes': {
        const s = this.kv.get(ev.entityId.id);
        if (!s) return;
        this.events++;
        for (const l of s) l.onAttributes(ev.scope, ev.entries);
        return;
      }
      case 'keysDeleted': {
        const s = this.kv.get(ev.entityId.id);
        if (!s) return;
        this.events++;
        for (const l of s) l.onKeysDeleted(ev.scope, ev.keys);
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
