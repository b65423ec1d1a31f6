/**
 * The node side of tb-wait-until: its settings (checked at deploy), the waits it runs (one per message,
 * each on one entity or a list of them, with its own timer), and the live subscriptions behind them: one per entity
 * watched (per key, or per alarm type), shared by every wait of the node on that entity, over the connection's
 * shared WebSocket. The condition, the timeout, the queries and `msg.waited` are the node's pure logic.
 *
 * After a reconnect the subscription kinds compare the server's fresh answer with what they
 * knew and report what changed meanwhile, so a wait sees a change made during the outage; its timer is not touched
 * (the timeout counts from the message). Closing the node ends every wait and timer, sends nothing and unsubscribes
 * everything.
 */
import type { Node, NodeAPI, NodeMessage, NodeMessageInFlow, NodeStatus } from 'node-red';
import { TbConfigError, TbError, TbInputError } from '../../errors';
import { EntityTarget } from '../../families/device-action';
import { stateStatus } from '../../families/live-node';
import type { LiveHub, LiveState, StateInfo, Subscriber } from '../../live/hub';
import { AlarmDataSubscription, EntityDataSubscription, type LiveEvent, type LiveSink } from '../../live/subscriptions';
import type { TbConnectionNode } from '../../node-red/connection';
import { usableClient } from '../../node-red/connection';
import { type SendFn } from '../../node-red/input';
import { errorStatus, setupProblem, status, TurnStatus } from '../../node-red/status';
import { IgnoredWarnings } from '../../node-red/value-sources';
import { alarmIdFromMessage } from '../../protocol/alarm-actions';
import { entityOut, entityText, policyRules, targetsFromMessage, uuidText, type Targets } from '../../protocol/targets';
import type { AlarmData, EntityData, EntityId } from '../../protocol/types';
import { isObject } from '../../protocol/validate';
import { type Sourced } from '../../settings/options';
import type { ReadSettings } from '../../settings/read';
import { ComparedValue, type JsonataExpr } from './compared-value';
import {
  alarmMet,
  alarmReading,
  alarmWatchQuery,
  compileCondition,
  latestActive,
  latestValue,
  listMet,
  MAX_TIMER_MS,
  prepareTimeout,
  prepareWaitSettings,
  valueWatchQuery,
  waitedOf,
  waitedTopic,
  type EntityOutcome,
  type WaitSettings,
} from './logic';
import { TB_WAIT_UNTIL, type WaitUntilSettings } from './settings';

/** Is a value met? `previous` = the value seen before (for `changes`). May be async (JSONata). */
type Test = (value: unknown, ts: number | null, entity: EntityId, previous: unknown) => boolean | Promise<boolean>;

/** One entity of one wait. */
interface Part extends EntityOutcome {
  readonly wait: Wait;
  watch?: Watch;
  /** The watch's first answer was taken into account (the current value, or the alarm followed). */
  seen: boolean;
  /** The value seen before (value waits, for `changes`). */
  previous: unknown;
  /** Alarm waits: the alarm followed (undefined = none yet: the next one raised of the type) and its last state. */
  alarmId?: string;
  alarmState?: { acknowledged: boolean; cleared: boolean };
}

/** One message's wait. */
interface Wait {
  readonly msg: NodeMessageInFlow;
  readonly send: SendFn;
  readonly started: number;
  readonly list: boolean;
  readonly parts: Part[];
  /** What msg.entity says when the wait ends: the entity (or entities) waited on, for the next node. */
  readonly entity: unknown;
  /** The wait's time limit in ms (0: none). */
  readonly timeoutMs: number;
  /** msg.topic holds the alarm waited on: it is not replaced by what happened. */
  readonly keepTopic: boolean;
  readonly test: Test;
  timer?: NodeJS.Timeout;
  deadline: number;
  ended: boolean;
  /** Ends the input handler's promise: the message is done (sent, cancelled) or failed. */
  finish: (err?: Error) => void;
}

/**
 * One live subscription shared by every wait of the node on one entity: the latest value of the node's key, or the
 * alarms of one type. It outlives no wait: it is unsubscribed when its last part leaves.
 */
