/**
 * The node side of tb-alarm-action: its settings (checked at deploy), the request for each message (read from the
 * message and the settings, checked before anything is sent), the output message and the status texts.
 */
import type { Node, NodeAPI, NodeMessage, NodeStatus } from 'node-red';
import { TbConfigError, TbError } from '../../errors';
import { actionFailureStatus, status, type StatusKey } from '../../node-red/status';
import { TypedValue } from '../../node-red/typed-value';
import { BoundSettings, IgnoredWarnings, type Settings } from '../../node-red/value-sources';
import type { AlarmActionResult } from '../../platform/alarm-actions';
import {
  alarmIdFromMessage,
  isAlreadyDone,
  prepareAlarmId,
  type AlarmActionRequest,
  type AlarmOperation,
} from '../../protocol/alarm-actions';
import type { ResultFormat } from '../../protocol/format';
import { flattenAlarm } from '../../protocol/format';
import { rowEntity } from '../../protocol/targets';
import { isObject } from '../../protocol/validate';
import { type Sourced } from '../../settings/options';
import type { ReadSettings } from '../../settings/read';
import {
  prepareAssignee,
  prepareComment,
  prepareOperation,
  prepareOriginator,
  prepareRaise,
  prepareRaiseSettings,
  type RaiseSettings,
} from './logic';
import {
  ALARM_SOURCES,
  ASSIGNEE_SOURCES,
  COMMENT_SOURCES,
  DETAILS_SOURCES,
  ORIGINATOR_SOURCES,
  TB_ALARM_ACTION,
  type AlarmActionSettings,
} from './settings';

/** The raise's text settings that may hold placeholders (`{{msg.<path>}}`…). */
const RAISE_TEXT = ['alarmName', 'severity', 'propagateRelationTypes'] as const;

/** The parts of the node's settings: a problem of one counts where the operation uses that part. */
type Part = 'operation' | 'format' | 'strict' | 'alarm' | 'assignee' | 'comment' | 'raise';

/** The part each setting belongs to (name and connection have none: they are never a problem here). */
const PART_OF: Partial<Record<keyof AlarmActionSettings, Part>> = {
  operation: 'operation',
  alarm: 'alarm',
  alarmType: 'alarm',
  assignee: 'assignee',
  assigneeType: 'assignee',
  comment: 'comment',
  commentType: 'comment',
  originator: 'raise',
  originatorType: 'raise',
  originatorEntityType: 'raise',
  alarmName: 'raise',
  severity: 'raise',
  details: 'raise',
  detailsType: 'raise',
  propagate: 'raise',
  propagateToOwner: 'raise',
  propagateToTenant: 'raise',
  propagateRelationTypes: 'raise',
  format: 'format',
  strict: 'strict',
};

/** What each operation reads. */
const USES: Record<AlarmOperation, ReadonlyArray<'alarm' | 'assignee' | 'comment' | 'raise'>> = {
  acknowledge: ['alarm', 'comment'],
  clear: ['alarm', 'comment'],
  assign: ['alarm', 'assignee', 'comment'],
  unassign: ['alarm', 'comment'],
  comment: ['alarm', 'comment'],
  raise: ['raise'],
  delete: ['alarm'],
};

function prop(msg: NodeMessage, name: string): Sourced {
  return { value: (msg as Record<string, unknown>)[name], field: `msg.${name}` };
}

function payloadProp(msg: NodeMessage, name: string): Sourced {
  const p = msg.payload;
  return { value: isObject(p) ? p[name] : undefined, field: `msg.payload.${name}` };
}

/** The node's settings, checked at deploy, and what it reads from each message. */
export class AlarmActionInputs {
  /** The configured operation, or 'msg' (from msg.operation). */
  readonly operation: AlarmOperation | 'msg';
  readonly format: ResultFormat;
  readonly strict: boolean;
  private readonly alarm: TypedValue;
  private readonly assignee: TypedValue;
  private readonly comment: TypedValue;
  private readonly originator: TypedValue;
  private readonly details: TypedValue;
  private readonly raise: RaiseSettings | undefined;
  /** The raise's text settings with placeholders (alarm type, severity, relation types). */
  private readonly raiseText: BoundSettings;
  private readonly warnings: IgnoredWarnings;
  private readonly settings: AlarmActionSettings;
  private readonly problems: Partial<Record<Part, TbError>> = {};

