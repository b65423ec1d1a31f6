/**
 * The node side of tb-trigger: the entities it watches (fixed, a query's list, or those messages name), their live
 * subscriptions over the connection's shared WebSocket, the condition evaluated on each update, and the messages the
 * state machine (machine.ts) reports. One state machine and one timer per node, whatever the number of entities.
 *
 * After a reconnect the subscriptions compare the server's fresh answer with what they knew and report only what
 * changed: an entity whose values did not change while the socket was down keeps its hold. A deadline that comes
 * while the socket is down waits for that answer, which decides.
 */
import type { Node, NodeAPI, NodeMessage, NodeMessageInFlow, NodeStatus } from 'node-red';
import { TbConfigError, TbError, TbInputError } from '../../errors';
import { EntityTarget } from '../../families/device-action';
import { stateStatus } from '../../families/live-node';
import { QuerySource } from '../../families/query-source';
import type { LiveHub, LiveState, StateInfo, Subscriber, WsCommand, WsMessage } from '../../live/hub';
import { AlarmDataSubscription, EntityDataSubscription, type LiveEvent, type LiveSink } from '../../live/subscriptions';
import { noConnectionError, usableClient, type TbConnectionNode } from '../../node-red/connection';
import { errorStatus, status, TurnStatus } from '../../node-red/status';
import { TypedInput } from '../../node-red/typed-input';
import { parseTemplate } from '../../protocol/bindings';
import { policyRules, targetsFromMessage, uuidText } from '../../protocol/targets';
import type { AlarmData, EntityData, EntityDataQuery, EntityFilter, EntityId, PageData } from '../../protocol/types';
import { jsonText, prepareEntityDataQuery } from '../../protocol/validate';
import { alarmMatches, compileCondition, conditionsHold, type KeyCondition } from '../../settings/conditions';
import type { ReadSettings } from '../../settings/read';
import {
  alarmQuery,
  byType,
  entitiesFilter,
  flatAlarm,
  lastUpdateOf,
  nameOf,
  newestAlarm,
  payloadOf,
  prepareTriggerPlan,
  topicOf,
  valueQuery,
  valuesOf,
  type CheckedRow,
  type TriggerPlan,
} from './logic';
import { Group, TriggerMachine, Tracked, type Change, type Clock } from './machine';
import { TB_TRIGGER, type TriggerSettings } from './settings';

/** What the node keeps of an entity beside its state. */
interface EntityState {
  /** Its live row (value and silence conditions). */
  row: EntityData | undefined;
  name: string | undefined;
  /** Judged once: its first state is known (its session's first answers are all in). */
  judged: boolean;
  /** Its own conditions, when their values came with the message that started it (else the node's). */
  conditions: readonly KeyCondition[] | undefined;
  readonly session: Session;
}

type Entity = Tracked<EntityState>;

/**
 * The clock of the node: the process's (sinon's fake timers in the tests). A timer is cleared by the clearTimeout of
 * the clock that set it, even when another one has been installed since.
 */
const NODE_CLOCK: Clock = {
  now: () => Date.now(),
  setTimer: (fn, ms) => {
    const clear = clearTimeout;
    const h = setTimeout(fn, ms);
    return () => clear(h);
  },
  clearTimer: (cancel) => (cancel as () => void)(),
};

/**
 * What a redeploy leaves: per node id, the entities that were true or holding when it closed (not removed), so that
 * the node that replaces it can say that it starts over.
 */
const leftOver = new Map<string, { trues: number; holds: number }>();

/**
 * A subscription with word of when its data is current: from the server's page (the first answer, or the fresh one
 * after a reconnect, taken in by the subscription first), until the socket goes down.
 */
class Synced implements Subscriber {
  readonly unsubscribeType: string;
  synced = false;

  constructor(
    readonly inner: EntityDataSubscription | AlarmDataSubscription,
    private readonly session: Session,
    private readonly onPage?: (data: unknown[]) => void,
  ) {
    this.unsubscribeType = inner.unsubscribeType;
  }

  command(): WsCommand {
    return this.inner.command();
  }

