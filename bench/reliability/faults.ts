/**
 * Probe 2, REST faults: the three REST query nodes (tb-entity-query, tb-entity-count, tb-alarm-query) on one
 * connection (timeout 3 s) meet each fault the simulator's hooks can inject (a FaultSpec, applied
 * to every query request until removed): no answer within the timeout, an HTML 502 page, malformed JSON, a 50 MB
 * body, a dropped connection, 429 with and without Retry-After; and a connection whose host name does not resolve.
 * Each message must end in exactly one outcome, an error at the Catch node, and once the fault is gone the same
 * node must answer the next message.
 *
 * DNS: the names under `.invalid` (RFC 2606: never resolvable) are answered by a hook on `dns.lookup` in this
 * process, ENOTFOUND while the fault is on and 127.0.0.1 after, so that no query leaves the machine and the
 * recovery can be shown. Node's http client looks names up through `dns.lookup` at connect time (axios passes
 * no lookup of its own), so the nodes meet exactly the error a failed getaddrinfo gives.
 */
import dns from 'node:dns';
import { table } from '../lib/markdown';
import {
  check,
  clearFlows,
  connection,
  deploy,
  deviceId,
  errorText,
  FlowNode,
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

export const DNS_HOST = 'tb-sim.invalid';
let dnsFailing = true;

type LookupCallback = (
  err: NodeJS.ErrnoException | null,
  address?: string | dns.LookupAddress[],
  family?: number,
) => void;

/** Makes `*.invalid` resolve to 127.0.0.1, or fail with ENOTFOUND while `dnsFailing` (see the file comment). */
export function installDnsHook(): void {
  const original = dns.lookup;
  const hooked = function (hostname: string, options: unknown, callback?: unknown): void {
    const cb = (typeof options === 'function' ? options : callback) as LookupCallback;
    if (typeof hostname !== 'string' || !hostname.endsWith('.invalid')) {
      // Not ours: the real lookup, with the caller's own arguments.
      (original as (...a: unknown[]) => void)(hostname, options, callback);
      return;
    }
    const all = typeof options === 'object' && options !== null && (options as { all?: boolean }).all === true;
    process.nextTick(() => {
      if (dnsFailing) {
        const err: NodeJS.ErrnoException = new Error(`getaddrinfo ENOTFOUND ${hostname}`);
        err.code = 'ENOTFOUND';
        err.errno = -3008;
        err.syscall = 'getaddrinfo';
        (err as { hostname?: string }).hostname = hostname;
        cb(err);
      } else if (all) cb(null, [{ address: '127.0.0.1', family: 4 }]);
      else cb(null, '127.0.0.1', 4);
    });
  };
  // dns.lookup has overloads; the replacement takes the same arguments.
  (dns as unknown as { lookup: unknown }).lookup = hooked;
}

const QUERY_PATHS = '^/api/(entitiesQuery|alarmsQuery)/';
const ENTITY_QUERY = {
  entityFilter: { type: 'deviceType', deviceTypes: ['thermostat'] },
  entityFields: [{ type: 'ENTITY_FIELD', key: 'name' }],
  pageLink: { page: 0, pageSize: 5 },
};
const COUNT_QUERY = { entityFilter: { type: 'deviceType', deviceTypes: ['thermostat'] } };
const ALARM_QUERY = {
  entityFilter: { type: 'entityType', entityType: 'DEVICE' },
  alarmFields: [{ type: 'ALARM_FIELD', key: 'type' }],
  pageLink: { page: 0, pageSize: 5 },
};
const NODES: Array<{ id: string; type: string; payload: unknown }> = [
  { id: 'rest_query', type: 'tb-entity-query', payload: ENTITY_QUERY },
  { id: 'rest_count', type: 'tb-entity-count', payload: COUNT_QUERY },
  { id: 'rest_alarms', type: 'tb-alarm-query', payload: ALARM_QUERY },
];

interface FaultCase {
  name: string;
  /** POST /__sim/faults body (times: null = until removed) */
  spec?: Rec;
  dns?: boolean;
}

function restNode(id: string, type: string, conn: string): FlowNode {
  return {
    id,
    type,
    name: id,
    connection: conn,
    queryType: 'msg',
    query: 'payload',
    format: 'flat',
    wires: [['sink_rest']],
  };
}

/** What happened to one message: the messages at the output and at the Catch node that carry its tag. */
interface Outcome {
  out: Msg[];
  err: Msg[];
  firstMs?: number;
}

export const faults: Probe = async (c) => {
  const huge = c.opts.quick ? 5 * 2 ** 20 : 50 * 2 ** 20;
  // --quick: a 1.5 s timeout (the no-answer case waits for it); 3 s otherwise
  const timeoutS = c.opts.quick ? 1.5 : 3;
  const grace = c.opts.quick ? 150 : 300;
  const cases: FaultCase[] = [
    {
      name: `no answer within the timeout (${timeoutS} s)`,
      spec: { pathRegex: QUERY_PATHS, delayMs: (timeoutS + 2) * 1000, times: null },
    },
    {
      name: 'HTML 502 page',
      spec: {
        pathRegex: QUERY_PATHS,
        status: 502,
        body: '<html><body><h1>502 Bad Gateway</h1>nginx</body></html>',
        headers: { 'Content-Type': 'text/html' },
        times: null,
      },
    },
    { name: 'malformed JSON (200)', spec: { pathRegex: QUERY_PATHS, malformed: true, times: null } },
    {
      name: `huge body (${huge / 2 ** 20} MB of JSON, 200, length declared)`,
      spec: { pathRegex: QUERY_PATHS, bodyBytes: huge, times: null },
    },
    // as ThingsBoard sends a large answer: chunked, the size known only by reading
    {
      name: `huge body (${huge / 2 ** 20} MB of JSON, 200, chunked)`,
      spec: { pathRegex: QUERY_PATHS, bodyBytes: huge, chunked: true, times: null },
    },
    { name: 'connection dropped, no answer', spec: { pathRegex: QUERY_PATHS, dropConnection: true, times: null } },
    { name: '429 without Retry-After', spec: { pathRegex: QUERY_PATHS, status: 429, times: null } },
    { name: '429 with Retry-After: 1', spec: { pathRegex: QUERY_PATHS, status: 429, retryAfter: 1, times: null } },
    { name: `DNS failure (${DNS_HOST} does not resolve)`, dns: true },
  ];

  const outcomes = new Map<string, Outcome>();
  let sentAt = 0;
  const seen = (msg: Msg): Outcome | undefined =>
    typeof msg.probeTag === 'string' ? outcomes.get(msg.probeTag) : undefined;
  const off = onSink((sink, msg) => {
    const o = seen(msg);
    if (!o) return;
    if (o.firstMs === undefined) o.firstMs = Date.now() - sentAt;
    if (sink === 'sink_rest') o.out.push(msg);
    else if (sink === 'sink_err') o.err.push(msg);
  });

  const flows = (withCredentials: boolean): FlowNode[] =>
    tabFlow(
      'faults',
      [
        connection(c, 'conn_faults', { timeout: timeoutS }),
        connection(c, 'conn_dns', { timeout: timeoutS, url: `http://${DNS_HOST}:${new URL(c.sim.url).port}` }),
        ...NODES.map((n) => restNode(n.id, n.type, 'conn_faults')),
        ...NODES.map((n) => restNode(`dns_${n.id}`, n.type, 'conn_dns')),
        // the Largest answer raised above the huge answer: it is read and delivered
        connection(c, 'conn_big', { timeout: 60, maxResponseMB: Math.ceil((huge * 1.3) / 2 ** 20) }),
        {
          id: 'big_read',
          type: 'tb-attributes',
          name: 'big_read',
          connection: 'conn_big',
          operation: 'read',
          scope: 'SERVER_SCOPE',
          keys: 'blob',
          wires: [['sink_rest']],
        },
        sinkNode('sink_rest'),
      ],
      withCredentials ? TENANT : undefined,
    );

  /** Sends one tagged message into each node and waits (bounded) until each has an outcome, then a grace period. */
  const round = async (tag: string, prefix: string, waitMs: number): Promise<Map<string, Outcome>> => {
    const mine = new Map<string, Outcome>();
    sentAt = Date.now();
    for (const n of NODES) {
      const o: Outcome = { out: [], err: [] };
      const t = `${tag}:${n.id}`;
      outcomes.set(t, o);
      mine.set(n.id, o);
      runtimeNode(c, prefix + n.id).receive({ payload: structuredClone(n.payload), probeTag: t });
    }
    await waitFor(() => [...mine.values()].every((o) => o.out.length + o.err.length > 0), waitMs);
    await sleep(grace); // a second outcome would come now
    return mine;
  };

  const rows: string[][] = [];
  const checks = [];
  const memoryNotes: string[] = [];
  const big = { note: '' };
  try {
    dnsFailing = true;
    await deploy(c, flows(true));
    // Warm up: a login and one answer per node (the faults then hit the queries, not the login).
    const warm = await round('warm', '', 10000);
    if (![...warm.values()].every((o) => o.out.length === 1))
      throw new Error('the REST nodes did not answer before the faults');

    let i = 0;
    for (const fc of cases) {
      i++;
      let faultId: number | undefined;
      if (fc.spec) faultId = (await c.sim.post<{ id: number }>('/__sim/faults', fc.spec)).id;
      dnsFailing = !!fc.dns;
      const prefix = fc.dns ? 'dns_' : '';
      // Bounded: the timeout, or 3 retries of a 429 (at most 1 + 2 + 4 s with ±20 % jitter, or 3 × Retry-After).
      const rss0 = process.memoryUsage().rss;
      let peak = rss0;
      const sampler = setInterval(() => {
        peak = Math.max(peak, process.memoryUsage().rss);
      }, 20);
      const during = await round(`f${i}`, prefix, 30000).finally(() => clearInterval(sampler));
      if (fc.spec?.bodyBytes) {
        memoryNotes.push(
          `- ${fc.name}, three answers at once: RSS of the Node-RED process ${mb(rss0)} before, ${mb(peak)} at the ` +
            "peak (an answer over the connection's Largest answer, 32 MB by default, is dropped before it is read " +
            'when it declares its length, else while it is read, the answers read at once sharing the limit; a ' +
            'smaller one is read whole, then parsed).',
        );
        checks.push(
          check(
            `${fc.name}, three at once: RSS above the baseline`,
            '< 100 MB',
            mb(peak - rss0),
            peak - rss0 < 100 * 2 ** 20,
          ),
        );
      }
      if (faultId !== undefined) await fetch(`${c.sim.url}/__sim/faults/${faultId}`, { method: 'DELETE' });
      dnsFailing = false;
      const after = await round(`a${i}`, prefix, 15000);
      for (const n of NODES) {
        const d = during.get(n.id) as Outcome;
        const a = after.get(n.id) as Outcome;
        const outcomesN = d.out.length + d.err.length;
        const oneError = d.err.length === 1 && d.out.length === 0;
        const answered = a.out.length === 1 && a.err.length === 0;
        rows.push([
          fc.name,
          n.type,
          `${d.err.length} error${d.err.length === 1 ? '' : 's'}, ${d.out.length} ` +
            `output${d.out.length === 1 ? '' : 's'}`,
          d.firstMs === undefined ? '—' : secs(d.firstMs),
          answered ? 'answered' : `**${a.out.length} output(s), ${a.err.length} error(s)**`,
          errorText(d.err[0]) || '—',
        ]);
        checks.push(
          check(
            `${fc.name}, ${n.type}: one error at Catch, nothing sent`,
            '1 error, 0 outputs',
            `${d.err.length} error(s), ${d.out.length} output(s)`,
            oneError && outcomesN === 1,
          ),
          check(
            `${fc.name}, ${n.type}: the next message is answered`,
            'answered',
            answered ? 'answered' : `${a.out.length} output(s), ${a.err.length} error(s)`,
            answered,
          ),
        );
      }
      c.log(
        `  ${fc.name}: ${[...during.values()].map((o) => `${o.err.length}e/${o.out.length}o`).join(' ')}; ` +
          `after: ${[...after.values()].map((o) => (o.out.length === 1 ? 'answered' : 'NOT answered')).join(' ')}`,
      );
    }
    // The same size read and delivered once the connection's limit is above it.
    const device = await deviceId(c, 'Thermo A-101');
    await c.sim.post('/__sim/attributes', {
      entityId: device,
      scope: 'SERVER_SCOPE',
      filler: { key: 'blob', bytes: huge },
    });
    const bigTag = 'big';
    const bigOut: Outcome = { out: [], err: [] };
    outcomes.set(bigTag, bigOut);
    sentAt = Date.now();
    runtimeNode(c, 'big_read').receive({ entity: device, probeTag: bigTag });
    await waitFor(() => bigOut.out.length + bigOut.err.length > 0, 60000);
    const got = bigOut.out[0]
      ? (((bigOut.out[0].payload as Rec | undefined)?.blob as string | undefined)?.length ?? 0)
      : 0;
    big.note =
      `- ${huge / 2 ** 20} MB in one attribute, read by tb-attributes on a connection whose Largest answer ` +
      `is raised above it: ${
        got === huge
          ? `delivered whole in ${secs(bigOut.firstMs ?? 0)}`
          : `**not delivered** (${errorText(bigOut.err[0]) || 'no outcome'})`
      }.`;
    checks.push(
      check(
        `${huge / 2 ** 20} MB answer with the Largest answer raised: delivered`,
        'delivered',
        got === huge ? 'delivered' : 'not delivered',
        got === huge,
      ),
    );
    await c.sim.post('/__sim/keys/delete', { entityId: device, scope: 'SERVER_SCOPE', keys: ['blob'] });
  } finally {
    dnsFailing = true;
    off();
    await fetch(`${c.sim.url}/__sim/faults`, { method: 'DELETE' }).catch(() => undefined);
    await clearFlows(c).catch(() => undefined);
  }

  const md = [
    `Three REST nodes on one connection (timeout ${timeoutS} s, default retry ` +
      `policy${
        c.opts.quick
          ? ' with --quick waits'
          : ': 3 retries of a 429, 1 s initial, 30 s cap, ±20 % jitter, Retry-After honoured'
      }). ` +
      'For each fault: the fault is put on every query request (`POST /__sim/faults`, `times: null`), one message ' +
      `goes into each node, the probe waits for its outcome (at most 30 s) and ${grace / 1000} s more for a second ` +
      'one; then the fault is removed and one more message goes into each node. The DNS case uses a second ' +
      `connection to \`http://${DNS_HOST}:<port>\`: \`*.invalid\` fails with ENOTFOUND in this process's ` +
      '`dns.lookup` while the fault is on, and resolves to 127.0.0.1 after (nothing leaves the machine). "time" is ' +
      'from sending the message to its outcome.',
    '',
    table(['fault', 'node', 'outcomes of the message', 'time', 'next message', 'error at the Catch node'], rows, [
      'l',
      'l',
      'l',
      'r',
      'l',
      'l',
    ]),
    '',
    ...memoryNotes,
    big.note,
  ].join('\n');
  return { key: 'faults', title: 'REST faults', markdown: md, checks };
};
