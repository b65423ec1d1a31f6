/**
 * The common life of the three REST query nodes (tb-entity-query, tb-entity-count, tb-alarm-query):
 * resolve and validate the query, call the platform client, format the answer into the message(s), keep
 * the status, and honour the input contract. Each node's index only says which operation it runs, with the settings
 * it read by its declaration.
 */
import type { Node, NodeAPI, NodeMessage, NodeMessageInFlow, NodeStatus } from 'node-red';
import { TbConfigError, TbError, TbInputError } from '../errors';
import { lookupConnection, usableClient } from '../node-red/connection';
import { Activity, onClose, onInput, SendFn, tracked } from '../node-red/input';
import { errorStatus, setupProblem, status } from '../node-red/status';
import type { PlatformClient } from '../platform/client';
import type { CallOptions } from '../platform/requester';
import { alarmRows } from '../protocol/dashboard';
import { formatAlarms, formatEntities, pageInfo, type ResultFormat } from '../protocol/format';
import type { AlarmData, AlarmDataQuery, EntityData, EntityDataQuery, PageData } from '../protocol/types';
import type { PrepareOptions } from '../protocol/validate';
import type { QueryType } from '../settings/query';
import { Prepare, QuerySource } from './query-source';

/** The settings every REST query node reads (its declaration's query, queryType and output, read at deploy). */
export interface RestSettings {
  connection: string;
  query: string | number;
  queryType: QueryType;
  /** *Output to*: the message property the result goes to. */
  output: string;
}

/** The settings of a find (its declaration's pagedResultSettings). */
export interface FindSettings {
  /** `table` (alarms only): one row per alarm for a table, the whole list sent with `action: "replace"`. */
  format: ResultFormat | 'table';
  allPages: boolean;
  maxItems: number | undefined;
  split: boolean;
}

/** What a node read from its settings: the values, and what is wrong with them (a problem at deploy). */
export interface ReadRestSettings {
  values: RestSettings;
  problems: readonly TbError[];
}

/** What a node does with its validated query. `ctx` carries the per-message helpers. */
export type Operation<Q> = (q: Q, msg: NodeMessageInFlow, ctx: OperationContext) => Promise<void>;

export interface OperationContext {
  client: PlatformClient;
  send: SendFn;
  activity: Activity;
  call: CallOptions;
  /** Puts the result where the node's *Output to* says. */
  output: Output;
}

/** Puts a node's result on the message (msg.payload, or the property of the node's *Output to*). */
export type Output = (msg: NodeMessage, value: unknown) => void;

const payloadOutput: Output = (msg, value) => {
  msg.payload = value;
};

/**
 * The *Output to* setting (`output`: a message property as Node-RED's TypedInput of type msg writes it, with or
 * without `msg.`) as a setter, parsed once at deploy so that a message costs one assignment
 * (or a short walk). Throws a TbConfigError naming the setting for a path Node-RED cannot write.
 */
export function outputTo(RED: NodeAPI, output: string | undefined): Output {
  if (output === undefined || output === null || output === 'payload') return payloadOutput;
  const path = String(output).replace(/^msg\./, '');
  let parts: Array<string | number>;
  try {
    parts = RED.util.normalisePropertyExpression(path);
  } catch (err) {
    throw notAProperty(output, `is not (${(err as Error).message})`);
  }
  // Writing __proto__ would change what the message inherits, not one of its properties.
  if (parts.includes('__proto__')) throw notAProperty(output, 'names __proto__, which is not one');
  const where = `msg.${path}`;
  const last = parts[parts.length - 1];
  if (parts.length === 1) {
    return (msg, value) => {
      (msg as Record<string | number, unknown>)[last] = value;
    };
  }
  if (parts.some((p) => typeof p !== 'string' && typeof p !== 'number')) {
    // A part named by the message itself (msg.a[msg.b]) is known only per message: Node-RED resolves it.
    return (msg, value) => {
      if (!RED.util.setMessageProperty(msg, path, value, true)) throw cannotOutput(where);
    };
  }
  return (msg, value) => {
    // As RED.util.setMessageProperty with createMissing: missing parents become objects (arrays before an index).
    let obj = msg as Record<string | number, unknown>;
    for (let i = 0; i < parts.length - 1; i++) {
      const key = parts[i];
      let next = Object.prototype.hasOwnProperty.call(obj, key) ? obj[key] : undefined;
      if (next === undefined) {
        next = typeof parts[i + 1] === 'string' ? {} : [];
        obj[key] = next;
      } else if (next === null || (typeof next !== 'object' && typeof next !== 'function')) {
        throw cannotOutput(where);
      }
      obj = next as Record<string | number, unknown>;
    }
    obj[last] = value;
  };
}