class Watch implements LiveSink {
  readonly parts = new Set<Part>();
  sub!: Subscriber;
  ready = false;
  /** Value watches: the entity's current row. */
  row: EntityData | undefined;
  /** Alarm watches: the alarms on the page, by id. */
  readonly alarms = new Map<string, AlarmData>();

  constructor(
    private readonly engine: WaitEngine,
    readonly key: string,
    readonly entity: EntityId,
    readonly kind: 'value' | 'alarm',
  ) {}

  event(ev: LiveEvent): void {
    this.engine.onEvent(this, ev);
  }

  state(state: LiveState, info?: StateInfo): void {
    this.engine.onState(state, info);
  }

  error(err: TbError, fatal: boolean): void {
    if (fatal) this.engine.failWatch(this, err);
  }
}

/** Node status keys of this node. */
type Outcome = 'waitMet' | 'waitTimedOut' | 'waitCancelled';

/** Everything one tb-wait-until node runs. */
export class WaitEngine {
  /** The first problem of the node's settings, found at deploy. */
  readonly problem: TbError | undefined;
  private readonly settings: WaitSettings;
  private readonly entity: EntityTarget;
  private readonly compared: ComparedValue | undefined;
  private readonly jsonata: JsonataExpr | undefined;
  private readonly fixedTest: Test | undefined;
  private readonly waits = new Set<Wait>();
  private readonly watches = new Map<string, Watch>();
  private closed = false;
  private outcome: Outcome | undefined;
  private down: { state: LiveState; info?: StateInfo } | undefined;
  private readonly statusLine: TurnStatus;
  private jsonataWarned = false;

  constructor(
    private readonly RED: NodeAPI,
    private readonly node: Node,
    private readonly config: WaitUntilSettings,
    private readonly conn: TbConnectionNode | undefined,
    problems: TbError[] = [],
  ) {
    this.statusLine = new TurnStatus(node, () => this.statusNow());
    let settings: WaitSettings;
    try {
      settings = prepareWaitSettings(config);
    } catch (err) {
      problems.push(err as TbError);
      settings = prepareWaitSettings({ key: 'x' });
    }
    this.settings = settings;
    // Any entity with attributes and time series, as tb-telemetry and tb-attributes take.
    this.entity = new EntityTarget(RED, node, config, {});
    problems.push(...this.entity.problems);
    const raw = config.value;
    if (settings.waitFor === 'value' && settings.operator === 'jsonata') {
      // A condition, not a TypedInput value (typed-input): evaluated against each update, a failure meets nothing.
      try {
        this.jsonata = RED.util.prepareJSONataExpression(raw, node);
      } catch (err) {
        problems.push(new TbConfigError(`The JSONata condition (value) is not valid: ${(err as Error).message}`));
      }
      if (raw.trim() === '')
        problems.push(
          new TbConfigError('value must hold the JSONata condition, e.g. value > 21 and ts > $millis() - 60000'),
        );
    } else if (settings.waitFor === 'value' && settings.operator !== 'changes') {
      {
        this.compared = new ComparedValue(RED, node, raw, config.valueType);
        if (this.compared.problem) problems.push(this.compared.problem);
        else if (this.compared.fixed) {
          // A fixed value is checked once (`>` on "warm" is a setting to fix, not a message to refuse).
          try {
            this.fixedTest = this.valueTest(this.compared.fixed);
          } catch (err) {
            problems.push(new TbConfigError((err as Error).message));
          }
        }
      }
    }
    this.problem = problems[0];
  }

  /** The count of waits running (for tests and the status). */
  get size(): number {
    return this.waits.size;
  }

  private valueTest(compared: Sourced | undefined): Test {
    const op = this.settings.operator;
    if (op === 'jsonata') return this.jsonataTest();
    const c = compileCondition(op, compared);
    return (value, _ts, _entity, previous) => c.test(value, previous);
  }

  private jsonataTest(): Test {
    const { RED, node } = this;
    const expr = this.jsonata as JsonataExpr;
    return (value, ts, entity) =>
      new Promise<boolean>((resolve) => {
        RED.util.evaluateJSONataExpression(
          expr,
          { value, ts, entity } as unknown as NodeMessage,
          (err: Error | null, result: unknown) => {
            if (err && !this.jsonataWarned) {
              this.jsonataWarned = true;
              node.warn(`The JSONata condition failed (the value does not meet it): ${err.message}; said once`);
            }
            resolve(!err && Boolean(result));
          },
        );
      });
  }

