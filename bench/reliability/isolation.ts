/**
 * Probe 5, isolation and soak: one tb-subscribe whose command is too large for one
 * WebSocket message (an entity list of 1,000 device ids, ~39 KB; the simulator, like ThingsBoard, closes a session
 * with 1009 on a message over 32 KiB) next to a healthy subscription on the same connection, for S seconds, while
 * the simulator changes a watched thermostat's temperature twice a second. Twice:
 *  1. the connection's "Live message limit" at its default (32 KB): the command is refused before sending;
 *  2. the limit set to 64 KB (as for a server configured with a larger buffer, which this one is not): the command
 *     is sent, the server closes the session with 1009, the hub finds and blocks it (the close-and-block path).
 * Reported: WebSocket sessions opened, the healthy node's statuses (red or reconnecting ones, and any change once
 * it was live), errors at the Catch node, updates the healthy node received of those written.
 */
import { table } from '../lib/markdown';
import {
  check,
  clearFlows,
  connection,
  deploy,
  deviceId,
  FlowNode,
  getNode,
  int,
  onSink,
  Probe,
  Rec,
  RunContext,
  sinkNode,
  sleep,
  StatusLog,
  tabFlow,
  TENANT,
  waitFor,
  wsConnections,
} from './context';

/** An entity list of `n` device ids (none exists): 1,000 make a ~39 KB command. */
function listQuery(n: number): Rec {
  const ids = Array.from({ length: n }, (_, i) => `00000000-0000-4000-8000-${i.toString(16).padStart(12, '0')}`);
  return {
    entityFilter: { type: 'entityList', entityType: 'DEVICE', entityList: ids },
    entityFields: [{ type: 'ENTITY_FIELD', key: 'name' }],
    pageLink: { page: 0, pageSize: 10 },
  };
}

const HEALTHY = {
  entityFilter: { type: 'deviceType', deviceTypes: ['thermostat'] },
  entityFields: [{ type: 'ENTITY_FIELD', key: 'name' }],
  latestValues: [{ type: 'TIME_SERIES', key: 'temperature' }],
  pageLink: { page: 0, pageSize: 100, sortOrder: { key: { type: 'ENTITY_FIELD', key: 'name' }, direction: 'ASC' } },
};

interface Run {
  limitKb: number;
  sessions: number;
  openAtEnd: number;
  healthyRed: number;
  healthyReconnecting: number;
  healthyChangesAfterLive: number;
  healthyEverLive: boolean;
  errors: number;
  firstError: string;
  written: number;
  received: number;
  /** the healthy node's last update carries the last temperature written */
  lastValueOk: boolean;
  badStatus: string;
  blocked: number;
}

async function soak(c: RunContext, limitKb: number | undefined, seconds: number, thermostat: string): Promise<Run> {
  const conn = limitKb === undefined ? 'conn_iso' : `conn_iso_${limitKb}`;
  const bigQuery = listQuery(1000);
  const nodes: FlowNode[] = [
    connection(c, conn, limitKb === undefined ? {} : { wsMessageLimit: limitKb }),
    {
      id: 'iso_healthy',
      type: 'tb-subscribe',
      name: 'iso_healthy',
      connection: conn,
      kind: 'entityData',
      queryType: 'json',
      query: JSON.stringify(HEALTHY),
      format: 'flat',
      wires: [['sink_healthy']],
    },
    {
      id: 'iso_big',
      type: 'tb-subscribe',
      name: 'iso_big',
      connection: conn,
      kind: 'entityData',
      queryType: 'json',
      query: JSON.stringify(bigQuery),
      format: 'flat',
      wires: [['sink_big']],
    },
    sinkNode('sink_healthy'),
    sinkNode('sink_big'),
  ];
  const errors: string[] = [];
  let received = 0;
  let lastTemp: number | undefined;
  let snapshots = 0;
  const off = onSink((sink, msg) => {
    if (sink === 'sink_err') errors.push(String((msg.error as Rec | undefined)?.message ?? ''));
    if (sink === 'sink_healthy' && msg.event === 'snapshot') snapshots++;
    if (sink === 'sink_healthy' && msg.event === 'update' && msg.topic === thermostat) {
      received++;
      lastTemp = Number((msg.payload as Rec | undefined)?.temperature);
    }
  });
  const statuses = new StatusLog(['iso_healthy', 'iso_big']);
  try {
    const before = (await wsConnections(c)).total;
    await deploy(c, tabFlow('isolation', nodes, TENANT));
    const t0 = Date.now();
    await waitFor(() => snapshots > 0, 15000);
    // A temperature change twice a second on a thermostat the healthy node watches, until the end of the soak.
    let written = 0;
    let temp = 20;
    while (Date.now() - t0 < seconds * 1000) {
      temp = temp >= 30 ? 20 : temp + 0.5;
      await c.sim.post('/__sim/telemetry', { entityId: thermostat, values: { temperature: { $double: temp } } });
      written++;
      await sleep(500);
    }
    // The last update is on its way (bounded).
    await waitFor(() => lastTemp === temp, 3000);
    const conns = await wsConnections(c);
    const hub = (getNode(c, conn) as { live(): { stats: { blocked: number } } } | null)?.live();
    const healthy = statuses.of('iso_healthy');
    const live = healthy.findIndex((s) => s.fill === 'green');
    const afterLive = live < 0 ? [] : healthy.slice(live).filter((s) => s.fill !== 'green');
    const big = statuses.of('iso_big');
    const last = big[big.length - 1];
    return {
      limitKb: limitKb ?? 32,
      sessions: conns.total - before,
      openAtEnd: conns.open,
      healthyRed: healthy.filter((s) => s.fill === 'red').length,
      healthyReconnecting: healthy.filter((s) => /reconnect/i.test(String(s.text))).length,
      healthyChangesAfterLive: afterLive.length,
      healthyEverLive: live >= 0,
      errors: errors.length,
      firstError: errors[0] ?? '',
      written,
      received,
      lastValueOk: lastTemp === temp,
      badStatus: last ? `${last.fill} ${last.shape} "${last.text}"` : '(none)',
      blocked: hub?.stats.blocked ?? -1,
    };
  } finally {
    off();
    statuses.stop();
    await clearFlows(c).catch(() => undefined);
  }
}