  onMessage(msg: WsMessage): void {
    this.inner.onMessage(msg);
    const page = msg.data as PageData<unknown> | null | undefined;
    if (page && Array.isArray(page.data)) {
      this.onPage?.(page.data);
      if (!this.synced) {
        this.synced = true;
        this.session.liveness();
      }
    }
  }

  onError(err: TbError, fatal: boolean): void {
    this.inner.onError(err, fatal);
  }

  onState(state: LiveState, info?: StateInfo): void {
    if (state !== 'subscribed' && this.synced) {
      this.synced = false;
      this.session.liveness();
    }
    this.inner.onState(state, info);
  }

  onResubscribe(): void {
    if (this.synced) {
      this.synced = false;
      this.session.liveness();
    }
    (this.inner as Subscriber).onResubscribe?.();
  }
}

/**
 * The subscriptions started together (at deploy or by one message) and the entities they watch: their data is
 * current when every one of them is.
 */
class Session implements LiveSink {
  readonly group = new Group<EntityState>();
  readonly subs: Synced[] = [];
  readonly entities = new Set<Entity>();
  /**
   * Alarm conditions: the active alarms of the type and severities asked, by entity and id; kept for entities not
   * watched yet too (the alarms' first answer may come before the entities').
   */
  readonly alarms = new Map<string, Map<string, AlarmData>>();
  /** Every subscription has answered once: the entities have been judged. */
  started = false;
  active = true;

  constructor(
    private readonly engine: TriggerEngine,
    /** The entities it was started for (fixed entities, a message's): added up front, none come and go. */
    readonly fixed: readonly EntityId[] | undefined,
    /** Its own conditions (values from its message). */
    readonly conditions: readonly KeyCondition[] | undefined,
  ) {}

  liveness(): void {
    if (!this.active) return;
    const live = this.subs.length > 0 && this.subs.every((s) => s.synced);
    this.engine.liveness(this, live);
  }

  event(ev: LiveEvent): void {
    if (this.active) this.engine.onEntityEvent(this, ev);
  }

  state(state: LiveState, info?: StateInfo): void {
    if (this.active) this.engine.onState(state, info);
  }

  error(err: TbError, fatal: boolean): void {
    if (this.active) this.engine.onError(this, err, fatal);
  }
}

/** The alarm subscription's events go to the engine as alarms. */
class AlarmSink implements LiveSink {
  constructor(
    private readonly engine: TriggerEngine,
    private readonly session: Session,
  ) {}

  event(ev: LiveEvent): void {
    if (this.session.active) this.engine.onAlarmEvent(this.session, ev);
  }

  state(state: LiveState, info?: StateInfo): void {
    if (this.session.active) this.engine.onState(state, info);
  }

  error(err: TbError, fatal: boolean): void {
    if (this.session.active) this.engine.onError(this.session, err, fatal);
  }
}

/** Does a condition row's value read the message (a msg value, or a `{{msg.…}}` placeholder)? */
function readsMessage(r: CheckedRow): boolean {
  if (r.valueType === 'msg') return true;
  if (r.valueType !== 'str') return false;
  const t = parseTemplate(r.value);
  if (!t) return false;
  const refs = t.whole ? [t.whole] : (t.parts ?? []);
  return refs.some((p) => typeof p !== 'string' && p.source === 'msg');
}

/** Everything one tb-trigger node runs. */
export class TriggerEngine {
  readonly problem: TbError | undefined;
  private readonly plan: TriggerPlan;
  private readonly machine: TriggerMachine<EntityState>;
  private readonly target: EntityTarget;
  private readonly values: TypedInput[] = [];
  /** The conditions when every value is fixed (compiled once, at deploy). */
  private fixedConditions: KeyCondition[] | undefined;
  private readonly source: QuerySource<EntityDataQuery> | undefined;
  /** Every entity watched, by id. */
  private readonly entities = new Map<string, Entity>();
  private readonly sessions = new Set<Session>();
  /** Query mode started by a message: the query now watched, as JSON (the same one again changes nothing). */
  private boundKey: string | undefined;
  private closed = false;
  private down: { state: LiveState; info?: StateInfo } | undefined;
  private readonly statusLine: TurnStatus;
  private overWarned = false;
  private readonly targetEntityType: string;

