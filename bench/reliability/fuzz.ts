/**
 * Probe 4, fuzz: N random or malformed messages into each node type that takes input (tb-entity-query,
 * tb-entity-count, tb-alarm-query, tb-subscribe, tb-alarm-status, tb-alarm-action, tb-build-report), each taking
 * its query or request from the message. A message is a valid template mutated 1-3 times (a value replaced by a
 * random one of any type, a key deleted or added, a level wrapped in an array or turned into a JSON string), a
 * random value altogether, or now and then the valid template itself; extra message properties (action,
 * operation, topic, comment, ...) are random too. Values include NaN, ±Infinity, -0, huge numbers, empty and
 * 100 KB strings, control characters, `__proto__` keys, Buffers, Dates, deep nesting and cyclic objects.
 *
 * Every message is tagged; the flow's Complete node (scope: the fuzzed nodes) and Catch node report each done()
 * and done(err): each message must end in exactly one of them. Then one valid message per node must still be
 * answered. The generator is seeded (--seed): a run can be repeated exactly.
 */
import { VIEW_ENERGY_PER_BUILDING_PER_DAY } from '../../sim/analytics/views';
import { table } from '../lib/markdown';
import {
  check,
  clearFlows,
  connection,
  deploy,
  deviceId,
  FlowNode,
  int,
  Msg,
  onSink,
  Probe,
  Rec,
  runtimeNode,
  RunContext,
  sinkNode,
  tabFlow,
  TENANT,
  waitFor,
} from './context';

/** mulberry32: a small seeded PRNG (the same seed gives the same messages). */
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const WORDS = [
  'DEVICE',
  'ASSET',
  'deviceType',
  'entityName',
  'ENTITY_FIELD',
  'TIME_SERIES',
  'ATTRIBUTE',
  'ALARM_FIELD',
  'ASC',
  'DESC',
  'ACTIVE',
  'CLEARED',
  'CRITICAL',
  'thermostat',
  'name',
  'temperature',
  'subscribe',
  'unsubscribe',
  'acknowledge',
  'raise',
  'delete',
  'msg',
  'null',
  'true',
  'NaN',
  '{}',
  '[]',
  '{"a":1}',
  '__proto__',
  'constructor',
  'prototype',
  'toString',
  '../../etc/passwd',
  "'; DROP TABLE device; --",
  '<script>alert(1)</script>',
  '{{7*7}}',
  '${x}',
  '%s%s%n',
];