  // ---- input ----------------------------------------------------------------------------------------------

  /**
   * One message: starts a wait (resolves when it ends), or resets waits. Rejects with bad input, nothing subscribed.
   */
  async input(msg: NodeMessageInFlow, send: SendFn): Promise<void> {
    if (this.problem) throw this.problem;
    const m = msg as unknown as Record<string, unknown>;
    if (m.reset === true) {
      this.cancel(this.resetTargets(m));
      return;
    }
    const s = this.settings;
    const fixedTimeout = String(this.config.timeout).trim() !== '';
    IgnoredWarnings.of(this.node).check(msg, 'timeout', fixedTimeout);
    const timeoutMs = prepareTimeout(this.config.timeout, m.timeout);
    let test: Test;
    let targets: Targets | undefined;
    let alarm: AlarmData | undefined;
    // An alarm read from msg.topic keeps it there, for the next alarm node: the outcome is then in msg.waited only.
    let keepTopic = false;
    if (s.waitFor === 'value') {
      targets = await this.entity.targets(msg, this.payloadUse());
      test = this.fixedTest ?? this.valueTest(this.compared ? await this.compared.resolve(msg) : undefined);
    } else {
      test = () => false;
      if (s.alarmType) targets = await this.entity.targets(msg);
      else {
        const id = alarmIdFromMessage(msg as { payload?: unknown; topic?: unknown });
        const found = await usableClient(this.conn).getAlarmInfo(id);
        if (!found)
          throw new TbError(
            'TB_NOT_FOUND',
            `Alarm ${id} was not found (deleted, or this user may not see it): there is no alarm to wait for`,
          );
        alarm = found;
        keepTopic = uuidText(m.topic) === id || isObject(m.topic);
      }
    }
    if (m.restart === true) this.cancel(targets ? targets.entities : alarm ? [alarm.originator] : undefined);
    if (this.waits.size >= s.maxWaits) {
      throw new TbInputError(
        'maxWaits',
        `tb-wait-until is already running ${this.waits.size} waits, its limit (maxWaits ${s.maxWaits}): this message ` +
          "starts none. Wait for some to end, send msg.reset, or raise the node's limit",
      );
    }
    // Closed while the message was read (a context read, the alarm's lookup): it starts nothing.
    if (this.closed) return;
    const hub = this.hub();
    return new Promise<void>((resolve, reject) => {
      const entities = targets ? targets.entities : [(alarm as AlarmData).originator];
      const wait: Wait = {
        msg,
        send,
        started: Date.now(),
        list: targets ? targets.bulk : false,
        parts: [],
        entity: targets ? entityOut(targets, m.entity) : { ...(alarm as AlarmData).originator },
        timeoutMs,
        keepTopic,
        test,
        deadline: timeoutMs === 0 ? 0 : Date.now() + timeoutMs,
        ended: false,
        finish: (err) => (err ? reject(err) : resolve()),
      };
      for (const entity of entities) {
        const part: Part = { wait, entity, met: false, value: null, ts: null, seen: false, previous: undefined };
        if (s.waitFor === 'alarm') part.alarm = null;
        wait.parts.push(part);
      }
      this.waits.add(wait);
      try {
        if (alarm) this.followAlarm(wait.parts[0], alarm);
        for (const part of wait.parts) {
          if (wait.ended) break;
          this.attach(hub, part);
        }
      } catch (err) {
        // A command the hub refuses (too large for one message): nothing of this wait stays subscribed.
        this.end(wait);
        reject(err as Error);
        return;
      }
      if (!wait.ended) this.arm(wait);
      this.showStatus();
    });
  }

  /** The value compared with is read from msg.payload: then a list of entities there is not the one to watch. */
  private payloadUse(): string | undefined {
    const c = this.config;
    return c.valueType === 'msg' && /^payload(\b|$)/.test(String(c.value).trim())
      ? 'the value to compare with'
      : undefined;
  }

  private hub(): LiveHub {
    if (!this.conn)
      throw new TbConfigError(
        'No ThingsBoard connection is selected (or it is disabled): open the node and choose a connection',
      );
    return this.conn.live();
  }