  constructor(
    private readonly RED: NodeAPI,
    private readonly node: Node,
    read: ReadSettings<typeof TB_TRIGGER.settings>,
    private readonly conn: TbConnectionNode | undefined,
  ) {
    this.statusLine = new TurnStatus(node, () => this.statusNow());
    const { plan, problem } = prepareTriggerPlan(read);
    this.plan = plan;
    const problems: TbError[] = problem ? [problem] : [];
    const v: TriggerSettings = read.values;
    this.targetEntityType = v.targetEntityType;
    this.target = new EntityTarget(RED, node, v, {});
    problems.push(...this.target.problems);
    if (plan.watch === 'query') {
      this.source = new QuerySource<EntityDataQuery>(RED, node, String(v.query), v.queryType, prepareEntityDataQuery, {
        live: true,
      });
      if (this.source.problem) problems.push(this.source.problem);
    }
    // Started at deploy, with no message to read a value from.
    const atDeploy =
      plan.watch === 'entity' || (plan.watch === 'query' && this.source?.type === 'json' && !this.source.bound);
    for (const r of plan.rows) {
      const input = new TypedInput(RED, node, r.valueType, r.value, {
        name: r.field,
        placeholders: true,
        blank: (t) =>
          `${r.field}: name the ${t === 'msg' ? 'message property' : t === 'env' ? 'environment variable' : `${t} context key`} to read the value from`,
        jsonata: { errorField: r.field },
      });
      if (input.problem) problems.push(input.problem);
      else if (atDeploy && readsMessage(r))
        problems.push(
          new TbConfigError(
            `${r.field}: its value is read from the message, but this trigger starts at deploy, with no message: ` +
              'give a fixed value (or choose Watch: the entities messages name)',
          ),
        );
      this.values.push(input);
    }
    if (!problems.length && plan.condition === 'value' && this.values.every((x) => x.fixed)) {
      // Fixed values are checked once: "> warm" is a setting to fix, not a message to refuse.
      try {
        this.fixedConditions = plan.rows.map((r, i) => ({
          keyType: r.keyType,
          key: r.key,
          condition: compileCondition(r.operator, this.values[i].fixed),
        }));
      } catch (err) {
        problems.push(new TbConfigError((err as Error).message));
      }
    }
    this.problem = problems[0];
    this.machine = new TriggerMachine<EntityState>(plan.timing, NODE_CLOCK, (c) => this.send(c));
  }

  /** Deploy: a trigger on fixed entities or a fixed query starts watching now; one fed by messages waits for them. */
  start(): void {
    const prior = leftOver.get(this.node.id);
    leftOver.delete(this.node.id);
    if (prior && (prior.trues || prior.holds))
      this.node.warn(
        `Redeployed: this trigger starts over (${prior.trues} true and ${prior.holds} holding were forgotten; ` +
          'each entity is judged again from now)',
      );
    if (this.problem) return;
    const atDeploy =
      this.plan.watch === 'entity' || (this.source !== undefined && this.source.type === 'json' && !this.source.bound);
    if (!atDeploy) {
      this.node.status(status(this.RED, 'grey', 'ring', 'idle'));
      return;
    }
    void this.startFromDeploy();
  }

  private async startFromDeploy(): Promise<void> {
    try {
      const conditions = await this.conditionsFor({} as NodeMessageInFlow);
      if (this.closed) return;
      if (this.plan.watch === 'entity') {
        const targets = await this.target.targets({} as NodeMessageInFlow);
        if (this.closed) return;
        this.watchFixed(targets.entities, conditions);
      } else {
        const r = (this.source as QuerySource<EntityDataQuery>).resolve({});
        this.watchQuery(r instanceof Promise ? await r : r, conditions);
      }
    } catch (err) {
      // The connection's own problem, or a query too large for one WebSocket message: nothing is watched.
      this.node.status({ ...errorStatus(this.RED, err), shape: 'dot' });
      const e = err as Error;
      setImmediate(() => this.node.error(e, { topic: 'tb-trigger', payload: e.message } as NodeMessage));
    }
  }