  /** `saved`: the settings as the flow holds them (a problem's message quotes what was saved). */
  constructor(
    RED: NodeAPI,
    node: Node,
    read: ReadSettings<typeof TB_ALARM_ACTION.settings>,
    saved: Readonly<Record<string, unknown>>,
  ) {
    const s = read.values;
    this.settings = s;
    this.warnings = IgnoredWarnings.of(node);
    // A setting that holds what it does not allow is a problem of its part (the first one of each part).
    for (const [name, problem] of Object.entries(read.problemOf) as Array<[keyof AlarmActionSettings, TbError]>) {
      const part = PART_OF[name];
      if (part && !this.problems[part]) this.problems[part] = problem;
    }
    if (this.problems.format)
      this.problems.format = new TbConfigError(`format must be flat or raw (got ${JSON.stringify(saved.format)})`);
    this.operation = s.operation;
    this.format = s.format;
    this.strict = s.strict;

    this.alarm = new TypedValue(RED, node, {
      name: 'alarm',
      value: s.alarm,
      type: s.alarmType,
      types: ALARM_SOURCES,
      // msg.payload.id, then msg.payload (an id), then msg.topic: validated where it is found (the error says where it
      // looked)
      auto: (msg) => ({ value: alarmIdFromMessage(msg), field: 'msg.payload' }),
      check: (v, field) => prepareAlarmId(v, field),
    });
    this.assignee = new TypedValue(RED, node, {
      name: 'assignee',
      value: s.assignee,
      type: s.assigneeType,
      types: ASSIGNEE_SOURCES,
      auto: (msg) => prop(msg, 'assignee'),
      check: (v, field) => prepareAssignee(v, field),
      sameName: 'assignee',
    });
    this.comment = new TypedValue(RED, node, {
      name: 'comment',
      value: s.comment,
      type: s.commentType,
      types: COMMENT_SOURCES,
      auto: (msg) => prop(msg, 'comment'),
      sameName: 'comment',
    });
    this.raiseText = new BoundSettings(RED, node, s as unknown as Settings, RAISE_TEXT);
    let raiseSettings: RaiseSettings | undefined;
    try {
      // A setting with placeholders is checked for each message, once resolved.
      const fixed: Settings = { ...s };
      for (const n of RAISE_TEXT) if (this.raiseText.isBound(n)) fixed[n] = undefined;
      if (this.raiseText.problem) throw this.raiseText.problem;
      raiseSettings = prepareRaiseSettings(fixed);
    } catch (err) {
      this.problems.raise ??= err as TbError;
    }
    this.raise = raiseSettings;
    this.originator = new TypedValue(RED, node, {
      name: 'originator',
      value: s.originator,
      type: s.originatorType,
      types: ORIGINATOR_SOURCES,
      auto: (msg) => payloadProp(msg, 'originator'),
      check: (v, field) => prepareOriginator(v, field, s.originatorEntityType),
    });
    this.details = new TypedValue(RED, node, {
      name: 'details',
      value: s.details,
      type: s.detailsType,
      types: DETAILS_SOURCES,
      auto: (msg) => payloadProp(msg, 'details'),
    });
    this.problems.alarm ??= this.alarm.problem;
    this.problems.assignee ??= this.assignee.problem;
    this.problems.comment ??= this.comment.problem;
    this.problems.raise ??= this.originator.problem ?? this.details.problem;
  }

  /** The first problem with a setting the configured operation uses (every setting when it comes from msg). */
  get problem(): TbError | undefined {
    const p = this.problems;
    if (p.operation) return p.operation;
    if (p.format) return p.format;
    if (p.strict) return p.strict;
    const uses = this.operation === 'msg' ? (['alarm', 'assignee', 'comment', 'raise'] as const) : USES[this.operation];
    for (const u of uses) if (p[u]) return p[u];
    return undefined;
  }

  /** The operation of this message: the node's, or `msg.operation`. */
  operationOf(msg: NodeMessage): AlarmOperation {
    if (this.problems.operation) throw this.problems.operation;
    if (this.problems.format) throw this.problems.format;
    if (this.problems.strict) throw this.problems.strict;
    this.warnings.check(msg, 'operation', this.operation !== 'msg');
    return this.operation === 'msg'
      ? prepareOperation((msg as Record<string, unknown>).operation, 'msg.operation')
      : this.operation;
  }

