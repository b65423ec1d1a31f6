/**
 * tb-trigger's states: the state of each entity (false, holding for its hold, true, stopping for its hold-off) with
 * one scheduler for the deadlines of all of them. No I/O, no Node-RED: the clock and the one timer are given.
 *
 * An entity's state moves so (`holdFor`, `holdOffFor`, `repeatEvery` are the node's settings):
 *
 *     false ──condition holds──▶ holding ──held for holdFor──▶ TRUE (output 1) ──every repeatEvery──▶ reminder
 *       ▲                          │                              │
 *       │◀──stops before holdFor───┘                        stops holding
 *       │                                                         ▼
 *       └──────────────FALSE (output 2)◀──stopped for holdOffFor── stopping ──holds again──▶ true (nothing sent)
 *
 * With a hold of 0 an entity goes from false to true at once, with a hold-off of 0 from true to false at once. An
 * entity with nothing held has no deadline; the deadlines of those that have are kept in one min-heap, and one timer
 * waits for the earliest. A silence is a condition that starts holding by itself, `silentFor` after the last update:
 * its deadline is checked lazily (an update only moves it later, so the heap is not touched at each update).
 */
import type { EntityId } from '../../protocol/types';

/** The node's deadlines, in ms. */
export interface Timing {
  /** How long the condition must hold before "became true" (0: at once). */
  readonly holdMs: number;
  /** How long it must stop holding before "became false" (0: at once). */
  readonly holdOffMs: number;
  /** A reminder on output 1 every so often while it stays true (0: none). */
  readonly repeatMs: number;
  /** The reminders at most (Infinity: no limit). */
  readonly repeatMax: number;
  /** A silence condition: holds once no update came for this long (0: not a silence condition). */
  readonly silenceMs: number;
}

/** The longest timer Node.js runs in one go (a later deadline re-arms it). */
export const MAX_TIMER_MS = 2147483647;

// ---- the scheduler ----------------------------------------------------------------------------------------------

/** The clock and the one timer of a node (Date.now and setTimeout in the node; fake ones in tests). */
export interface Clock {
  now(): number;
  setTimer(fn: () => void, ms: number): unknown;
  clearTimer(handle: unknown): void;
}

/** What the heap keeps of an entry: its deadline and its place. */
interface Scheduled {
  due: number;
  /** Its index in the heap; -1 when it is not there. */
  slot: number;
}

/** A min-heap of deadlines whose entries know their place: adding, moving and removing one is O(log n). */
export class DeadlineHeap<T extends Scheduled> {
  private readonly items: T[] = [];

  get size(): number {
    return this.items.length;
  }

  peek(): T | undefined {
    return this.items[0];
  }

  /** Puts `t` in the heap with its deadline `due`, or moves it there. */
  set(t: T, due: number): void {
    if (t.slot < 0) {
      t.due = due;
      t.slot = this.items.length;
      this.items.push(t);
      this.up(t.slot);
      return;
    }
    const before = t.due;
    t.due = due;
    if (due < before) this.up(t.slot);
    else if (due > before) this.down(t.slot);
  }

  remove(t: T): void {
    const i = t.slot;
    if (i < 0) return;
    const last = this.items.pop() as T;
    t.slot = -1;
    if (last === t) return;
    this.items[i] = last;
    last.slot = i;
    this.up(i);
    this.down(last.slot);
  }

  /** Takes out the earliest entry when it is due at `now`. */
  popDue(now: number): T | undefined {
    const top = this.items[0];
    if (!top || top.due > now) return undefined;
    this.remove(top);
    return top;
  }

  clear(): void {
    for (const t of this.items) t.slot = -1;
    this.items.length = 0;
  }

  private up(i: number): void {
    const items = this.items;
    const t = items[i];
    while (i > 0) {
      const p = (i - 1) >> 1;
      if (items[p].due <= t.due) break;
      items[i] = items[p];
      items[i].slot = i;
      i = p;
    }
    items[i] = t;
    t.slot = i;
  }

  private down(i: number): void {
    const items = this.items;
    const n = items.length;
    const t = items[i];
    for (;;) {
      const l = 2 * i + 1;
      if (l >= n) break;
      const r = l + 1;
      const c = r < n && items[r].due < items[l].due ? r : l;
      if (items[c].due >= t.due) break;
      items[i] = items[c];
      items[i].slot = i;
      i = c;
    }
    items[i] = t;
    t.slot = i;
  }
}