export const isolation: Probe = async (c) => {
  const s = c.opts.soakSeconds;
  const thermostat = await deviceId(c, 'Thermo A-101');
  const runs: Run[] = [];
  runs.push(await soak(c, undefined, s, thermostat));
  c.log(`  limit 32 KB: ${runs[0].sessions} session(s), ${runs[0].errors} error(s), healthy red ${runs[0].healthyRed}`);
  runs.push(await soak(c, 64, s, thermostat));
  c.log(`  limit 64 KB: ${runs[1].sessions} session(s), ${runs[1].errors} error(s), healthy red ${runs[1].healthyRed}`);

  const rows = runs.map((r) => [
    `${r.limitKb} KB${r.limitKb === 32 ? ' (default)' : ''}`,
    int(r.sessions),
    int(r.openAtEnd),
    int(r.healthyRed),
    int(r.healthyReconnecting),
    int(r.healthyChangesAfterLive),
    `${int(r.received)} of ${int(r.written)}${r.lastValueOk ? ', last one' : ', **not the last one**'}`,
    int(r.errors),
    int(r.blocked),
    r.badStatus,
  ]);
  const md = [
    `One connection, two tb-subscribe nodes for ${s} s each run: "healthy" (the 20 thermostats, latest temperature) ` +
      'and "big" (an entity list of 1,000 device ids: a 39 KB command; the simulator, like ThingsBoard, closes the ' +
      "session with 1009 on an incoming message over 32 KiB). A thermostat's temperature changes twice a second. Run " +
      '1 keeps the connection\'s "Live message limit" at its default, 32 KB; run 2 sets it to 64 KB (as for a server ' +
      'configured with a larger buffer, which this one is not), so that the command is sent and the close-and-block ' +
      'path runs. "Updates received" counts the thermostat\'s updates at the healthy node; while a session is closed ' +
      'and opened again, changes of one key reach the node as the latest value after the resubscribe. Issue 11 ' +
      'measured, before the fix: 62 sessions in 60 s, 188 red "reconnect in 1s" statuses on the healthy node, no ' +
      'error at any Catch node.',
    '',
    table(
      [
        'Live message limit',
        'sessions opened',
        'open at the end',
        'healthy: red statuses',
        'healthy: "reconnect" statuses',
        'healthy: changes once live',
        'healthy: updates received',
        'errors at Catch',
        'blocked commands',
        "big node's last status",
      ],
      rows,
      ['l', 'r', 'r', 'r', 'r', 'r', 'r', 'r', 'r', 'l'],
    ),
    '',
    ...runs.map(
      (r) =>
        `- Error at the Catch node, ${r.limitKb} KB: ${r.firstError ? `"${r.firstError.replace(/\s+/g, ' ').slice(0, 1000)}"` : '(none)'}`,
    ),
  ].join('\n');

  const [a, b] = runs;
  const checks = [
    check('32 KB: WebSocket sessions opened', '1', a.sessions, a.sessions === 1),
    check('32 KB: errors at the Catch node', '1', a.errors, a.errors === 1),
    check(
      '32 KB: healthy node red or reconnecting',
      '0',
      a.healthyRed + a.healthyReconnecting,
      a.healthyRed + a.healthyReconnecting === 0 && a.healthyEverLive,
    ),
    check(
      '32 KB: healthy node received every update',
      `${a.written}`,
      a.received,
      a.received >= a.written && a.written > 0,
    ),
    check(
      '32 KB: healthy node: no status change once live',
      '0',
      a.healthyChangesAfterLive,
      a.healthyChangesAfterLive === 0,
    ),
    check('64 KB: WebSocket sessions opened', '3', b.sessions, b.sessions === 3),
    check('64 KB: errors at the Catch node', '1', b.errors, b.errors === 1),
    check(
      '64 KB: healthy node red or reconnecting',
      '0',
      b.healthyRed + b.healthyReconnecting,
      b.healthyRed + b.healthyReconnecting === 0 && b.healthyEverLive,
    ),
    check(
      '64 KB: healthy node: no status change once live',
      '0',
      b.healthyChangesAfterLive,
      b.healthyChangesAfterLive === 0,
    ),
    // While the session is closed and opened again (the first seconds), changes of one key are collapsed into the
    // latest value sent after the resubscribe: the healthy node must end with the value written last.
    check(
      '64 KB: healthy node ends with the last value written',
      'yes',
      b.lastValueOk ? 'yes' : 'no',
      b.lastValueOk && b.written > 0,
    ),
    check('64 KB: the command was blocked', '1', b.blocked, b.blocked === 1),
  ];
  return { key: 'isolation', title: 'Isolation and soak', markdown: md, checks };
};