  /** The entities a reset names (msg.entity, else msg.topic as a UUID), or undefined for every wait. */
  private resetTargets(m: Record<string, unknown>): EntityId[] | undefined {
    if ((m.entity === undefined || m.entity === null) && uuidText(m.topic) === undefined) return undefined;
    return targetsFromMessage(m as { entity?: unknown; topic?: unknown }, policyRules({}, this.config.targetEntityType))
      .entities;
  }

  /** Ends, without sending anything, the waits on any of these entities (all when undefined). */
  private cancel(entities: EntityId[] | undefined): void {
    const ids = entities ? new Set(entities.map((e) => e.id)) : undefined;
    let n = 0;
    for (const wait of [...this.waits]) {
      if (ids && !wait.parts.some((p) => ids.has(p.entity.id))) continue;
      this.end(wait);
      wait.finish();
      n++;
    }
    if (n) this.outcome = 'waitCancelled';
    this.showStatus();
  }

  // ---- watches ----------------------------------------------------------------------------------------------

  private watchKey(part: Part): string {
    const e = part.entity;
    if (this.settings.waitFor === 'value') return `v:${e.entityType}:${e.id}`;
    return `a:${e.entityType}:${e.id}:${this.alarmTypeOf(part)}`;
  }

  private alarmTypeOf(part: Part): string {
    return this.settings.alarmType || (part.alarm?.type as string | undefined) || '';
  }

  /** Puts a part on its entity's watch (subscribing when it is the first), and takes in what the watch knows. */
  private attach(hub: LiveHub, part: Part): void {
    const key = this.watchKey(part);
    let watch = this.watches.get(key);
    if (!watch) {
      const w = new Watch(this, key, part.entity, this.settings.waitFor);
      const s = this.settings;
      w.sub =
        s.waitFor === 'value'
          ? new EntityDataSubscription(w, valueWatchQuery(part.entity, s.keyType, s.key), 'raw')
          : new AlarmDataSubscription(w, alarmWatchQuery(part.entity, this.alarmTypeOf(part)), 'raw', (id) =>
              usableClient(this.conn).getAlarmInfo(id),
            );
      hub.subscribe(w.sub); // throws, registering nothing, when the command cannot be sent
      this.watches.set(key, w);
      watch = w;
    }
    watch.parts.add(part);
    part.watch = watch;
    if (watch.ready) this.first(watch, part);
  }

  private detach(part: Part): void {
    const watch = part.watch;
    if (!watch) return;
    part.watch = undefined;
    watch.parts.delete(part);
    if (watch.parts.size === 0) this.dropWatch(watch);
  }

  /** Forgets a watch and unsubscribes it (once). */
  private dropWatch(watch: Watch): void {
    if (this.watches.get(watch.key) !== watch) return;
    this.watches.delete(watch.key);
    if (this.conn) this.conn.live().unsubscribe(watch.sub);
  }

  /** A live event of a watch. */
  onEvent(watch: Watch, ev: LiveEvent): void {
    if (this.closed || this.watches.get(watch.key) !== watch) return;
    if (watch.kind === 'value') {
      if (ev.event === 'snapshot') {
        const row = (ev.items as EntityData[])[0];
        watch.ready = true;
        if (!row) {
          this.failWatch(
            watch,
            new TbInputError(
              'entity',
              `${entityText(watch.entity)} was not found (or this user may not see it): there is nothing to wait for`,
            ),
          );
          return;
        }
        watch.row = row;
        for (const part of [...watch.parts]) if (!part.seen) this.first(watch, part);
      } else if (ev.event === 'update') {
        watch.row = ev.item as EntityData;
        for (const part of [...watch.parts]) if (part.seen) this.valueChanged(part, watch.row);
      }
      return;
    }
    if (ev.event === 'snapshot') {
      watch.ready = true;
      for (const a of ev.items as AlarmData[]) watch.alarms.set(a.id.id, a);
      for (const part of [...watch.parts]) {
        if (!part.seen) this.first(watch, part);
        else if (part.alarmId && watch.alarms.has(part.alarmId))
          this.alarmChanged(part, watch.alarms.get(part.alarmId) as AlarmData);
      }
      return;
    }
    if (ev.event === 'removed') {
      watch.alarms.delete(ev.id);
      return;
    }
    if (ev.event === 'created' || ev.event === 'acknowledged' || ev.event === 'cleared' || ev.event === 'updated') {
      const a = ev.item as AlarmData;
      watch.alarms.set(ev.id, a);
      for (const part of [...watch.parts]) {
        if (!part.seen) continue;
        if (part.alarmId === undefined && ev.event === 'created' && !a.cleared) {
          // No active alarm of the type when the wait began: it follows the next one raised.
          part.alarmId = a.id.id;
          part.alarmState = { acknowledged: false, cleared: false };
        }
        if (part.alarmId === ev.id) this.alarmChanged(part, a);
      }
    }
  }