  // ---- input ------------------------------------------------------------------------------------------------

  /** One message: a reset, or (fed by messages) entities to watch or to stop watching, or the query to watch. */
  async input(msg: NodeMessageInFlow): Promise<void> {
    if (this.problem) throw this.problem;
    const m = msg as unknown as Record<string, unknown>;
    if (m.reset === true) {
      this.reset(m);
      return;
    }
    const action = m.action === undefined || m.action === null || m.action === '' ? 'watch' : m.action;
    if (action !== 'watch' && action !== 'unwatch')
      throw new TbInputError('msg.action', `msg.action must be "watch" or "unwatch" (got ${jsonText(m.action)})`);
    const atDeploy =
      this.plan.watch === 'entity' || (this.source !== undefined && this.source.type === 'json' && !this.source.bound);
    if (atDeploy)
      throw new TbInputError(
        'msg',
        'This trigger watches its entities from deploy: a message can only reset it (msg.reset = true). To start and ' +
          'stop watching by message, choose Watch: the entities messages name, or a query from the message',
      );
    if (this.plan.watch === 'query') {
      if (action === 'unwatch') {
        this.stopAll(true);
        this.boundKey = undefined;
        this.showStatus();
        return;
      }
      const src = this.source as QuerySource<EntityDataQuery>;
      const r = src.resolve(msg);
      const q = r instanceof Promise ? await r : r;
      const key = JSON.stringify(q);
      if (key === this.boundKey && this.sessions.size) return;
      const conditions = await this.conditionsFor(msg);
      if (this.closed) return;
      this.stopAll(true);
      this.boundKey = key;
      this.watchQuery(q, conditions);
      return;
    }
    const targets = await this.target.targets(msg);
    if (action === 'unwatch') {
      for (const e of targets.entities) this.unwatch(e.id);
      this.showStatus();
      return;
    }
    const conditions = await this.conditionsFor(msg);
    if (this.closed) return;
    const fresh = targets.entities.filter((e) => !this.entities.has(e.id));
    const max = this.plan.maxEntities;
    if (this.entities.size + fresh.length > max)
      throw new TbInputError(
        'maxEntities',
        `This trigger already watches ${this.entities.size} entities; ${fresh.length} more would pass its limit ` +
          `(Max entities ${max}): unwatch some (msg.action = "unwatch"), or raise the limit`,
      );
    // Watched already: its conditions are the message's now, its state goes on.
    for (const e of targets.entities) {
      const t = this.entities.get(e.id);
      if (!t) continue;
      if (conditions !== this.fixedConditions) t.data.conditions = conditions;
      this.evaluate(t);
    }
    if (fresh.length) this.watchFixed(fresh, conditions);
  }

  /** The conditions of a message: the node's fixed ones, or compiled with the values it gives. */
  private async conditionsFor(msg: NodeMessageInFlow): Promise<KeyCondition[] | undefined> {
    if (this.plan.condition !== 'value') return undefined;
    if (this.fixedConditions) return this.fixedConditions;
    const out: KeyCondition[] = [];
    for (let i = 0; i < this.plan.rows.length; i++) {
      const r = this.plan.rows[i];
      const read = this.values[i].read(msg);
      const compared = read instanceof Promise ? await read : read;
      out.push({ keyType: r.keyType, key: r.key, condition: compileCondition(r.operator, compared) });
    }
    return out;
  }

  /** msg.reset: the message's entities (msg.entity, else msg.topic as an id) start over, or every entity. */
  private reset(m: Record<string, unknown>): void {
    let only: Set<string> | undefined;
    if ((m.entity !== undefined && m.entity !== null) || uuidText(m.topic) !== undefined) {
      const rules = policyRules({}, this.targetEntityType);
      only = new Set(targetsFromMessage(m as { entity?: unknown; topic?: unknown }, rules).entities.map((e) => e.id));
    }
    for (const t of this.entities.values()) {
      if (only && !only.has(t.entity.id)) continue;
      this.machine.reset(t, this.holdsNow(t));
    }
    this.showStatus();
  }

