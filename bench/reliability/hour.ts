/**
 * Probe 6, an hour of faults: every node kind at work on one connection for M minutes (`--hour M`,
 * default 60; --quick: 8 faults 4 s apart) while the simulator meets a fault every minute, in rotation: the
 * WebSocket sessions dropped, 429, 502, 503 (with Retry-After), 504 on every /api and /apiTrendz request for a
 * window, every token expired, 2 s of latency, and answers too large for the connection's Largest answer.
 *
 * The load: queries (find, count, alarms), a live subscription to a counter the probe writes every second,
 * telemetry and attribute saves of a sequence number, acknowledging and commenting fresh alarms, one-way RPCs and
 * reports, each on its own period. Every message carries a tag; each must end in exactly one outcome (an output or
 * an error at the Catch node). An error is "inside" a fault when it comes between the fault's start and the end of
 * its window plus the retry budget and the timeout; every other error is "outside" and fails the probe. When a
 * window ends, one message goes into each node at once (again every second until it is answered): the time to
 * the first answer is the recovery time of that fault.
 *
 * On the server side, after the run: every saved sequence number that had an output is stored exactly once, no
 * RPC and no comment reached the device or the alarm twice, every acknowledged alarm is acknowledged; the live
 * counter arrived in order, without repeats, up to its last value. Heap (after GC) and active handles are read
 * with the load paused and nothing in flight, after the warm-up and at the end.
 */
import { table } from '../lib/markdown';
import {
  activeResources,
  check,
  clearFlows,
  connection,
  deploy,
  deviceId,
  errorText,
  FlowNode,
  heapUsed,
  int,
  mb,
  Msg,
  onSink,
  Probe,
  Rec,
  runtimeNode,
  secs,
  sinkNode,
  sleep,
  tabFlow,
  TENANT,
  waitFor,
} from './context';

const VIEW = '5b1f6c2e-0d3a-4f7e-9a21-7c4e8b2d9f10'; // the simulator's "energy per building per day" view

const THERMOSTATS = {
  entityFilter: { type: 'deviceType', deviceTypes: ['thermostat'] },
  entityFields: [{ type: 'ENTITY_FIELD', key: 'name' }],
  pageLink: { page: 0, pageSize: 5 },
};
const COUNT = { entityFilter: { type: 'deviceType', deviceTypes: ['thermostat'] } };
const ALARMS = {
  entityFilter: { type: 'entityType', entityType: 'DEVICE' },
  alarmFields: [{ type: 'ALARM_FIELD', key: 'type' }],
  pageLink: { page: 0, pageSize: 5 },
};

type FaultKind = 'ws-drop' | '429' | '502' | '503' | '504' | 'token-expired' | 'latency' | 'too-large';
const KINDS: FaultKind[] = ['ws-drop', '429', '502', '503', '504', 'token-expired', 'latency', 'too-large'];
const KIND_TEXT: Record<FaultKind, string> = {
  'ws-drop': 'WebSocket sessions dropped',
  '429': '429 on every request',
  '502': '502 on every request',
  '503': '503 with Retry-After: 1 on every request',
  '504': '504 on every request',
  'token-expired': 'every token expired',
  latency: '2 s of latency on every request',
  'too-large': 'answers too large (entity queries)',
};

/** A node at work: what it is sent, how often. */
interface Worker {
  node: string;
  label: string;
  everyMs: number;
  /** The message with sequence number n (may prepare server state first). */
  message(n: number): Promise<Rec>;
}

interface Outcome {
  worker: string;
  sentAt: number;
  n: number;
  out: number;
  err: number;
  doneAt?: number;
  errors: string[];
}

interface FaultRun {
  kind: FaultKind;
  start: number;
  end: number;
  /** errors attributed to it */
  errors: number;
  /** ms from the end of the window to the first answer of each node (undefined: none within the bound) */
  recovery: Map<string, number | undefined>;
  liveRecovery?: number;
}