  /** A part meets its watch's first answer (or joins a watch that had it): the current value or alarm. */
  private first(watch: Watch, part: Part): void {
    part.seen = true;
    const check = this.settings.checkCurrent;
    if (watch.kind === 'value') {
      const cur = latestValue(watch.row, this.settings.keyType, this.settings.key);
      if (cur) {
        part.value = cur.value;
        part.ts = cur.ts;
        part.previous = cur.value;
        if (check && this.settings.operator !== 'changes') this.evaluate(part, cur.value, cur.ts, undefined);
      }
      return;
    }
    if (part.alarmId === undefined) {
      const a = latestActive(
        [...watch.alarms.values()].filter((x) => !this.settings.alarmType || x.type === this.settings.alarmType),
      );
      if (a) this.followAlarm(part, a);
      return;
    }
    const a = watch.alarms.get(part.alarmId);
    if (a) this.alarmChanged(part, a);
  }

  /** Starts following an alarm: its state now is the baseline, and meets the wait at once when checkCurrent. */
  private followAlarm(part: Part, a: AlarmData): void {
    part.alarmId = a.id.id;
    this.readAlarm(part, a);
    part.seen = part.watch?.ready ?? false;
    if (this.settings.checkCurrent && alarmMet(a, this.settings.alarmState)) this.met(part);
  }

  private alarmChanged(part: Part, a: AlarmData): void {
    if (part.met || part.wait.ended) return;
    const before = part.alarmState ?? { acknowledged: false, cleared: false };
    this.readAlarm(part, a);
    // Only a move into the state counts: an update of an alarm already acknowledged (its severity…) meets nothing.
    if (alarmMet(a, this.settings.alarmState) && !alarmMet(before, this.settings.alarmState)) this.met(part);
  }

  /** The alarm's state as the part's baseline, and what msg.waited says of it. */
  private readAlarm(part: Part, a: AlarmData): void {
    part.alarmState = { acknowledged: a.acknowledged, cleared: a.cleared };
    const r = alarmReading(a, this.settings.alarmState);
    part.value = r.value;
    part.ts = r.ts;
    part.alarm = r.alarm;
  }

  private valueChanged(part: Part, row: EntityData): void {
    if (part.met || part.wait.ended) return;
    const cur = latestValue(row, this.settings.keyType, this.settings.key);
    if (!cur) return;
    // Another key's change: this key's value is the one already seen.
    if (part.ts === cur.ts && part.previous !== undefined && cur.value === part.previous) return;
    const previous = part.previous;
    part.value = cur.value;
    part.ts = cur.ts;
    part.previous = cur.value;
    this.evaluate(part, cur.value, cur.ts, previous);
  }

  private evaluate(part: Part, value: unknown, ts: number | null, previous: unknown): void {
    const r = part.wait.test(value, ts, part.entity, previous);
    if (r === true) this.met(part, value, ts);
    else if (r instanceof Promise) {
      void r.then((ok) => {
        if (ok) this.met(part, value, ts);
      });
    }
  }

  private met(part: Part, value?: unknown, ts?: number | null): void {
    const wait = part.wait;
    if (part.met || wait.ended) return;
    part.met = true;
    if (value !== undefined) {
      part.value = value;
      part.ts = ts ?? null;
    }
    if (listMet(this.settings.listMode, wait.parts)) this.complete(wait, true);
  }

  /** A watch's subscription failed for good (or its entity does not exist): its waits fail, at Catch. */
  failWatch(watch: Watch, err: TbError): void {
    if (this.closed) return;
    for (const part of [...watch.parts]) {
      const wait = part.wait;
      if (wait.ended) continue;
      this.end(wait);
      wait.finish(err);
    }
    this.dropWatch(watch);
    this.statusLine.showNow(errorStatus(this.RED, err));
  }