  // ---- watching -----------------------------------------------------------------------------------------------

  private hub(): LiveHub {
    if (!this.conn) throw noConnectionError();
    return this.conn.live();
  }

  /** Fixed entities (the node's, or a message's): one subscription per entity type, the entities added up front. */
  private watchFixed(entities: readonly EntityId[], conditions: readonly KeyCondition[] | undefined): void {
    const hub = this.hub();
    const session = new Session(this, entities, conditions === this.fixedConditions ? undefined : conditions);
    const size = Math.max(entities.length, 1);
    const subs: Synced[] = [];
    for (const group of byType(entities)) {
      const filter = entitiesFilter(group);
      subs.push(...this.subscriptionsFor(session, filter, size));
    }
    this.open(hub, session, subs);
    const now = Date.now();
    for (const e of entities) {
      if (this.entities.has(e.id)) continue;
      const t = new Tracked<EntityState>(
        e.id,
        { entityType: e.entityType, id: e.id },
        session.group,
        { row: undefined, name: undefined, judged: false, conditions: undefined, session },
        now,
      );
      session.entities.add(t);
      this.entities.set(e.id, t);
    }
    // They are judged once every subscription has answered (see `liveness`).
    this.showStatus();
  }

  /** The entities of a query (its list may change: `dynamic`). */
  private watchQuery(q: EntityDataQuery, conditions?: readonly KeyCondition[]): void {
    const hub = this.hub();
    if (q.pageLink.pageSize > this.plan.maxEntities)
      throw new TbInputError(
        'maxEntities',
        `The query's page size (${q.pageLink.pageSize}) is more than this trigger's limit (Max entities ` +
          `${this.plan.maxEntities}): lower the page size, or raise the limit`,
      );
    const session = new Session(this, undefined, conditions === this.fixedConditions ? undefined : conditions);
    this.open(hub, session, this.subscriptionsFor(session, q, q.pageLink.pageSize));
    this.showStatus();
  }

  /**
   * The subscriptions of a session: the entities with the keys the condition reads (a value or a silence); for an
   * alarm condition, their active alarms, beside the entities themselves for a query (whose list may change).
   */
  private subscriptionsFor(session: Session, base: EntityDataQuery | EntityFilter, size: number): Synced[] {
    const plan = this.plan;
    const subs: Synced[] = [];
    const pageSize = Math.max(1, Math.min(size, plan.maxEntities));
    if (plan.condition !== 'alarm' || !session.fixed) {
      const query = valueQuery(plan, base, pageSize);
      if (plan.condition === 'alarm') {
        // The entities only: the alarms come by their own subscription.
        query.latestValues = 'entityFilter' in base ? (base.latestValues ?? []) : [];
      }
      subs.push(new Synced(new EntityDataSubscription(session, query, 'raw'), session));
    }
    if (plan.condition === 'alarm') {
      const alarmPage = Math.max(100, plan.maxEntities);
      const conn = this.conn;
      const inner = new AlarmDataSubscription(
        new AlarmSink(this, session),
        alarmQuery(plan, base, alarmPage),
        'raw',
        (id) => usableClient(conn).getAlarmInfo(id),
      );
      subs.push(new Synced(inner, session, (data) => this.alarmPage(session, data as AlarmData[])));
    }
    return subs;
  }

  /** Subscribes a session's subscriptions (none stays subscribed when one is refused). */
  private open(hub: LiveHub, session: Session, subs: Synced[]): void {
    for (let i = 0; i < subs.length; i++) {
      try {
        hub.subscribe(subs[i]);
      } catch (err) {
        session.active = false;
        for (let j = 0; j < i; j++) hub.unsubscribe(subs[j]);
        throw err;
      }
    }
    session.subs.push(...subs);
    this.sessions.add(session);
  }