function notAProperty(output: string, why: string): TbConfigError {
  return new TbConfigError(
    `Output to (output) must be a message property such as payload or entity: "${output}" ${why}`,
  );
}

function cannotOutput(where: string): TbInputError {
  return new TbInputError(
    'output',
    `Output to ${where}: the result cannot go there, because a part of that path holds a value that is not an object`,
  );
}

/** How the REST nodes validate their queries: for a REST endpoint (`prepare*` options). */
const REST: PrepareOptions = { live: false };

/**
 * Sets up a REST node: connection lookup, query source, the input handler and close handling; `operation`
 * runs for each message with its validated query (validated for REST: e.g. a CURRENT_DEVICE dynamic value is
 * refused before anything is sent, where the server would fail on it or ignore it).
 */
export function restNode<Q>(
  RED: NodeAPI,
  node: Node,
  settings: ReadRestSettings,
  prepare: Prepare<Q>,
  operation: Operation<Q>,
): void {
  const { values } = settings;
  const conn = lookupConnection(RED, node, values.connection);
  const source = new QuerySource<Q>(RED, node, String(values.query), values.queryType, prepare, REST);
  const activity = new Activity(RED, node);
  const call: CallOptions = { onRetry: (n) => activity.show(status(RED, 'yellow', 'ring', 'retrying', { n })) };
  let output: Output = payloadOutput;
  let outputProblem: TbConfigError | undefined;
  try {
    output = outputTo(RED, values.output);
  } catch (err) {
    outputProblem = err as TbConfigError;
  }
  // A setting its declaration does not allow (an operation, a format, a check box, a count) comes first.
  const settingsProblem = settings.problems[0] ?? outputProblem;
  const problem = settingsProblem ?? source.problem;
  if (problem) setupProblem(RED, node, problem);
  if (conn) conn.register(node);

  onInput(node, async (msg, send) => {
    let query: Q;
    let client: PlatformClient;
    try {
      if (settingsProblem) throw settingsProblem;
      const q = source.resolve(msg);
      query = q instanceof Promise ? await q : q;
      client = usableClient(conn);
    } catch (err) {
      // Nothing was sent: show it at once (bad query, no connection, bad setting).
      activity.immediate(errorStatus(RED, err));
      throw err;
    }
    await tracked(RED, activity, () => operation(query, msg, { client, send, activity, call, output }));
  });

  onClose(node, conn);
}