  onState(state: LiveState, info?: StateInfo): void {
    if (this.closed) return;
    if (state === 'disconnected' || state === 'refused') this.down = { state, info };
    else if (state === 'subscribed') this.down = undefined;
    else return;
    this.showStatus();
  }

  // ---- ending -----------------------------------------------------------------------------------------------

  private arm(wait: Wait): void {
    if (!wait.deadline) return;
    const left = wait.deadline - Date.now();
    wait.timer = setTimeout(
      () => {
        wait.timer = undefined;
        if (wait.ended) return;
        if (Date.now() < wait.deadline) this.arm(wait);
        else this.complete(wait, false);
      },
      Math.max(0, Math.min(left, MAX_TIMER_MS)),
    );
  }

  /** Stops a wait's timer and leaves its watches. */
  private end(wait: Wait): void {
    wait.ended = true;
    if (wait.timer) clearTimeout(wait.timer);
    wait.timer = undefined;
    this.waits.delete(wait);
    for (const part of wait.parts) this.detach(part);
  }

  /**
   * The wait is over: the message goes out on "met" (1) or "timed out" (2), with msg.waited, the entity waited on in
   * msg.entity and what happened in msg.topic (msg.payload is passed on as it came).
   */
  private complete(wait: Wait, met: boolean): void {
    this.end(wait);
    const m = wait.msg as unknown as Record<string, unknown>;
    const alarm = this.settings.waitFor === 'alarm';
    m.waited = waitedOf(wait.parts, wait.list, met, Date.now() - wait.started, alarm);
    m.entity = wait.entity;
    if (!wait.keepTopic)
      m.topic = waitedTopic(wait.parts, wait.list, met, wait.timeoutMs, alarm ? 'alarm' : this.settings.key);
    this.outcome = met ? 'waitMet' : 'waitTimedOut';
    wait.send(met ? [wait.msg, null] : [null, wait.msg]);
    wait.finish();
    this.showStatus();
  }

  /** Redeploy or close: every wait and timer ends, nothing is sent, every subscription is dropped. */
  close(): void {
    this.closed = true;
    for (const wait of [...this.waits]) {
      wait.ended = true;
      if (wait.timer) clearTimeout(wait.timer);
      wait.timer = undefined;
    }
    this.waits.clear();
    const hub = this.conn && !this.conn.configError ? this.conn.live() : undefined;
    for (const watch of this.watches.values()) hub?.unsubscribe(watch.sub);
    this.watches.clear();
  }

  // ---- status -----------------------------------------------------------------------------------------------

  /** "waiting for 3" (or the connection's trouble) while waits run; then how the last one ended. Once per tick. */
  private showStatus(): void {
    this.statusLine.update();
  }

  private statusNow(): NodeStatus | undefined {
    if (this.closed) return undefined;
    const n = this.waits.size;
    if (n > 0 && this.down) {
      const s = stateStatus(this.RED, this.down.state, this.down.info);
      if (s) return s;
    }
    if (n > 0) return status(this.RED, 'blue', 'dot', 'waiting', { count: n });
    if (this.outcome === 'waitMet') return status(this.RED, 'green', 'dot', 'waitMet');
    if (this.outcome === 'waitTimedOut') return status(this.RED, 'yellow', 'dot', 'waitTimedOut');
    if (this.outcome === 'waitCancelled') return status(this.RED, 'grey', 'ring', 'waitCancelled');
    return undefined;
  }

  /** A message refused: its error status (the waits running show theirs again on their next change). */
  refused(err: unknown): void {
    this.statusLine.showNow(errorStatus(this.RED, err));
  }
}

/** Sets up the node: the connection, the engine, the problems found at deploy. */
export function waitUntilNode(
  RED: NodeAPI,
  node: Node,
  settings: ReadSettings<typeof TB_WAIT_UNTIL.settings>,
  conn: TbConnectionNode | undefined,
): WaitEngine {
  const engine = new WaitEngine(RED, node, settings.values, conn, [...settings.problems]);
  if (engine.problem) setupProblem(RED, node, engine.problem);
  return engine;
}