export const hour: Probe = async (c) => {
  const quick = c.opts.quick;
  const minutes = c.opts.hourMinutes;
  const periodMs = quick ? 4000 : 60000;
  const faultCount = quick ? KINDS.length : Math.max(1, Math.floor(minutes));
  const windowMs = quick ? 1500 : 15000;
  const timeoutS = 10;
  // An error this long after a window's end still belongs to its fault: the retry budget, then a timeout.
  const graceMs = quick ? 2500 : 30000 + timeoutS * 1000;
  const largeBytes = quick ? 2 * 2 ** 20 : 40 * 2 ** 20;
  const scale = quick ? 0.1 : 1;

  const thermostat = await deviceId(c, 'Thermo A-101');
  const probeDevice = await deviceId(c, 'Thermo A-102');
  const rpcDevice = await deviceId(c, 'Thermo A-103');
  await c.sim.post('/__sim/rpc/device', { deviceId: rpcDevice, mode: 'answer', reply: { ok: true } });

  const newAlarm = async (n: number): Promise<string> => {
    const a = await c.sim.post<{ id: { id: string } }>('/__sim/alarms', {
      originator: { entityType: 'DEVICE', id: probeDevice },
      type: `Hour ${n}`,
      severity: 'MAJOR',
    });
    return a.id.id;
  };
  const ackAlarms = new Map<number, string>();
  const commentAlarms = new Map<number, string>();
  const workers: Worker[] = [
    { node: 'hour_query', label: 'tb-entity-query', everyMs: 2000, message: async () => ({ payload: THERMOSTATS }) },
    { node: 'hour_count', label: 'tb-entity-count', everyMs: 5000, message: async () => ({ payload: COUNT }) },
    { node: 'hour_alarms', label: 'tb-alarm-query', everyMs: 5000, message: async () => ({ payload: ALARMS }) },
    {
      node: 'hour_save',
      label: 'tb-telemetry save',
      everyMs: 2000,
      message: async (n) => ({ entity: probeDevice, payload: { seq: n } }),
    },
    {
      node: 'hour_attr',
      label: 'tb-attributes save',
      everyMs: 5000,
      message: async (n) => ({ entity: probeDevice, payload: { seq: n } }),
    },
    {
      node: 'hour_ack',
      label: 'tb-alarm-action acknowledge',
      everyMs: 10000,
      message: async (n) => {
        const id = await newAlarm(n);
        ackAlarms.set(n, id);
        return { payload: id };
      },
    },
    {
      node: 'hour_comment',
      label: 'tb-alarm-action comment',
      everyMs: 20000,
      message: async (n) => {
        const id = await newAlarm(n);
        commentAlarms.set(n, id);
        return { payload: id, comment: `comment ${n}` };
      },
    },
    {
      node: 'hour_rpc',
      label: 'tb-rpc one-way',
      everyMs: 10000,
      message: async (n) => ({ entity: rpcDevice, payload: { seq: n } }),
    },
    { node: 'hour_report', label: 'tb-build-report', everyMs: 30000, message: async () => ({}) },
  ];
  if (quick) for (const w of workers) w.everyMs = Math.max(500, Math.round(w.everyMs * scale * 2));

  const conn = connection(c, 'conn_hour', {
    timeout: timeoutS,
    analyticsUrl: `${c.sim.url}/apiTrendz/`,
    analyticsAuth: 'same',
    ...(quick ? { maxResponseMB: 1 } : {}),
  });
  const out = (id: string, type: string, props: Rec): FlowNode => ({
    id,
    type,
    name: id,
    connection: 'conn_hour',
    wires: [['sink_out']],
    ...props,
  });
  const liveQuery = {
    entityFilter: { type: 'singleEntity', singleEntity: { entityType: 'DEVICE', id: thermostat } },
    entityFields: [{ type: 'ENTITY_FIELD', key: 'name' }],
    latestValues: [{ type: 'TIME_SERIES', key: 'counter' }],
    pageLink: { page: 0, pageSize: 10 },
  };
  const nodes: FlowNode[] = [
    conn,
    out('hour_query', 'tb-entity-query', { queryType: 'msg', query: 'payload', format: 'flat' }),
    out('hour_count', 'tb-entity-count', { queryType: 'msg', query: 'payload' }),
    out('hour_alarms', 'tb-alarm-query', { queryType: 'msg', query: 'payload', format: 'flat' }),
    out('hour_save', 'tb-telemetry', { operation: 'save' }),
    out('hour_attr', 'tb-attributes', { operation: 'save', scope: 'SERVER_SCOPE' }),
    out('hour_ack', 'tb-alarm-action', { operation: 'acknowledge' }),
    out('hour_comment', 'tb-alarm-action', { operation: 'comment' }),
    out('hour_rpc', 'tb-rpc', { method: 'ping', methodType: 'str', mode: 'oneway' }),
    out('hour_report', 'tb-build-report', {
      viewConfigId: VIEW,
      viewConfigIdType: 'str',
      range: 'view',
      filters: '',
      filtersType: 'json',
      format: 'rows',
      split: false,
      parseNumbers: false,
      maxRetries: 3,
      maxWait: 60,
    }),
    {
      id: 'hour_live',
      type: 'tb-subscribe',
      name: 'hour_live',
      connection: 'conn_hour',
      kind: 'entityData',
      queryType: 'json',
      query: JSON.stringify(liveQuery),
      format: 'flat',
      wires: [['sink_live']],
    },
    sinkNode('sink_out'),
    sinkNode('sink_live'),
  ];

  const outcomes = new Map<string, Outcome>();
  const faultsRun: FaultRun[] = [];
  const outside: string[] = [];
  const liveSeen: number[] = [];
  const liveAt: number[] = [];
  let liveSnapshot = false;
  // (a fault still on has no end yet)
  const attribute = (t: number): FaultRun | undefined =>
    faultsRun.find((f) => t >= f.start && (f.end === 0 || t <= f.end + graceMs));
  const off = onSink((sink, msg: Msg) => {
    const now = Date.now();
    if (sink === 'sink_live') {
      if (msg.event === 'snapshot') liveSnapshot = true;
      const v = Number((msg.payload as Rec | undefined)?.counter);
      if (msg.event === 'update' && Number.isFinite(v)) {
        liveSeen.push(v);
        liveAt.push(now);
      }
      return;
    }
    const tag = typeof msg.probeTag === 'string' ? msg.probeTag : undefined;
    const o = tag ? outcomes.get(tag) : undefined;
    if (sink === 'sink_err') {
      const text = errorText(msg);
      const f = attribute(now);
      if (f) f.errors++;
      else outside.push(`${tag ?? 'untagged'}: ${text}`);
      if (o) {
        o.err++;
        o.errors.push(text);
        o.doneAt ??= now;
      }
    } else if (sink === 'sink_out' && o) {
      o.out++;
      o.doneAt ??= now;
    }
  });

  let seq = 0;
  const send = async (w: Worker, extra: Rec = {}): Promise<Outcome> => {
    const n = ++seq;
    const msg = await w.message(n);
    const tag = `${w.node}:${n}`;
    const o: Outcome = { worker: w.node, sentAt: Date.now(), n, out: 0, err: 0, errors: [] };
    outcomes.set(tag, o);
    runtimeNode(c, w.node).receive({ ...msg, ...extra, probeTag: tag });
    return o;
  };
  const pending = (): number => [...outcomes.values()].filter((o) => o.doneAt === undefined).length;

  // The load: each worker on its period, and the live counter every second (0.25 s in --quick).
  let running = false;
  let counter = 0;
  const timers: NodeJS.Timeout[] = [];
  const startLoad = (): void => {
    running = true;
    for (const w of workers) {
      timers.push(
        setInterval(() => {
          if (running)
            void send(w).catch((e: unknown) => outside.push(`${w.node}: the probe could not send: ${String(e)}`));
        }, w.everyMs),
      );
    }
    timers.push(
      setInterval(
        () => {
          if (!running) return;
          counter++;
          void c.sim
            .post('/__sim/telemetry', { entityId: thermostat, values: { counter: counter } })
            .catch(() => undefined);
        },
        quick ? 250 : 1000,
      ),
    );
  };
  const stopLoad = async (): Promise<void> => {
    running = false;
    for (const t of timers.splice(0)) clearInterval(t);
    // every message has its outcome (bounded: the retry budget, a timeout and a report)
    await waitFor(() => pending() === 0, 120000);
  };
  const quiet = async (): Promise<{ heap: number; handles: number }> => {
    await sleep(1000);
    return { heap: await heapUsed(), handles: activeResources().total };
  };

  /** One message into each node at once after a window, again every second until each node answered (bounded). */
  const recover = async (f: FaultRun): Promise<void> => {
    const end = Date.now();
    const first = new Map<string, Outcome>();
    for (const w of workers) first.set(w.node, await send(w));
    const bound = end + 90000;
    for (;;) {
      for (const w of workers) {
        if (f.recovery.has(w.node)) continue;
        const o = first.get(w.node)!;
        if (o.out > 0) f.recovery.set(w.node, (o.doneAt ?? Date.now()) - end);
        else if (o.err > 0) first.set(w.node, await send(w));
      }
      if (f.recovery.size === workers.length || Date.now() > bound) break;
      await sleep(quick ? 100 : 1000);
    }
    // the live node: the first counter written after the window
    const after = counter;
    await waitFor(() => liveSeen.length > 0 && liveSeen[liveSeen.length - 1] > after, quick ? 10000 : 90000);
    const i = liveSeen.findIndex((v) => v > after);
    if (i >= 0) f.liveRecovery = liveAt[i] - end;
  };

  // what the run measured (set inside the try below)
  const m = { start: { heap: 0, handles: 0 }, end: { heap: 0, handles: 0 }, requests: 0 };
  const t0 = Date.now();
  try {
    await deploy(c, tabFlow('hour', nodes, TENANT));
    if (!(await waitFor(() => liveSnapshot, 15000))) throw new Error('the live node did not subscribe');
    // Warm-up: every node answers once (logins, the analytics token), then the state at the start.
    const warm = await Promise.all(workers.map((w) => send(w)));
    await waitFor(() => warm.every((o) => o.doneAt !== undefined), 30000);
    const bad = warm.filter((o) => o.out !== 1);
    if (bad.length)
      throw new Error(`warm-up: ${bad.map((o) => `${o.worker}: ${o.errors[0] ?? 'no answer'}`).join('; ')}`);
    m.start = await quiet();
    const requests0 = (await c.sim.get<{ count: number }>('/__sim/requests/count?prefix=%2Fapi')).count;
    startLoad();

    for (let i = 0; i < faultCount; i++) {
      const kind = KINDS[i % KINDS.length];
      // The fault starts half-way through its minute, so that the load is steady before it.
      await sleep(periodMs / 2);
      const f: FaultRun = { kind, start: Date.now(), end: 0, errors: 0, recovery: new Map() };
      faultsRun.push(f);
      let faultId: number | undefined;
      const status = (s: number, extra: Rec = {}) =>
        c.sim.post<{ id: number }>('/__sim/faults', { pathRegex: '^/api', status: s, times: null, ...extra });
      switch (kind) {
        case 'ws-drop':
          await c.sim.post('/__sim/ws/drop', {});
          break;
        case 'token-expired':
          await c.sim.post('/__sim/tokens/expire');
          break;
        case 'latency':
          await c.sim.post('/__sim/latency', { ms: 2000 });
          break;
        case 'too-large':
          faultId = (
            await c.sim.post<{ id: number }>('/__sim/faults', {
              pathRegex: '^/api/entitiesQuery/find',
              bodyBytes: largeBytes,
              times: 3,
            })
          ).id;
          break;
        case '503':
          faultId = (await status(503, { retryAfter: 1 })).id;
          break;
        default:
          faultId = (await status(Number(kind))).id;
      }
      const instant = kind === 'ws-drop' || kind === 'token-expired';
      if (!instant) await sleep(windowMs);
      if (faultId !== undefined) await fetch(`${c.sim.url}/__sim/faults/${faultId}`, { method: 'DELETE' });
      if (kind === 'latency') await c.sim.post('/__sim/latency', { ms: 0 });
      f.end = Date.now();
      await recover(f);
      c.log(
        `  ${new Date().toISOString().slice(11, 19)} ${KIND_TEXT[kind]}: ${f.errors} error(s) inside, ` +
          `recovered in ${secs(Math.max(0, ...[...f.recovery.values()].map((x) => x ?? Infinity)))}` +
          `, live ${f.liveRecovery === undefined ? 'NOT' : secs(f.liveRecovery)}; outside so far ${outside.length}`,
      );
      const next = f.start + periodMs / 2 - Date.now();
      if (next > 0) await sleep(next);
    }
    await stopLoad();
    // the last counter written arrives (bounded)
    await waitFor(() => liveSeen[liveSeen.length - 1] === counter, 10000);
    m.end = await quiet();
    m.requests = (await c.sim.get<{ count: number }>('/__sim/requests/count?prefix=%2Fapi')).count - requests0;
  } finally {
    running = false;
    for (const t of timers.splice(0)) clearInterval(t);
    off();
    await fetch(`${c.sim.url}/__sim/faults`, { method: 'DELETE' }).catch(() => undefined);
    await c.sim.post('/__sim/latency', { ms: 0 }).catch(() => undefined);
    await clearFlows(c).catch(() => undefined);
  }

  // ---- the server's side -------------------------------------------------------------------------------------
  const all = [...outcomes.values()];
  const ofWorker = (node: string) => all.filter((o) => o.worker === node);
  const lost = all.filter((o) => o.out + o.err === 0);
  const repeated = all.filter((o) => o.out + o.err > 1);
  const history = await c.sim
    .get<Array<{ ts: number; value: unknown }>>(`/__sim/telemetry?entityId=${probeDevice}&key=seq`)
    .catch(() => undefined);
  const savedOk = ofWorker('hour_save').filter((o) => o.out === 1);
  let saveRepeats = 0;
  let saveMissing = 0;
  if (history) {
    const counts = new Map<number, number>();
    for (const p of history) counts.set(Number(p.value), (counts.get(Number(p.value)) ?? 0) + 1);
    for (const v of counts.values()) if (v > 1) saveRepeats++;
    for (const o of savedOk) if (!counts.has(o.n)) saveMissing++;
  }
  const rpcCalls = (await c.sim.get<{ calls: Array<{ params: unknown }> }>(`/__sim/rpc/calls?deviceId=${rpcDevice}`))
    .calls;
  const rpcCounts = new Map<number, number>();
  for (const call of rpcCalls) {
    const n = Number((call.params as Rec | undefined)?.seq);
    if (Number.isFinite(n)) rpcCounts.set(n, (rpcCounts.get(n) ?? 0) + 1);
  }
  const rpcRepeats = [...rpcCounts.values()].filter((v) => v > 1).length;
  const rpcMissing = ofWorker('hour_rpc').filter((o) => o.out === 1 && !rpcCounts.has(o.n)).length;
  const alarms = new Map(
    (await c.sim.get<Array<{ id: { id: string }; acknowledged: boolean }>>('/__sim/alarms')).map((a) => [a.id.id, a]),
  );
  const notAcked = ofWorker('hour_ack').filter(
    (o) => o.out === 1 && !alarms.get(ackAlarms.get(o.n) ?? '')?.acknowledged,
  ).length;
  let commentRepeats = 0;
  let commentMissing = 0;
  for (const o of ofWorker('hour_comment')) {
    const id = commentAlarms.get(o.n);
    if (!id) continue;
    const comments = (await c.sim.get<Array<{ type: string }>>(`/__sim/alarms/${id}/comments`)).filter(
      (x) => x.type === 'OTHER',
    );
    if (comments.length > 1) commentRepeats++;
    if (o.out === 1 && comments.length !== 1) commentMissing++;
  }
  let liveOutOfOrder = 0;
  let liveRepeats = 0;
  for (let i = 1; i < liveSeen.length; i++) {
    if (liveSeen[i] < liveSeen[i - 1]) liveOutOfOrder++;
    if (liveSeen[i] === liveSeen[i - 1]) liveRepeats++;
  }
  const liveLast = liveSeen[liveSeen.length - 1];

  // ---- the report --------------------------------------------------------------------------------------------
  const runMs = Date.now() - t0;
  const workerRows = workers.map((w) => {
    const list = ofWorker(w.node);
    const errs = list.filter((o) => o.err > 0).length;
    return [
      w.label,
      int(list.length),
      int(list.filter((o) => o.out > 0).length),
      int(errs),
      int(list.filter((o) => o.out + o.err === 0).length),
      int(list.filter((o) => o.out + o.err > 1).length),
    ];
  });
  const byKind = KINDS.map((k) => {
    const runs = faultsRun.filter((f) => f.kind === k);
    if (!runs.length) return undefined;
    const rec = runs.map((f) => Math.max(0, ...workers.map((w) => f.recovery.get(w.node) ?? Infinity)));
    const live = runs.map((f) => f.liveRecovery ?? Infinity);
    const fmt = (xs: number[]) =>
      xs.some((x) => !Number.isFinite(x)) ? '**not recovered**' : `${secs(Math.min(...xs))} – ${secs(Math.max(...xs))}`;
    return [KIND_TEXT[k], int(runs.length), int(runs.reduce((s, f) => s + f.errors, 0)), fmt(rec), fmt(live)];
  }).filter((r): r is string[] => !!r);
  const notRecovered = faultsRun.filter(
    (f) =>
      f.recovery.size < workers.length ||
      [...f.recovery.values()].some((x) => x === undefined) ||
      f.liveRecovery === undefined,
  ).length;
  const heapGrowth = m.end.heap - m.start.heap;
  const handleGrowth = m.end.handles - m.start.handles;
  const insideErrors = faultsRun.reduce((s, f) => s + f.errors, 0);

  const md = [
    `${quick ? `--quick: ${faultCount} faults ${periodMs / 1000} s apart, windows of ${windowMs / 1000} s` : `${minutes} minutes, a fault every minute (half-way through it), windows of ${windowMs / 1000} s`}, ` +
      `in rotation: ${KINDS.map((k) => KIND_TEXT[k]).join(', ')}. One connection (timeout ${timeoutS} s, the default ` +
      'retries: 3 within 30 ' +
      `s${
        quick
          ? ', Largest answer 1 MB; answers of 2 MB'
          : `; answers of ${largeBytes / 2 ** 20} MB against the default Largest answer of 32 MB`
      }). ` +
      `An error belongs to a fault when it comes from the fault's start to ${graceMs / 1000} s after its window. Run ` +
      `time ${secs(runMs)}.`,
    '',
    table(['node', 'messages', 'answered', 'errors', 'lost', 'two outcomes'], workerRows, [
      'l',
      'r',
      'r',
      'r',
      'r',
      'r',
    ]),
    '',
    table(
      [
        'fault',
        'times',
        'errors at Catch inside its windows',
        'recovery of every REST node (min – max)',
        'recovery of the live node',
      ],
      byKind,
      ['l', 'r', 'r', 'r', 'r'],
    ),
    '',
    `- Requests to the simulator's /api during the load: ${int(m.requests)}; errors at Catch outside fault ` +
      `windows: ${outside.length}${outside.length ? ` (first: ${outside.slice(0, 3).join(' | ')})` : ''}; ` +
      `inside: ${int(insideErrors)}.`,
    `- On the server: ${int(savedOk.length)} telemetry saves answered, ${saveMissing} of them ` +
      `missing, ${saveRepeats} value(s) stored twice; ${int(rpcCalls.length)} RPCs delivered, ${rpcRepeats} ` +
      `twice, ${rpcMissing} answered but not delivered; ${int(ofWorker('hour_comment').length)} comments ` +
      `asked, ${commentRepeats} alarm(s) with two, ${commentMissing} answered but not stored; ${notAcked} ` +
      'acknowledged alarm(s) not acknowledged.',
    `- Live counter: ${int(counter)} written, ${int(liveSeen.length)} updates received (changes while a session was ` +
      `down arrive as the latest value), last ${liveLast ?? '—'}, ${liveOutOfOrder} out of order, ${liveRepeats} ` +
      'repeated.',
    `- Heap after GC, load paused, nothing in flight: ${mb(m.start.heap)} after the warm-up, ${mb(m.end.heap)} at ` +
      `the end (${heapGrowth >= 0 ? '+' : ''}${mb(heapGrowth)}); active handles ${m.start.handles} ` +
      `and ${m.end.handles}.`,
  ].join('\n');

  const checks = [
    check('errors at Catch outside fault windows', '0', outside.length, outside.length === 0),
    check('messages without an outcome (lost)', '0', lost.length, lost.length === 0),
    check('messages with two outcomes', '0', repeated.length, repeated.length === 0),
    check('faults after which a node did not recover (90 s)', '0', notRecovered, notRecovered === 0),
    check(
      'telemetry values stored twice, or answered and missing',
      '0',
      saveRepeats + saveMissing + (history ? 0 : 1),
      history !== undefined && saveRepeats + saveMissing === 0,
    ),
    check(
      'RPCs delivered twice, or answered and not delivered',
      '0',
      rpcRepeats + rpcMissing,
      rpcRepeats + rpcMissing === 0,
    ),
    check(
      'comments stored twice, or answered and missing',
      '0',
      commentRepeats + commentMissing,
      commentRepeats + commentMissing === 0,
    ),
    check('acknowledged (answered) but not acknowledged on the server', '0', notAcked, notAcked === 0),
    check(
      'live counter: out of order or repeated',
      '0',
      liveOutOfOrder + liveRepeats,
      liveOutOfOrder + liveRepeats === 0,
    ),
    check('live counter: the last value written arrived', String(counter), String(liveLast), liveLast === counter),
    check('heap growth over the run (after GC)', '< 20 MB', mb(heapGrowth), heapGrowth < 20 * 2 ** 20),
    check('active handles: end − start', '≤ 5', handleGrowth, handleGrowth <= 5),
  ];
  return { key: 'hour', title: 'An hour of faults', markdown: md, checks };
};
