/**
 * What tb-telemetry, tb-attributes and tb-rpc share: which entity (the `target` TypedInput, by default msg.entity,
 * else msg.topic as a UUID, else a query's list in msg.payload; an array acts on each), the bounded concurrency of a
 * bulk action with its results in input order, the output of one entity or of many (with what was acted on in
 * msg.entity), the status of a partial failure, and stopping on close; and
 * `deviceActionNode()`, their whole wiring (as `restNode()` is the query nodes'), so that each node file says only
 * what is its own. Each node reads its settings by its declaration first; the family takes what it read.
 */
import { setMaxListeners } from 'node:events';
import type { Node, NodeAPI, NodeMessage, NodeMessageInFlow, NodeStatus } from 'node-red';
import { TbConfigError, TbError } from '../errors';
import { lookupConnection, usableClient } from '../node-red/connection';
import { Activity, onClose, onInput, type SendFn } from '../node-red/input';
import { actionFailureStatus, setupProblem, status } from '../node-red/status';
import { TypedValue } from '../node-red/typed-value';
import { BoundSettings, IgnoredWarnings } from '../node-red/value-sources';
import { bulkFailedError, errorEntry, forEachBulk, type Outcome, type StopSignal } from '../platform/bulk';
import type { PlatformClient } from '../platform/client';
import type { CallOptions } from '../platform/requester';
import {
  ACTION_TARGETS,
  entityOut,
  policyRules,
  prepareTargets,
  targetsFromMessage,
  type DeviceActionType,
  type TargetPolicy,
  type TargetRules,
  type Targets,
} from '../protocol/targets';
import type { EntityId } from '../protocol/types';
import { OptionReader, type Bag } from '../settings/options';

/**
 * What the family reads of a device action's settings, as the node read them by its declaration (a missing one is
 * its default); the others ride along, for the options a message may set.
 */
export interface DeviceActionSettings {
  connection: string;
  target: string;
  targetType: string;
  /** The type of a bare id (tb-rpc has none: devices only). */
  targetEntityType?: string;
  /** A whole number of at least 1 (a setting that is never empty). */
  concurrency: number | undefined;
  [name: string]: unknown;
}

/** A device action's settings as read at deploy: the values, and what is wrong with them. */
export interface ReadDeviceAction {
  values: DeviceActionSettings;
  problems: readonly TbError[];
}

/** Message properties an error brings along (e.g. msg.rpc of a failed RPC): put on the message that goes to Catch. */
const errorProps = new WeakMap<object, Props>();

/** The error, carrying `props` for the message (see errorProps). */
export function withProps<E extends Error>(err: E, props: Props): E {
  errorProps.set(err, props);
  return err;
}

function propsOf(err: unknown): Props | undefined {
  return err && typeof err === 'object' ? errorProps.get(err) : undefined;
}

/** What one entity's action gives: the message properties it sets (payload, ts, rpc…). */
export type Props = Record<string, unknown>;

/**
 * The node's stop signal. Every RPC being followed waits on it (one 'abort' listener each, removed when its wait
 * ends), so a bulk of persistent RPCs holds as many at once: that is not a leak, so no listener warning.
 */
function stopController(): AbortController {
  const c = new AbortController();
  setMaxListeners(0, c.signal);
  return c;
}

/**
 * The entity setting of a node that acts on or watches entities (`target` / `targetType` / `targetEntityType`): by
 * default msg.entity, else msg.topic as a UUID, else a query's list in msg.payload; fixed JSON, a message property or
 * JSONata otherwise.
 */
export class EntityTarget {
  /** Problems of the setting found at deploy (a bad bare-UUID type, a bad fixed entity…). */
  readonly problems: TbError[] = [];
  private readonly target: TypedValue;
  private readonly rules: TargetRules;