/** Find: one page (or every page with allPages), as one message or one message per item (split). */
export function findOperation<Q extends EntityDataQuery | AlarmDataQuery>(
  RED: NodeAPI,
  settings: FindSettings,
  kind: 'entity' | 'alarm',
): Operation<Q> {
  const { format, allPages, split } = settings;
  // A whole number the declaration requires (never missing once read: its default stands in).
  const maxItems = settings.maxItems as number;
  const table = format === 'table';
  const fmt = (items: Array<EntityData | AlarmData>): unknown[] =>
    format === 'table'
      ? alarmRows(items as AlarmData[])
      : kind === 'entity'
        ? formatEntities(items as EntityData[], format)
        : formatAlarms(items as AlarmData[], format);
  /** The whole list in one message: a table shows it instead of the last one (not so for one message per item). */
  const whole = (msg: NodeMessage): void => {
    if (table) msg.action = 'replace';
  };
  const fetchOne = (client: PlatformClient, q: Q, call: CallOptions): Promise<PageData<EntityData | AlarmData>> =>
    kind === 'entity'
      ? client.findEntityData(q as EntityDataQuery, call)
      : client.findAlarmData(q as AlarmDataQuery, call);

  return async (q, msg, { client, send, activity, call, output }) => {
    if (!allPages) {
      const page = await fetchOne(client, q, call);
      const items = fmt(page.data);
      const info = pageInfo(page, q.pageLink as { page: number; pageSize: number });
      if (split) sendSplit(RED, msg, send, items, info, output);
      else {
        msg.page = info;
        output(msg, items);
        whole(msg);
        send(msg);
      }
      activity.end(foundStatus(RED, items.length, page.totalElements));
      return;
    }

    // Every page: only one page is held at a time; with split the items go out as the pages arrive.
    const startPage = q.pageLink.page ?? 0;
    const pageSize = q.pageLink.pageSize;
    const all: unknown[] = [];
    const seq = split ? new SplitSequence(RED, msg, send, output) : undefined;
    let last: PageData<unknown> | undefined;
    let truncated = false;
    let pages = 0;
    for await (const chunk of client.pages<EntityData | AlarmData>(kind, q, maxItems, call)) {
      pages++;
      last = chunk.page;
      truncated = chunk.truncated;
      const items = fmt(chunk.items);
      if (seq) {
        if (pages === 1) seq.expect(Math.min(maxItems, Math.max(0, chunk.page.totalElements - startPage * pageSize)));
        for (const item of items)
          seq.push(item, {
            page: startPage,
            pageSize,
            totalPages: chunk.page.totalPages,
            totalElements: chunk.page.totalElements,
            hasNext: false,
          });
        // The next page is asked for once the flow has taken this one: Node-RED hands each sent message to the next
        // node in a setImmediate of its own, queued before this one, so only one page of messages is held at a time.
        await nextTurn();
      } else {
        for (const item of items) all.push(item);
      }
    }
    const totalElements = last ? last.totalElements : 0;
    const info: Record<string, unknown> = {
      page: startPage,
      pageSize,
      totalPages: last ? last.totalPages : 0,
      totalElements,
      hasNext: truncated,
      pages,
    };
    if (truncated) info.truncated = true;
    let count: number;
    if (seq) {
      count = seq.finish(truncated);
    } else {
      msg.page = info;
      output(msg, all);
      whole(msg);
      send(msg);
      count = all.length;
    }
    activity.end(
      truncated
        ? status(RED, 'yellow', 'dot', 'truncated', { count, total: totalElements })
        : foundStatus(RED, count, totalElements),
    );
  };
}

const nextTurn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/** "12 of 340", or "no match" when nothing matched (a page past the end still says "0 of 340"). */
function foundStatus(RED: NodeAPI, count: number, total: number): NodeStatus {
  return count === 0 && total === 0
    ? status(RED, 'green', 'dot', 'noMatch')
    : status(RED, 'green', 'dot', 'found', { count, total });
}

/**
 * One message per item with msg.parts, so that a Join node in automatic mode rebuilds the array.
 * `info` (optional) goes to `msg.page` of each message; each item to msg.payload, or where `output` puts it.
 */
export function sendSplit(
  RED: NodeAPI,
  msg: NodeMessageInFlow,
  send: SendFn,
  items: unknown[],
  info?: object,
  output: Output = payloadOutput,
): void {
  const seq = new SplitSequence(RED, msg, send, output);
  seq.expect(items.length);
  for (const item of items) seq.push(item, info);
  seq.finish(false);
}

/**
 * Emits a message sequence whose length may only be known at the end: each item is held back until the
 * next one arrives, so the last message always carries the exact `parts.count`.
 */
class SplitSequence {
  private readonly id: string;
  private index = 0;
  private expected = 0;
  private pending: { item: unknown; info: object | undefined } | undefined;

  constructor(
    private readonly RED: NodeAPI,
    private readonly msg: NodeMessageInFlow,
    private readonly send: SendFn,
    private readonly output: Output,
  ) {
    this.id = RED.util.generateId();
  }

  expect(n: number): void {
    this.expected = n;
  }

  push(item: unknown, info: object | undefined): void {
    if (this.pending) this.emit(this.pending, this.expected);
    this.pending = { item, info };
  }

  /** Sends the held item with the final count; returns how many messages were sent. */
  finish(truncated: boolean): number {
    if (this.pending) {
      const count = this.index + 1;
      const info =
        truncated && this.pending.info ? { ...this.pending.info, truncated: true, hasNext: true } : this.pending.info;
      this.emit({ item: this.pending.item, info }, count);
      this.pending = undefined;
    }
    return this.index;
  }

  private emit(pending: { item: unknown; info: object | undefined }, count: number): void {
    const m = this.RED.util.cloneMessage(this.msg) as NodeMessage;
    if (pending.info) m.page = { ...pending.info };
    this.output(m, pending.item);
    const parts: Record<string, unknown> = {
      id: this.id,
      index: this.index,
      count: Math.max(count, this.index + 1),
      type: 'array',
      len: 1,
    };
    if (this.msg.parts) parts.parts = this.msg.parts;
    m.parts = parts;
    this.index++;
    this.send(m);
  }
}