  /** Stops a session: its subscriptions and its entities (`tell`: those that were true are said to be false). */
  private stop(session: Session, tell: boolean): void {
    session.active = false;
    this.sessions.delete(session);
    const hub = this.conn && !this.conn.configError ? this.conn.live() : undefined;
    for (const s of session.subs) hub?.unsubscribe(s);
    for (const t of session.entities) this.drop(t, tell);
    session.entities.clear();
  }

  private stopAll(tell: boolean): void {
    for (const s of [...this.sessions]) this.stop(s, tell);
  }

  /** msg.action = "unwatch": the entity's session ends when it was its last entity. */
  private unwatch(id: string): void {
    const t = this.entities.get(id);
    if (!t) return;
    const session = t.data.session;
    this.drop(t, true);
    session.entities.delete(t);
    if (session.entities.size === 0) this.stop(session, false);
  }

  private drop(t: Entity, tell: boolean): void {
    this.entities.delete(t.entity.id);
    this.machine.remove(t, tell);
  }

  /** Adds an entity of a query's list (up to the limit). */
  private add(session: Session, ed: EntityData, initial: boolean): void {
    const id = ed.entityId.id;
    if (this.entities.has(id)) return;
    if (this.entities.size >= this.plan.maxEntities) {
      if (!this.overWarned) {
        this.overWarned = true;
        this.node.warn(
          `This trigger watches ${this.plan.maxEntities} entities, its limit (Max entities): the others are not ` +
            'watched. Raise the limit, or narrow the query',
        );
      }
      return;
    }
    const t = new Tracked<EntityState>(
      id,
      { entityType: ed.entityId.entityType, id },
      session.group,
      { row: ed, name: nameOf(ed), judged: false, conditions: undefined, session },
      Date.now(),
    );
    session.entities.add(t);
    this.entities.set(id, t);
    // The first page's entities are judged once every subscription has answered; a later one at once.
    if (session.started) this.judgeFirst(t, initial);
  }

  /** An entity's first answer is in: its state now (and its initial message, when the node sends them). */
  private judgeFirst(t: Entity, initial: boolean): void {
    if (t.data.judged || t.removed) return;
    t.data.judged = true;
    if (this.plan.timing.silenceMs) t.lastUpdate = lastUpdateOf(t.data.row, this.plan.silenceKeys, Date.now());
    this.machine.add(t, this.holdsNow(t), initial && this.plan.sendInitial);
  }

  /** Does the entity's condition hold now, on what is known of it? (A silence is the machine's to judge.) */
  private holdsNow(t: Entity): boolean {
    const plan = this.plan;
    if (plan.condition === 'alarm') {
      const alarms = t.data.session.alarms.get(t.entity.id);
      if (!alarms) return false;
      for (const a of alarms.values()) if (alarmMatches(a, plan.alarm)) return true;
      return false;
    }
    if (plan.condition === 'silence') return false;
    const conditions = t.data.conditions ?? t.data.session.conditions ?? this.fixedConditions ?? [];
    return conditionsHold(conditions, plan.join, t.data.row);
  }

  private evaluate(t: Entity): void {
    if (!t.data.judged) return;
    if (this.plan.condition === 'silence') {
      this.machine.touched(t, lastUpdateOf(t.data.row, this.plan.silenceKeys, Date.now()));
      return;
    }
    this.machine.set(t, this.holdsNow(t));
  }

  // ---- live events ----------------------------------------------------------------------------------------------