// ---- the state of the entities ----------------------------------------------------------------------------------

/**
 * `false`: the condition does not hold; `holding`: it holds, for less than its hold; `true`: it held for its hold
 * (output 1 said so); `stopping`: true, and it stopped holding, for less than its hold-off.
 */
export type Phase = 'false' | 'holding' | 'true' | 'stopping';

/**
 * The entities of one subscription: while it is down (and until the server's fresh answer after a reconnect has been
 * taken in), a deadline that comes is put off (`deferred`), for the fresh answer to decide.
 */
export class Group<D> {
  live = false;
  readonly deferred = new Set<Tracked<D>>();
}

/** One entity watched, with the node's own data beside its state (its row, its alarms). */
export class Tracked<D> implements Scheduled {
  phase: Phase = 'false';
  /** When the condition began to hold (for the current run of holding, true and stopping). */
  heldSince = 0;
  /** When it stopped holding (stopping). */
  stoppedAt = 0;
  /** The state last sent (true: output 1) and since when it is so. */
  sentTrue = false;
  stateSince: number;
  /** The reminders sent since it became true, and when the next is due. */
  repeats = 0;
  nextRepeat = 0;
  /** Silence conditions: the time of the last update (of the row at start, then of each update). */
  lastUpdate = 0;
  due = 0;
  slot = -1;
  removed = false;

  constructor(
    readonly key: string,
    readonly entity: EntityId,
    public group: Group<D>,
    public data: D,
    now: number,
  ) {
    this.stateSince = now;
  }

  /** Does the condition hold, as last seen? */
  get holds(): boolean {
    return this.phase === 'holding' || this.phase === 'true';
  }
}

/** A message to send: an entity became true or false, a reminder, or its state at start. */
export interface Change<D> {
  readonly kind: 'true' | 'false' | 'repeat' | 'initial';
  readonly tracked: Tracked<D>;
  /** The state now (output 1 when true). */
  readonly state: boolean;
  /** When the condition began to hold (true, a reminder), or stopped holding (false); for `initial`, now. */
  readonly since: number;
  /** How long it has held (true, a reminder), or had held before it stopped (false); 0 for `initial`. */
  readonly heldFor: number;
  /** The state sent before, and since when (none for `initial`). */
  readonly previous: { state: boolean; since: number } | null;
  /** The reminder's number (1, 2, …); 0 otherwise. */
  readonly repeat: number;
  /** False because the entity is no longer watched (it left the query's list, or a message unwatched it). */
  readonly removed: boolean;
  readonly at: number;
}

/**
 * The states of every entity of a node and their deadlines: what it is told (an entity added, its condition
 * re-evaluated, an update for a silence, an entity gone, a reset), what its one timer wakes it for, and the changes
 * it reports (`emit`) as they happen.
 */
export class TriggerMachine<D> {
  private readonly heap = new DeadlineHeap<Tracked<D>>();
  private timer: unknown;
  private timerAt = 0;
  private closed = false;
  /** Entities whose state sent is true (output 1). */
  private trues = 0;

  constructor(
    private readonly timing: Timing,
    private readonly clock: Clock,
    private readonly emit: (c: Change<D>) => void,
  ) {}

  /** How many entities are true now (their last message was on output 1). */
  get trueCount(): number {
    return this.trues;
  }

  /** How many deadlines are pending (entities holding, stopping, with a reminder or a silence to check). */
  get pending(): number {
    return this.heap.size;
  }

  /** Is a timer running? (At most one, whatever the number of entities.) */
  get timerArmed(): boolean {
    return this.timer !== undefined;
  }

  /**
   * A new entity, with its condition now (`holds`; for a silence, its `lastUpdate` set before). `initial`: its state
   * is sent at once (output 1 or 2), and one whose condition holds is taken as true without waiting for its hold
   * (when it began to hold is not known).
   */
  add(t: Tracked<D>, holds: boolean, initial = false): void {
    const now = this.clock.now();
    t.stateSince = now;
    const silence = this.timing.silenceMs;
    let since = now;
    if (silence) {
      if (t.lastUpdate === 0) t.lastUpdate = now; // nothing heard yet: silent from now on
      holds = now - t.lastUpdate >= silence;
      since = t.lastUpdate + silence;
    }
    if (initial) {
      this.emit({
        kind: 'initial',
        tracked: t,
        state: holds,
        since: now,
        heldFor: 0,
        previous: null,
        repeat: 0,
        removed: false,
        at: now,
      });
      if (holds) {
        t.heldSince = since;
        this.markTrue(t, now);
      }
    } else if (holds) this.startHolding(t, since, now);
    this.plan(t);
  }