  /** `policy`: the entity types the node takes (a device action's: ACTION_TARGETS). */
  constructor(
    RED: NodeAPI,
    node: Node,
    config: Pick<DeviceActionSettings, 'target' | 'targetType' | 'targetEntityType'>,
    policy: TargetPolicy,
  ) {
    let rules: TargetRules;
    try {
      rules = policyRules(policy, config.targetEntityType);
    } catch (err) {
      this.problems.push(new TbConfigError((err as Error).message));
      rules = { ...policy, defaultType: 'DEVICE' };
    }
    this.rules = rules;
    this.target = new TypedValue(RED, node, {
      name: 'target',
      value: config.target,
      type: config.targetType,
      types: ['auto', 'json', 'msg', 'jsonata'],
      auto: () => ({ value: undefined, field: 'msg.entity' }),
      check: (v, field) => prepareTargets(v, field, this.rules),
      sameName: 'entity',
    });
    if (this.target.problem) this.problems.push(this.target.problem);
  }

  /**
   * The entities of this message (the setting's problems are the caller's to check first). `payloadUse`: what the
   * node reads msg.payload as for this message, when it does (then a list of entities there is not the target).
   */
  async targets(msg: NodeMessageInFlow, payloadUse?: string): Promise<Targets> {
    if (this.target.type === 'auto')
      return targetsFromMessage(msg as { entity?: unknown; topic?: unknown }, this.rules, payloadUse);
    const r = this.target.resolve(msg);
    const s = r instanceof Promise ? await r : r;
    return prepareTargets(s.value, s.field, this.rules);
  }
}

/** The node's entity setting, its problems, concurrency, activity and stop signal. */
export class DeviceAction {
  readonly activity: Activity;
  readonly concurrency: number;
  readonly call: CallOptions;
  /** Set on close: a bulk takes no new entity, a follower polls no more. */
  readonly stop: StopSignal = { stopped: false };
  readonly abort = stopController();
  private readonly entity: EntityTarget;
  private readonly problems: TbError[] = [];

  /** `problems`: those found reading the settings, shown first. */
  constructor(
    private readonly RED: NodeAPI,
    private readonly node: Node,
    settings: DeviceActionSettings,
    type: DeviceActionType,
    problems: readonly TbError[] = [],
  ) {
    this.activity = new Activity(RED, node);
    this.call = { onRetry: (n) => this.activity.show(status(RED, 'yellow', 'ring', 'retrying', { n })) };
    this.concurrency = settings.concurrency as number;
    this.problems.push(...problems);
    this.entity = new EntityTarget(RED, node, settings, ACTION_TARGETS[type]);
    this.problems.push(...this.entity.problems);
  }

  /** A problem with the node's settings found at deploy (the first one). */
  get problem(): TbError | undefined {
    return this.problems[0];
  }

  /** Adds a problem found by the node file (e.g. a bad operation), shown at deploy and thrown per message. */
  addProblem(err: TbError): void {
    this.problems.push(err);
  }

  /** Throws the settings' problem, if any (before anything is read from the message). */
  check(): void {
    if (this.problems.length) throw this.problems[0];
  }

  /** The entities of this message (`payloadUse`: see EntityTarget.targets). */
  async targets(msg: NodeMessageInFlow, payloadUse?: string): Promise<Targets> {
    this.check();
    return this.entity.targets(msg, payloadUse);
  }

  /**
   * Runs `work` for each entity (at most `concurrency` at a time) and sends the output:
   * - one entity (not an array): the properties `work` gives go on the message; its error goes to done(err);
   * - an array: `msg.payload` = `[{entity, ok: true, …props} | {entity, ok: false, error: {code, message}}]` in
   *   input order and `msg.failed` = how many failed; a partial failure is a yellow status, not an error; when
   *   every entity fails, the first error (with the results on the message) goes to Catch.
   * Either way msg.entity says what was acted on (`entityOut`), for the next node. `statusOf` gives the green status
   * of a success (for bulk: "N done").
   */
  async run(
    msg: NodeMessageInFlow,
    send: SendFn,
    targets: Targets,
    work: (e: EntityId) => Promise<Props>,
    statusOf: (props: Props) => NodeStatus,
    /**
     * Entities handled at once in a bulk (default: the node's concurrency; more when `work` bounds its own
     * requests).
     */
    concurrency: number = this.concurrency,
  ): Promise<void> {
    const RED = this.RED;
    const m = msg as NodeMessage & Record<string, unknown>;
    m.entity = entityOut(targets, m.entity);
    if (!targets.bulk) return this.once(m, send, () => work(targets.entities[0]), statusOf);
    this.activity.start();
    const total = targets.entities.length;
    let settled = 0;
    let failed = 0;
    let firstError: unknown; // entity 0's error: when every entity fails, the one the message names
    const every = Math.max(1, Math.floor(total / 20));
    // Each outcome becomes its result entry as it settles: one list of N in memory, not two.
    const results: Array<Record<string, unknown>> = new Array(total);
    await forEachBulk(targets.entities, concurrency, work, this.stop, (i, o: Outcome<Props>) => {
      results[i] = resultEntry(targets.entities[i], o);
      if (!o.ok) {
        failed++;
        if (i === 0) firstError = o.error;
      }
      settled++;
      if (settled < total && settled % every === 0)
        this.activity.show(status(RED, 'blue', 'dot', 'bulkProgress', { count: settled, total }));
    });
    if (this.stop.stopped) return this.dropped();
    m.payload = results;
    m.failed = failed;
    if (failed === total) {
      const err = bulkFailedError(targets.entities, total, 0, firstError);
      this.activity.end(actionFailureStatus(RED, err));
      throw err;
    }
    send(m);
    this.activity.end(
      failed
        ? status(RED, 'yellow', 'dot', 'bulkPartial', { count: total - failed, total, failed })
        : status(RED, 'green', 'dot', 'bulkDone', { count: total }),
    );
  }