  /** An event of the entities' subscription: the first page, an update, an entity added to or removed from the list. */
  onEntityEvent(session: Session, ev: LiveEvent): void {
    if (this.closed) return;
    switch (ev.event) {
      case 'snapshot': {
        const rows = ev.items as EntityData[];
        if (session.fixed) {
          const byId = new Map(rows.map((ed) => [ed.entityId.id, ed]));
          for (const t of session.entities) {
            const ed = byId.get(t.entity.id);
            t.data.row = ed;
            t.data.name = nameOf(ed);
            if (!ed)
              this.node.warn(
                `${t.entity.entityType} ${t.entity.id} was not found (deleted, or this user may not see it): it is ` +
                  'watched, and judged on what it reports',
              );
          }
        } else {
          for (const ed of rows) this.add(session, ed, true);
          if (ev.page.totalElements > rows.length && !this.overWarned) {
            this.overWarned = true;
            this.node.warn(
              `The query finds ${ev.page.totalElements} entities and watches the first ${rows.length} (its page ` +
                'size): raise the page size (up to Max entities) to watch them all',
            );
          }
        }
        break;
      }
      case 'update': {
        const ed = ev.item as EntityData;
        const t = this.entities.get(ev.id);
        if (!t || t.data.session !== session) return;
        t.data.row = ed;
        t.data.name = nameOf(ed) ?? t.data.name;
        // The status counts the entities and those true: an update changes it only through a change it causes.
        if (this.plan.condition !== 'alarm') this.evaluate(t);
        return;
      }
      case 'added':
        if (!session.fixed) this.add(session, ev.item as EntityData, false);
        break;
      case 'removed': {
        const t = this.entities.get(ev.id);
        if (!t || t.data.session !== session || session.fixed) return;
        session.entities.delete(t);
        this.drop(t, true);
        break;
      }
      default:
        return;
    }
    this.showStatus();
  }

  /** An alarm event: the alarms of its entity are updated, and its condition judged again. */
  onAlarmEvent(session: Session, ev: LiveEvent): void {
    if (this.closed) return;
    if (ev.event === 'snapshot') {
      for (const a of ev.items as AlarmData[]) this.keepAlarm(session, a);
    } else if (ev.event === 'removed') {
      this.forgetAlarm(session, ev.id, ev.item as AlarmData);
    } else if (
      ev.event === 'created' ||
      ev.event === 'acknowledged' ||
      ev.event === 'cleared' ||
      ev.event === 'updated'
    ) {
      const a = ev.item as AlarmData;
      if (a.cleared) this.forgetAlarm(session, ev.id, a);
      else this.keepAlarm(session, a);
    } else return;
    this.showStatus();
  }

  /** The entity an alarm counts for: the entity of the query it matched (its originator, or one it propagates to). */
  private static alarmEntity(a: AlarmData): string | undefined {
    return a.entityId?.id ?? a.originator?.id;
  }

  private keepAlarm(session: Session, a: AlarmData): void {
    const id = TriggerEngine.alarmEntity(a);
    if (!id) return;
    let alarms = session.alarms.get(id);
    if (!alarms) session.alarms.set(id, (alarms = new Map()));
    alarms.set(a.id.id, a);
    const t = this.entities.get(id);
    if (!t || t.data.session !== session) return;
    if (!t.data.name && a.originatorName && a.originator?.id === id) t.data.name = a.originatorName;
    if (t.data.judged) this.machine.set(t, this.holdsNow(t));
  }

  private forgetAlarm(session: Session, alarmId: string, a: AlarmData | undefined): void {
    const id = a ? TriggerEngine.alarmEntity(a) : undefined;
    const ids = id ? [id] : [...session.alarms.keys()];
    for (const e of ids) {
      const alarms = session.alarms.get(e);
      if (!alarms?.delete(alarmId)) continue;
      if (alarms.size === 0) session.alarms.delete(e);
      const t = this.entities.get(e);
      if (t && t.data.session === session && t.data.judged) this.machine.set(t, this.holdsNow(t));
    }
  }

  /**
   * A page of the alarm subscription (its first, or the fresh one after a reconnect): an alarm that is not on it is
   * no longer active (cleared, deleted, or no longer of the severities asked), from now.
   */
  private alarmPage(session: Session, data: readonly AlarmData[]): void {
    const on = new Set(data.map((a) => a.id.id));
    for (const [e, alarms] of [...session.alarms]) {
      let changed = false;
      for (const id of [...alarms.keys()]) {
        if (on.has(id)) continue;
        alarms.delete(id);
        changed = true;
      }
      if (alarms.size === 0) session.alarms.delete(e);
      const t = changed ? this.entities.get(e) : undefined;
      if (t && t.data.session === session && t.data.judged) this.machine.set(t, this.holdsNow(t));
    }
  }