class Gen {
  private readonly r: () => number;
  constructor(seed: number) {
    this.r = prng(seed);
  }
  float(): number {
    return this.r();
  }
  int(n: number): number {
    return Math.floor(this.r() * n);
  }
  chance(p: number): boolean {
    return this.r() < p;
  }
  pick<T>(a: readonly T[]): T {
    return a[this.int(a.length)];
  }
  uuid(): string {
    const h = (n: number): string => Array.from({ length: n }, () => '0123456789abcdef'[this.int(16)]).join('');
    return `${h(8)}-${h(4)}-4${h(3)}-8${h(3)}-${h(12)}`;
  }
  string(): string {
    switch (this.int(9)) {
      case 0:
        return '';
      case 1:
        return ' ';
      case 2:
        return this.pick(WORDS);
      case 3:
        return this.uuid();
      case 4:
        return this.uuid().slice(0, 20 + this.int(15));
      case 5:
        return 'x'.repeat(this.chance(0.2) ? 100000 : 1 + this.int(3000));
      case 6:
        return Array.from({ length: 1 + this.int(20) }, () => String.fromCharCode(this.int(0x3000))).join('');
      case 7:
        return `\u0000\u0007\n\t\r\u2028\ud83d\ude00\ud800${this.pick(WORDS)}`;
      default:
        return new Date(this.int(2 ** 42)).toISOString();
    }
  }
  number(): number {
    return this.pick([
      0,
      -0,
      1,
      -1,
      0.5,
      10,
      100,
      1000,
      2 ** 31,
      -(2 ** 31),
      2 ** 53 + 1,
      Number.MAX_VALUE,
      Number.MIN_VALUE,
      NaN,
      Infinity,
      -Infinity,
      1e21,
      this.float() * 1e6 - 5e5,
    ]);
  }
  /** Any value a flow could put in a message. */
  value(depth = 0): unknown {
    const k = this.int(depth > 3 ? 7 : 11);
    switch (k) {
      case 0:
        return undefined;
      case 1:
        return null;
      case 2:
        return this.chance(0.5);
      case 3:
      case 4:
        return this.number();
      case 5:
      case 6:
        return this.string();
      case 7: {
        const n = this.int(6);
        return Array.from({ length: n }, () => this.value(depth + 1));
      }
      case 8: {
        const o: Rec = {};
        const n = this.int(6);
        for (let i = 0; i < n; i++)
          o[this.chance(0.6) ? this.pick(WORDS) : this.string().slice(0, 30)] = this.value(depth + 1);
        if (this.chance(0.1))
          Object.defineProperty(o, '__proto__', {
            value: { polluted: true },
            enumerable: true,
            configurable: true,
            writable: true,
          });
        return o;
      }
      case 9:
        return this.pick([
          Buffer.from('\u00ff\u0000binary'),
          new Date(NaN),
          new Date(0),
          () => 1,
          Symbol('s'),
          BigInt(7),
          new Map([[1, 2]]),
          /re/g,
        ]);
      default: {
        if (this.chance(0.5)) {
          const cyclic: Rec = { a: 1 };
          cyclic.self = cyclic;
          return cyclic;
        }
        let deep: unknown = 1;
        for (let i = 0; i < 200; i++) deep = { d: deep };
        return deep;
      }
    }
  }
  /** A copy of `template` changed 1-3 times at random places. */
  mutate(template: unknown): unknown {
    let v: unknown = clone(template);
    const times = 1 + this.int(3);
    for (let t = 0; t < times; t++) {
      const paths = allPaths(v);
      const p = this.pick(paths);
      const op = this.int(6);
      if (p.length === 0) {
        v = op < 3 ? this.value() : op === 3 ? [v] : op === 4 ? safeStringify(v) : v;
        continue;
      }
      const parent = getAt(v, p.slice(0, -1)) as Rec | unknown[];
      const key = p[p.length - 1];
      if (op <= 2) (parent as Rec)[key] = this.value();
      else if (op === 3) {
        if (Array.isArray(parent)) parent.splice(Number(key), 1);
        else delete (parent as Rec)[key];
      } else if (op === 4) (parent as Rec)[this.chance(0.5) ? this.pick(WORDS) : key + 'x'] = this.value();
      else (parent as Rec)[key] = this.chance(0.5) ? [(parent as Rec)[key]] : safeStringify((parent as Rec)[key]);
    }
    return v;
  }
}

function clone(v: unknown): unknown {
  return v === undefined ? undefined : JSON.parse(JSON.stringify(v));
}

function safeStringify(v: unknown): string {
  try {
    return JSON.stringify(v) ?? 'undefined';
  } catch {
    return '[unserialisable]';
  }
}

/** Every path (list of keys) inside a JSON-like value, the root included. */
function allPaths(v: unknown, prefix: string[] = [], out: string[][] = [], depth = 0): string[][] {
  out.push(prefix);
  // Only into JSON-like containers (not into a Buffer, Date, Map… a mutation put there).
  const plain =
    Array.isArray(v) ||
    (v !== null && typeof v === 'object' && [Object.prototype, null].includes(Object.getPrototypeOf(v)));
  if (depth > 6 || !plain) return out;
  for (const k of Object.keys(v as Rec)) allPaths((v as Rec)[k], [...prefix, k], out, depth + 1);
  return out;
}

function getAt(v: unknown, p: string[]): unknown {
  let x = v;
  for (const k of p) x = (x as Rec)[k];
  return x;
}

interface Target {
  id: string;
  node: FlowNode;
  /** valid messages (the fuzzer mutates them; the first is sent after the fuzz and must be answered) */
  valid: Rec[];
  /** message properties the node reads besides payload (filled at random) */
  props: string[];
  /** sent before the valid message after the fuzz, to start from a clean state */
  reset?: Rec;
  /** the kind of output that proves the node still works */
  answered: (m: Msg) => boolean;
}