  /**
   * The validated request for one message; throws a TbInputError (or the setting's problem) before anything is sent.
   */
  async request(operation: AlarmOperation, msg: NodeMessage): Promise<AlarmActionRequest> {
    for (const u of USES[operation]) if (this.problems[u]) throw this.problems[u];
    if (operation === 'raise') {
      const originator = await this.originator.resolve(msg);
      const details = await this.details.resolve(msg);
      return { operation, alarm: prepareRaise(await this.raiseSettings(msg), msg.payload, originator, details) };
    }
    const a = await this.alarm.resolve(msg);
    const alarmId = prepareAlarmId(a.value, a.field);
    if (operation === 'delete') return { operation, alarmId };
    const c = await this.comment.resolve(msg);
    const comment = prepareComment(c.value, c.field, operation === 'comment');
    if (operation === 'comment') return { operation, alarmId, comment: comment as string };
    if (operation === 'assign') {
      const a = await this.assignee.resolve(msg);
      return { operation, alarmId, assignee: prepareAssignee(a.value, a.field), comment };
    }
    return { operation, alarmId, comment };
  }

  /** The raise settings of this message: those checked at deploy, or with this message's placeholder values. */
  private async raiseSettings(msg: NodeMessage): Promise<RaiseSettings> {
    if (!this.raiseText.any) return this.raise as RaiseSettings;
    const resolved = await this.raiseText.resolve(this.settings as unknown as Settings, msg);
    try {
      return prepareRaiseSettings(resolved.query);
    } catch (err) {
      throw BoundSettings.explain(err, resolved);
    }
  }
}

/**
 * The output: the incoming message with the alarm, its id, the operation and what happened; and in msg.entity the
 * entity that raised the alarm, `{ entityType, id }`, for a next node that acts on entities (a wait, a telemetry
 * read, a command to the device). An alarm found gone by a delete has no originator to say: msg.entity is then left
 * as it came.
 */
export function writeResult(msg: NodeMessage, result: AlarmActionResult, format: ResultFormat): void {
  const m = msg as Record<string, unknown>;
  m.payload = result.alarm === null ? null : format === 'raw' ? result.alarm : flattenAlarm(result.alarm);
  m.topic = result.alarmId;
  const entity = rowEntity(result.alarm);
  if (entity) m.entity = entity;
  m.operation = result.operation;
  m.alreadyDone = result.alreadyDone;
  if (result.operation === 'raise') m.created = result.created === true;
  if (result.comment) m.alarmComment = result.comment;
}

const DONE_KEY: Record<AlarmOperation, StatusKey> = {
  acknowledge: 'acknowledged',
  clear: 'cleared',
  assign: 'assigned',
  unassign: 'unassigned',
  comment: 'commented',
  raise: 'alarmRaised',
  delete: 'deleted',
};

const ALREADY_KEY: Partial<Record<AlarmOperation, StatusKey>> = {
  acknowledge: 'alreadyAcknowledged',
  clear: 'alreadyCleared',
  assign: 'alreadyAssigned',
  unassign: 'alreadyUnassigned',
  delete: 'alreadyDeleted',
};

/** Green: what was done ("acknowledged", "alarm updated", "already cleared"…). */
export function resultStatus(RED: NodeAPI, result: AlarmActionResult): NodeStatus {
  if (result.alreadyDone)
    return status(RED, 'green', 'dot', ALREADY_KEY[result.operation] ?? DONE_KEY[result.operation]);
  if (result.operation === 'raise' && result.created === false) return status(RED, 'green', 'dot', 'alarmUpdated');
  return status(RED, 'green', 'dot', DONE_KEY[result.operation]);
}

/** Red with the reason: "already acknowledged" (strict), "not found", "not permitted", or the usual error texts. */
export function alarmFailureStatus(RED: NodeAPI, err: unknown, operation: AlarmOperation | undefined): NodeStatus {
  if (operation && isAlreadyDone(operation, err)) {
    const key = ALREADY_KEY[operation];
    if (key) return status(RED, 'red', 'ring', key);
  }
  return actionFailureStatus(RED, err);
}