  /** The condition, re-evaluated after an update of the entity (value and alarm conditions). */
  set(t: Tracked<D>, holds: boolean): void {
    if (t.removed || holds === t.holds) return;
    const now = this.clock.now();
    if (holds) this.startHolding(t, now, now);
    else this.stopHolding(t, now);
    this.plan(t);
  }

  /**
   * An update of a silence condition's keys, at `ts` (no later than now): the entity is not silent. An entity that
   * was not holding keeps its deadline (the next wake-up finds the later one), so an update costs no heap work.
   */
  touched(t: Tracked<D>, ts: number): void {
    if (t.removed) return;
    const now = this.clock.now();
    const at = Math.min(ts, now);
    if (at <= t.lastUpdate) return;
    t.lastUpdate = at;
    if (t.holds) {
      this.stopHolding(t, now);
      this.plan(t);
    } else if (t.slot < 0 && t.group.live) this.plan(t);
  }

  /**
   * The entity is no longer watched: its deadlines go, and one that was true is said to be false (`removed`, unless
   * `tell` is false: the node is closing), so that what its true message started can end.
   */
  remove(t: Tracked<D>, tell = true): void {
    if (t.removed) return;
    t.removed = true;
    const now = this.clock.now();
    this.heap.remove(t);
    t.group.deferred.delete(t);
    if (t.sentTrue) {
      if (tell) this.sendFalse(t, now, true);
      else {
        t.sentTrue = false;
        this.trues--;
      }
    }
    this.arm();
  }

  /**
   * Starts the entity over, as at deploy (nothing is sent for the state it leaves): false, then holding again from
   * now when its condition holds (`holds`; for a silence, from its last update).
   */
  reset(t: Tracked<D>, holds: boolean): void {
    if (t.removed) return;
    const now = this.clock.now();
    if (t.sentTrue) this.trues--;
    t.sentTrue = false;
    t.phase = 'false';
    t.repeats = 0;
    t.stateSince = now;
    this.heap.remove(t);
    t.group.deferred.delete(t);
    if (this.timing.silenceMs) {
      if (now - t.lastUpdate >= this.timing.silenceMs) this.startHolding(t, now, now);
    } else if (holds) this.startHolding(t, now, now);
    this.plan(t);
  }

  /**
   * The group's data is current again (the fresh answer after a reconnect was taken in): the deadlines put off while
   * it was down are decided now, on what the answer said.
   */
  resume(g: Group<D>): void {
    g.live = true;
    const due = [...g.deferred];
    g.deferred.clear();
    for (const t of due) if (!t.removed) this.wake(t);
  }

  /** The group's data is no longer current (its socket went down). */
  suspend(g: Group<D>): void {
    g.live = false;
  }

  /** Stops the timer; nothing is sent any more. */
  close(): void {
    this.closed = true;
    if (this.timer !== undefined) this.clock.clearTimer(this.timer);
    this.timer = undefined;
    this.heap.clear();
  }

  // ---- transitions --------------------------------------------------------------------------------------------

  /** The condition began to hold at `since` (for a silence, `silentFor` after the last update). */
  private startHolding(t: Tracked<D>, since: number, now: number): void {
    if (t.phase === 'stopping') {
      // Back before its hold-off was over: still true, as if it had not stopped (nothing is sent).
      t.phase = 'true';
      return;
    }
    if (t.phase !== 'false') return;
    t.heldSince = since;
    t.phase = 'holding';
    if (now >= since + this.timing.holdMs) this.becomeTrue(t, now);
  }

  private stopHolding(t: Tracked<D>, now: number): void {
    if (t.phase === 'holding') {
      t.phase = 'false'; // stopped before its hold was over: nothing was sent, nothing is
      return;
    }
    if (t.phase !== 'true') return;
    t.stoppedAt = now;
    t.phase = 'stopping';
    if (this.timing.holdOffMs === 0) this.sendFalse(t, now, false);
  }

  /** True (said by the caller: the message of the hold over, or the initial one at start). */
  private markTrue(t: Tracked<D>, now: number): void {
    t.phase = 'true';
    t.sentTrue = true;
    this.trues++;
    t.stateSince = now;
    t.repeats = 0;
    t.nextRepeat = now + this.timing.repeatMs;
  }