  /**
   * One piece of work for the message (one entity, or none: the node acting as the connection's user): the
   * properties it gives go on the message; its error, with the properties it carries, goes to done(err).
   */
  async once(
    m: NodeMessage & Record<string, unknown>,
    send: SendFn,
    work: () => Promise<Props>,
    statusOf: (props: Props) => NodeStatus,
  ): Promise<void> {
    this.activity.start();
    let props: Props;
    try {
      props = await work();
    } catch (err) {
      if (this.stop.stopped && err instanceof TbError && err.code === 'TB_CLOSED') return this.dropped();
      const carried = propsOf(err);
      if (carried) Object.assign(m, carried);
      this.activity.end(actionFailureStatus(this.RED, err));
      throw err;
    }
    if (this.stop.stopped) return this.dropped();
    Object.assign(m, props);
    send(m);
    this.activity.end(statusOf(props));
  }

  /** The node stopped while the action ran: nothing is sent (the message just ends). */
  private dropped(): void {
    this.activity.end({});
  }

  /** For the close handler: no new entity, no poll. */
  close(): void {
    this.stop.stopped = true;
    this.abort.abort();
  }
}

/**
 * For a node that saves values (tb-telemetry, tb-attributes): msg.payload holds the values to save when this message
 * saves (the node's operation, or msg.operation when it says "msg") and the values are not set in the dialog.
 */
export function savePayloadUse(
  settings: { operation: string; valuesFrom: string },
  msg: NodeMessageInFlow,
): string | undefined {
  const op = settings.operation === 'msg' ? (msg as { operation?: unknown }).operation : settings.operation;
  return op === 'save' && settings.valuesFrom !== 'rows' ? 'the values to save' : undefined;
}

function resultEntry(entity: EntityId, o: Outcome<Props>): Record<string, unknown> {
  if (o.ok) return { entity, ok: true, ...o.value };
  return { entity, ok: false, error: errorEntry(o.error), ...propsOf(o.error) };
}