  /**
   * A session's data became current, or stopped being so. The first time, its entities are judged (and their state
   * sent, when the node sends it at start); after a reconnect, the deadlines put off are decided now.
   */
  liveness(session: Session, live: boolean): void {
    if (this.closed) return;
    if (!live) {
      this.machine.suspend(session.group);
      return;
    }
    if (!session.started) {
      session.started = true;
      for (const t of session.entities) this.judgeFirst(t, true);
      this.showStatus();
    }
    this.machine.resume(session.group);
  }

  onState(state: LiveState, info?: StateInfo): void {
    if (this.closed) return;
    if (state === 'disconnected' || state === 'refused' || state === 'connecting') this.down = { state, info };
    else if (state === 'subscribed') this.down = undefined;
    else return;
    this.showStatus();
  }

  /** A subscription failed for good: its entities are no longer watched; a Catch node hears why. */
  onError(session: Session, err: TbError, fatal: boolean): void {
    if (this.closed) return;
    this.statusLine.showNow(errorStatus(this.RED, err));
    if (fatal) this.stop(session, false);
    this.node.error(err, { topic: 'tb-trigger', payload: err.message, fatal } as NodeMessage);
  }

  // ---- output -------------------------------------------------------------------------------------------------

  /** A change of the machine, as a message on output 1 (true) or 2 (false). */
  private send(c: Change<EntityState>): void {
    const plan = this.plan;
    const t = c.tracked;
    const d = t.data;
    let reading: Parameters<typeof payloadOf>[2];
    if (plan.condition === 'alarm') {
      reading = {
        alarm: flatAlarm(
          newestAlarm(d.session.alarms.get(t.entity.id)?.values() ?? [], (a) => alarmMatches(a, plan.alarm)),
        ),
      };
    } else if (plan.condition === 'silence') {
      const keys = plan.silenceKeys.map((key) => ({ keyType: 'TIME_SERIES' as const, key }));
      const values = valuesOf(keys, d.row);
      reading = { values, value: values[plan.silenceKeys[0]], lastUpdate: t.lastUpdate || null };
    } else {
      const values = valuesOf(plan.rows, d.row);
      reading = { values, value: values[plan.rows[0].key] };
    }
    const payload = payloadOf(c as Change<unknown>, d.name, reading);
    const msg: NodeMessage & Record<string, unknown> = {
      topic: topicOf(plan.condition, payload, plan.timing.silenceMs),
      payload,
      entity: { ...t.entity },
    };
    this.node.send(c.state ? [msg, null] : [null, msg]);
    this.showStatus();
  }

  /** "3 true of 20" (or the connection's trouble); once per tick. */
  showStatus(): void {
    this.statusLine.update();
  }

  private statusNow(): NodeStatus | undefined {
    if (this.closed) return undefined;
    if (this.down && this.sessions.size) {
      const s = stateStatus(this.RED, this.down.state, this.down.info);
      if (s) return s;
    }
    if (this.sessions.size === 0) return status(this.RED, 'grey', 'ring', 'idle');
    const n = this.machine.trueCount;
    return status(this.RED, n > 0 ? 'blue' : 'green', 'dot', 'triggerTrue', { count: n, total: this.entities.size });
  }

  /** A message refused: its error status (the next change shows the count again). */
  refused(err: unknown): void {
    this.statusLine.showNow(errorStatus(this.RED, err));
  }

  /** Redeploy or close: every subscription and the timer stop; nothing is sent. */
  close(removed: boolean): void {
    if (!removed && !this.closed) {
      let holds = 0;
      for (const t of this.entities.values()) if (t.phase === 'holding') holds++;
      leftOver.set(this.node.id, { trues: this.machine.trueCount, holds });
    }
    this.closed = true;
    this.machine.close();
    const hub = this.conn && !this.conn.configError ? this.conn.live() : undefined;
    for (const s of this.sessions) {
      s.active = false;
      for (const sub of s.subs) hub?.unsubscribe(sub);
    }
    this.sessions.clear();
    this.entities.clear();
  }
}