  /** The hold is over: true, on output 1. */
  private becomeTrue(t: Tracked<D>, now: number): void {
    const previous = { state: false, since: t.stateSince };
    this.markTrue(t, now);
    this.emit({
      kind: 'true',
      tracked: t,
      state: true,
      since: t.heldSince,
      heldFor: now - t.heldSince,
      previous,
      repeat: 0,
      removed: false,
      at: now,
    });
  }

  private sendFalse(t: Tracked<D>, now: number, removed: boolean): void {
    const previous = { state: true, since: t.stateSince };
    const stopped = removed && t.phase !== 'stopping' ? now : t.stoppedAt;
    t.phase = 'false';
    t.sentTrue = false;
    this.trues--;
    t.stateSince = now;
    t.repeats = 0;
    this.emit({
      kind: 'false',
      tracked: t,
      state: false,
      since: stopped,
      heldFor: Math.max(0, stopped - t.heldSince),
      previous,
      repeat: 0,
      removed,
      at: now,
    });
  }

  // ---- deadlines ----------------------------------------------------------------------------------------------

  /** The entity's next deadline from its state, if any. */
  private nextDue(t: Tracked<D>): number | undefined {
    const { holdMs, holdOffMs, repeatMs, repeatMax, silenceMs } = this.timing;
    switch (t.phase) {
      case 'holding':
        return t.heldSince + holdMs;
      case 'true':
        return repeatMs && t.repeats < repeatMax ? t.nextRepeat : undefined;
      case 'stopping':
        return silenceMs ? Math.min(t.stoppedAt + holdOffMs, t.lastUpdate + silenceMs) : t.stoppedAt + holdOffMs;
      default:
        return silenceMs ? t.lastUpdate + silenceMs : undefined;
    }
  }

  /** Puts the entity's next deadline in the heap (or takes it out), and the timer on the earliest. */
  private plan(t: Tracked<D>): void {
    if (this.closed || t.removed) return;
    const due = this.nextDue(t);
    if (due === undefined) this.heap.remove(t);
    else this.heap.set(t, due);
    this.arm();
  }

  /** A deadline of the entity came (or one put off while its data was not current): what is due now happens. */
  private wake(t: Tracked<D>): void {
    const now = this.clock.now();
    const { holdMs, holdOffMs, repeatMs, repeatMax, silenceMs } = this.timing;
    if (silenceMs && (t.phase === 'false' || t.phase === 'stopping') && now >= t.lastUpdate + silenceMs)
      this.startHolding(t, t.lastUpdate + silenceMs, now);
    if (t.phase === 'holding' && now >= t.heldSince + holdMs) this.becomeTrue(t, now);
    else if (t.phase === 'stopping' && now >= t.stoppedAt + holdOffMs) this.sendFalse(t, now, false);
    else if (t.phase === 'true' && repeatMs && t.repeats < repeatMax && now >= t.nextRepeat) {
      t.repeats++;
      t.nextRepeat = now + repeatMs;
      this.emit({
        kind: 'repeat',
        tracked: t,
        state: true,
        since: t.heldSince,
        heldFor: now - t.heldSince,
        previous: { state: true, since: t.stateSince },
        repeat: t.repeats,
        removed: false,
        at: now,
      });
    }
    this.plan(t);
  }

  /** The one timer, on the earliest deadline. */
  private arm(): void {
    if (this.closed) return;
    const top = this.heap.peek();
    if (!top) {
      if (this.timer !== undefined) this.clock.clearTimer(this.timer);
      this.timer = undefined;
      return;
    }
    if (this.timer !== undefined && this.timerAt === top.due) return;
    if (this.timer !== undefined) this.clock.clearTimer(this.timer);
    this.timerAt = top.due;
    const wait = Math.max(0, Math.min(top.due - this.clock.now(), MAX_TIMER_MS));
    this.timer = this.clock.setTimer(() => this.fire(), wait);
  }

  private fire(): void {
    this.timer = undefined;
    if (this.closed) return;
    const now = this.clock.now();
    // Each entity due is taken out before it is woken: its wake puts its next deadline back, later than now.
    const due: Tracked<D>[] = [];
    for (let t = this.heap.popDue(now); t; t = this.heap.popDue(now)) due.push(t);
    for (const t of due) {
      if (t.removed) continue;
      if (!t.group.live) t.group.deferred.add(t);
      else this.wake(t);
    }
    this.arm();
  }
}