/** What one device-action node says of itself; deviceActionNode() does the rest. `R` is the request of a message. */
export interface DeviceActionParts<R> {
  /**
   * The settings a message may give (those its declaration says `fromMessage`): each may hold placeholders
   * (`{{msg.<path>}}`, `{{flow.<key>}}`, `{{global.<key>}}`, `{{env.<NAME>}}`), resolved for each message before
   * `request`.
   */
  settings?: readonly string[];
  /**
   * Settings with a "from the message" choice (`msg`) besides the options (operation, scope): unless set to `msg`, the
   * message property of the same name is ignored, with the one-time warning.
   */
  fixed?: readonly string[];
  /** Problems of the node's own settings, found at deploy (after those of the entity settings). */
  problems?: ReadonlyArray<TbError | undefined>;
  /** A message that acts on no target (tb-rpc's cancel): handled in full by the promise, when there is one. */
  divert?: (msg: NodeMessageInFlow, send: SendFn, client: () => PlatformClient) => Promise<void> | undefined;
  /**
   * The node acts as the connection's own user for this message, on no entity (tb-rule-engine with the current user
   * as originator): the one piece of work, given the client and the request. No entity is read, msg.entity is left
   * as it came. Undefined: the message's entities are read, as usual.
   */
  self?: (msg: NodeMessageInFlow) => ((client: PlatformClient, req: R) => Promise<Props>) | undefined;
  /** Checks of the message made before its targets are read (they throw a TbInputError). */
  check?: (msg: NodeMessageInFlow) => void;
  /**
   * What the node reads msg.payload as for this message, when it does ("the values to save", "the params"): then
   * msg.payload is never read as the entities to act on.
   */
  payloadUse?: (msg: NodeMessageInFlow) => string | undefined;
  /**
   * The request of one message, read after its targets (throws before anything is sent). `options` reads the node's
   * settings, placeholders resolved, first; one left empty reads the message property of the same name.
   */
  request: (msg: NodeMessageInFlow, now: number, options: OptionReader) => R | Promise<R>;
  /** One message's work: a function for each entity and, when it bounds its own requests, how many entities at once. */
  work: (
    client: PlatformClient,
    req: R,
    targets: Targets,
  ) => { each: (e: EntityId) => Promise<Props>; concurrency?: number };
  /** The green status of a success (the properties one entity's work gave). */
  status: (req: R, props: Props) => NodeStatus;
}

/**
 * Sets up a device-action node from the settings it read: connection lookup, the entity settings, the problems found
 * at deploy (those of reading the settings first), the input handler (checks, targets, request and client, each
 * failure before sending shown at once; then the work on each entity through DeviceAction.run) and close handling.
 * `parts` gets the node's DeviceAction (its call options, stop signal) and says the rest.
 */
export function deviceActionNode<R>(
  RED: NodeAPI,
  node: Node,
  read: ReadDeviceAction,
  type: DeviceActionType,
  parts: (action: DeviceAction) => DeviceActionParts<R>,
): void {
  const config: Bag = read.values;
  const conn = lookupConnection(RED, node, read.values.connection);
  const action = new DeviceAction(RED, node, read.values, type, read.problems);
  const own = parts(action);
  const bound = new BoundSettings(RED, node, config, own.settings ?? []);
  const warnings = IgnoredWarnings.of(node);
  const fixed = (own.fixed ?? []).filter((name) => config[name] !== 'msg');
  for (const p of [...(own.problems ?? []), bound.problem]) if (p) action.addProblem(p);
  if (action.problem) setupProblem(RED, node, action.problem);
  if (conn) conn.register(node);

  /** The settings of this message (placeholders resolved), the request, and the warnings for what it ignored. */
  const request = async (msg: NodeMessageInFlow, now: number): Promise<R> => {
    const m = msg as unknown as Bag;
    for (const name of fixed) warnings.check(msg, name, true);
    const r = bound.resolve(config, msg);
    const resolved = r instanceof Promise ? await r : r;
    const options = new OptionReader(resolved.query, m);
    try {
      return await own.request(msg, now, options);
    } catch (err) {
      throw BoundSettings.explain(err, resolved);
    } finally {
      for (const name of options.ignored) if (!bound.isBound(name)) warnings.ignored(name);
    }
  };

  onInput(node, async (msg, send) => {
    const diverted = own.divert?.(msg, send, () => usableClient(conn));
    if (diverted) return diverted;
    const now = Date.now();
    const self = own.self?.(msg);
    let targets: Targets | undefined;
    let req: R;
    let client: PlatformClient;
    try {
      own.check?.(msg);
      if (self) action.check();
      else targets = await action.targets(msg, own.payloadUse?.(msg));
      req = await request(msg, now);
      client = usableClient(conn);
    } catch (err) {
      // Nothing was sent: bad input, a bad setting, no connection.
      action.activity.immediate(actionFailureStatus(RED, err));
      throw err;
    }
    if (!targets) {
      const m = msg as NodeMessage & Record<string, unknown>;
      await action.once(
        m,
        send,
        () => (self as NonNullable<typeof self>)(client, req),
        (props) => own.status(req, props),
      );
      return;
    }
    const work = own.work(client, req, targets);
    await action.run(msg, send, targets, work.each, (props) => own.status(req, props), work.concurrency);
  });

  onClose(node, conn, () => action.close());
}