const ENTITY_QUERY = {
  entityFilter: { type: 'deviceType', deviceTypes: ['thermostat'] },
  entityFields: [{ type: 'ENTITY_FIELD', key: 'name' }],
  latestValues: [{ type: 'TIME_SERIES', key: 'temperature' }],
  keyFilters: [
    {
      key: { type: 'TIME_SERIES', key: 'temperature' },
      valueType: 'NUMERIC',
      predicate: { type: 'NUMERIC', operation: 'GREATER', value: { defaultValue: 0 } },
    },
  ],
  pageLink: { page: 0, pageSize: 10, sortOrder: { key: { type: 'ENTITY_FIELD', key: 'name' }, direction: 'ASC' } },
};
const ALARM_QUERY = {
  entityFilter: { type: 'entityType', entityType: 'DEVICE' },
  alarmFields: [
    { type: 'ALARM_FIELD', key: 'type' },
    { type: 'ALARM_FIELD', key: 'severity' },
  ],
  pageLink: {
    page: 0,
    pageSize: 10,
    statusList: ['ACTIVE'],
    severityList: ['CRITICAL', 'MAJOR'],
    sortOrder: { key: { type: 'ALARM_FIELD', key: 'createdTime' }, direction: 'DESC' },
  },
};

function targets(conn: string, device: string, alarmIds: string[]): Target[] {
  const base = (id: string, type: string, extra: Rec = {}): FlowNode => ({
    id,
    type,
    name: id,
    connection: conn,
    wires: [[`sink_${id}`]],
    ...extra,
  });
  const restCfg = { queryType: 'msg', query: 'payload', format: 'flat' };
  const alarm = alarmIds[0] ?? '00000000-0000-4000-8000-000000000000';
  return [
    {
      id: 'fz_entity_query',
      node: base('fz_entity_query', 'tb-entity-query', restCfg),
      valid: [
        { payload: ENTITY_QUERY },
        {
          payload: {
            ...ENTITY_QUERY,
            entityFilter: { type: 'entityName', entityType: 'DEVICE', entityNameFilter: 'Thermo' },
          },
        },
      ],
      props: ['topic'],
      answered: (m) => Array.isArray(m.payload),
    },
    {
      id: 'fz_entity_count',
      node: base('fz_entity_count', 'tb-entity-count', restCfg),
      valid: [{ payload: { entityFilter: ENTITY_QUERY.entityFilter, keyFilters: ENTITY_QUERY.keyFilters } }],
      props: ['topic'],
      answered: (m) => typeof m.payload === 'number',
    },
    {
      id: 'fz_alarm_query',
      node: base('fz_alarm_query', 'tb-alarm-query', restCfg),
      valid: [{ payload: ALARM_QUERY }],
      props: ['topic'],
      answered: (m) => Array.isArray(m.payload),
    },
    {
      id: 'fz_subscribe',
      node: base('fz_subscribe', 'tb-subscribe', {
        kind: 'entityData',
        queryType: 'msg',
        query: 'payload',
        format: 'flat',
      }),
      valid: [{ payload: ENTITY_QUERY }, { payload: ENTITY_QUERY, action: 'subscribe' }, { action: 'unsubscribe' }],
      props: ['action', 'topic'],
      answered: (m) => m.event === 'snapshot',
    },
    {
      id: 'fz_alarm_status',
      node: base('fz_alarm_status', 'tb-alarm-status', {
        originatorType: 'DEVICE',
        originatorId: '',
        typeList: '',
        severityList: '',
      }),
      valid: [
        { payload: { entityType: 'DEVICE', id: device } },
        { payload: device },
        { action: 'unsubscribe', payload: device },
      ],
      props: ['action'],
      // an entity already watched sends nothing new: unwatch everything first
      reset: { action: 'unsubscribe' },
      answered: (m) => typeof m.payload === 'boolean',
    },
    {
      id: 'fz_alarm_action',
      node: base('fz_alarm_action', 'tb-alarm-action', {
        operation: 'msg',
        alarm: '',
        alarmType: 'auto',
        assignee: '',
        assigneeType: 'auto',
        comment: '',
        commentType: 'auto',
        originator: '',
        originatorType: 'auto',
        details: '',
        detailsType: 'auto',
        format: 'flat',
      }),
      valid: [
        { operation: 'comment', payload: { id: alarm }, comment: 'fuzz' },
        { operation: 'acknowledge', payload: alarm },
        {
          operation: 'raise',
          payload: {
            type: 'Fuzz alarm',
            severity: 'MINOR',
            originator: { entityType: 'DEVICE', id: device },
            details: { n: 1 },
          },
        },
        { operation: 'assign', payload: { id: alarm }, assignee: 'tech@thingsboard.org' },
      ],
      props: ['operation', 'comment', 'assignee', 'topic'],
      answered: (m) => typeof m.operation === 'string',
    },
    {
      id: 'fz_report',
      node: base('fz_report', 'tb-build-report', {
        viewConfigId: 'payload.view',
        viewConfigIdType: 'msg',
        range: 'msg',
        filters: 'payload.filters',
        filtersType: 'msg',
        format: 'rows',
        split: false,
        parseNumbers: false,
        maxRetries: 5,
        maxWait: 60,
      }),
      valid: [
        {
          payload: {
            view: VIEW_ENERGY_PER_BUILDING_PER_DAY,
            rangeStartTs: Date.UTC(2025, 11, 29),
            rangeEndTs: Date.UTC(2026, 0, 1),
            filters: {},
          },
        },
      ],
      props: ['topic'],
      answered: (m) => Array.isArray(m.payload),
    },
  ];
}

/** One fuzzed message for a target (`fuzzTag` is added by the caller). */
function fuzzMessage(g: Gen, t: Target): Rec {
  const template = g.pick(t.valid);
  const r = g.float();
  let msg: Rec;
  if (r < 0.05) msg = clone(template) as Rec;
  else if (r < 0.75) msg = { ...(clone(template) as Rec), payload: g.mutate(template.payload) };
  else msg = { payload: g.value() };
  for (const p of t.props) {
    if (g.chance(0.25)) msg[p] = g.chance(0.5) && p in template ? g.mutate(template[p]) : g.value();
  }
  if (g.chance(0.05)) msg.parts = g.value();
  return msg;
}

/** A bounded, cycle-safe description of a message (RELIABILITY_DEBUG=1 prints the inputs behind foreign errors). */
function describeInput(v: unknown): string {
  const seen = new WeakSet<object>();
  const text = JSON.stringify(v, (_k, x: unknown) => {
    if (typeof x === 'bigint') return `${x}n`;
    if (typeof x === 'function' || typeof x === 'symbol') return String(x);
    if (x && typeof x === 'object') {
      if (seen.has(x)) return '[cycle]';
      seen.add(x);
    }
    return x;
  });
  return text === undefined ? 'undefined' : text.length > 600 ? `${text.slice(0, 600)}…` : text;
}

function cloneable(c: RunContext, msg: Rec): boolean {
  try {
    (c.nr.RED.util as unknown as { cloneMessage(m: unknown): unknown }).cloneMessage(msg);
    return true;
  } catch {
    return false;
  }
}

interface Tally {
  sent: number;
  ok: number;
  errors: number;
  missing: number;
  doubled: number;
  foreign: number;
  codes: Map<string, number>;
  foreignSamples: string[];
  answered: boolean;
}

export const fuzz: Probe = async (c) => {
  const n = c.opts.fuzz;
  const device = await deviceId(c, 'Thermo A-101');
  const alarms = await c.sim.get<Array<{ id: { id: string }; status: string }>>('/__sim/alarms');
  const list = targets(
    'conn_fuzz',
    device,
    alarms.map((a) => a.id.id),
  );
  const ids = list.map((t) => t.id);
  const nodes: FlowNode[] = [
    connection(c, 'conn_fuzz', { analyticsUrl: `${c.sim.url}/apiTrendz/`, analyticsAuth: 'same' }),
    ...list.map((t) => t.node),
    ...ids.map((id) => sinkNode(`sink_${id}`)),
    { id: 'fz_complete', type: 'complete', name: 'fz_complete', scope: ids, uncaught: false, wires: [['sink_done']] },
    sinkNode('sink_done'),
  ];

  // Outcomes per tag: done() (Complete node) and done(err) (Catch node).
  const done = new Map<string, number>();
  const failed = new Map<string, Msg>();
  const failedTwice = new Set<string>();
  let untaggedErrors = 0;
  const outputs = new Map<string, Msg[]>();
  // Woken on every outcome: the window below waits on outcomes, not on a polling interval.
  let wake: (() => void) | undefined;
  const until = (cond: () => boolean, ms: number): Promise<boolean> =>
    new Promise((resolve) => {
      if (cond()) return resolve(true);
      const t = setTimeout(() => {
        wake = undefined;
        resolve(cond());
      }, ms);
      wake = () => {
        if (!cond()) return;
        clearTimeout(t);
        wake = undefined;
        resolve(true);
      };
    });
  const off = onSink((sink, msg) => {
    const tag = typeof msg.fuzzTag === 'string' ? msg.fuzzTag : undefined;
    if (sink === 'sink_done' && tag) {
      done.set(tag, (done.get(tag) ?? 0) + 1);
      wake?.();
    } else if (sink === 'sink_err') {
      if (!tag) untaggedErrors++;
      else if (failed.has(tag)) failedTwice.add(tag);
      else failed.set(tag, msg);
      wake?.();
    } else if (sink.startsWith('sink_fz_')) {
      const id = sink.slice('sink_'.length);
      let l = outputs.get(id);
      if (!l) outputs.set(id, (l = []));
      if (l.length < 1000) l.push(msg);
    }
  });

  let replaced = 0;
  const tallies = new Map<string, Tally>();
  const inputs = new Map<string, Rec>();
  try {
    await deploy(c, tabFlow('fuzz', nodes, TENANT));
    const g = new Gen(c.opts.seed);
    const inFlight = 16;
    for (const t of list) {
      const tally: Tally = {
        sent: 0,
        ok: 0,
        errors: 0,
        missing: 0,
        doubled: 0,
        foreign: 0,
        codes: new Map(),
        foreignSamples: [],
        answered: false,
      };
      tallies.set(t.id, tally);
      const node = runtimeNode(c, t.id);
      const tags: string[] = [];
      const finished = (tag: string): boolean => (done.get(tag) ?? 0) + (failed.has(tag) ? 1 : 0) > 0;
      for (let i = 0; i < n; i++) {
        const tag = `${t.id}#${i}`;
        tags.push(tag);
        // Only messages Node-RED itself can copy: its cloneMessage (lodash cloneDeep), used to hand a message to a
        // Complete or Catch node or to a second wire, throws on some (an array with a `constructor` key, an object
        // whose own `__proto__` is a Buffer-like); such a message cannot travel through any flow.
        let msg = fuzzMessage(g, t);
        for (let tries = 0; !cloneable(c, msg) && tries < 20; tries++) {
          replaced++;
          msg = fuzzMessage(g, t);
        }
        msg.fuzzTag = tag;
        if (process.env.RELIABILITY_DEBUG) inputs.set(tag, msg);
        node.receive(msg);
        tally.sent++;
        // At most `inFlight` unfinished messages (bounded: a message that never ends is counted as missing).
        if (i >= inFlight) await until(() => finished(tags[i - inFlight]), 30000);
      }
      await until(() => tags.every(finished), 30000);
      await new Promise((r) => setTimeout(r, 300));
      for (const tag of tags) {
        const d = done.get(tag) ?? 0;
        const e = failed.has(tag) ? 1 : 0;
        if (d + e === 0) tally.missing++;
        if (d + e > 1 || failedTwice.has(tag)) tally.doubled++;
        if (d) tally.ok++;
        const em = failed.get(tag);
        if (em) {
          tally.errors++;
          const err = em.error as { code?: string; message?: string };
          const code = err.code ?? '(no code)';
          tally.codes.set(code, (tally.codes.get(code) ?? 0) + 1);
          if (!err.code || !/^Tb[A-Za-z]*Error: /.test(String(err.message))) {
            tally.foreign++;
            if (process.env.RELIABILITY_DEBUG)
              c.log(
                `    foreign error: ${String((err as { stack?: string }).stack ?? err.message)}\n    ` +
                  `input: ${describeInput(inputs.get(tag))}`,
              );
            if (tally.foreignSamples.length < 3) tally.foreignSamples.push(String(err.message).slice(0, 200));
          }
        }
      }
      // Still working: a valid message is answered.
      if (t.reset) node.receive({ ...t.reset, fuzzTag: `${t.id}#reset` });
      const before = outputs.get(t.id)?.length ?? 0;
      node.receive({ ...(clone(t.valid[0]) as Rec), fuzzTag: `${t.id}#valid` });
      tally.answered = await waitFor(() => (outputs.get(t.id) ?? []).slice(before).some(t.answered), 15000);
      c.log(
        `  ${t.node.type}: ${tally.sent} sent, ${tally.ok} done, ${tally.errors} done(err), ${tally.missing} without ` +
          `an end, ${tally.doubled} ended twice, ${tally.foreign} foreign errors; valid message ` +
          `after: ${tally.answered ? 'answered' : 'NOT answered'}`,
      );
    }
  } finally {
    off();
    await clearFlows(c).catch(() => undefined);
  }

  const rows: string[][] = [];
  const checks = [];
  for (const t of list) {
    const y = tallies.get(t.id);
    if (!y) continue;
    const codes = [...y.codes.entries()]
      .sort((a, b) => b[1] - a[1])
      .slice(0, 4)
      .map(([k, v]) => `${k} ${v}`)
      .join(', ');
    rows.push([
      t.node.type,
      int(y.sent),
      int(y.ok),
      int(y.errors),
      int(y.missing),
      int(y.doubled),
      int(y.foreign),
      y.answered ? 'answered' : '**not answered**',
      codes,
    ]);
    checks.push(
      check(
        `${t.node.type}: every message ends in exactly one done`,
        `${int(y.sent)} of ${int(y.sent)}`,
        `${int(y.sent - y.missing - y.doubled)} of ${int(y.sent)}`,
        y.missing === 0 && y.doubled === 0,
      ),
      check(
        `${t.node.type}: errors are the package's own (a Tb…Error with a code)`,
        '0 others',
        `${y.foreign} others${y.foreignSamples.length ? ` (${y.foreignSamples[0]})` : ''}`,
        y.foreign === 0,
      ),
      check(
        `${t.node.type}: a valid message after the fuzz is answered`,
        'answered',
        y.answered ? 'answered' : 'not answered',
        y.answered,
      ),
    );
  }
  const md = [
    `${int(n)} messages per node type (seed ${c.opts.seed}), at most 16 unfinished at a time per node, sent into the ` +
      'node with `receive()`; each node takes its query or request from the message. About 5 % are valid templates, ' +
      '70 % mutated templates, 25 % random payloads; message properties the node reads (action, operation, comment, ' +
      'assignee, topic) are random in a quarter of the messages. A Complete node (scope: the fuzzed nodes) and the ' +
      'Catch node report each `done()` and `done(err)`; "foreign" errors are those that are not one of the ' +
      "package's own (a TypeError escaping, for example). Untagged errors at the Catch node (from live " +
      `subscriptions, not from a message): ${untaggedErrors}. Generated messages that Node-RED's own ` +
      '`RED.util.cloneMessage` cannot copy (it throws, so they cannot reach a Complete or Catch node, nor travel ' +
      `through any flow) were replaced by new ones: ${int(replaced)}.`,
    '',
    table(
      [
        'node',
        'messages',
        'done()',
        'done(err)',
        'no end',
        'ended twice',
        'foreign errors',
        'valid message after',
        'error codes (most frequent)',
      ],
      rows,
      ['l', 'r', 'r', 'r', 'r', 'r', 'r', 'l', 'l'],
    ),
  ].join('\n');
  return { key: 'fuzz', title: 'Fuzzed messages', markdown: md, checks };
};
