/**
 * Probe 1, redeploys: a flow with 7 live nodes (tb-subscribe of each kind, with time series and history, and a
 * tb-alarm-status) on one connection, deployed N times "full" (every node restarts) and N times "modified nodes"
 * (alternately the connection, which restarts it and its 7 users, and one tb-subscribe alone). After each deploy,
 * every restarted node must subscribe again (its first message reaches its sink). Then: logins, sessions, active
 * handles and heap against the first deploy.
 */
import { table } from '../lib/markdown';
import {
  activeResources,
  check,
  clearFlows,
  connection,
  deploy,
  deviceId,
  FlowNode,
  gcAvailable,
  heapUsed,
  int,
  mb,
  onSink,
  Probe,
  resourcesText,
  Rec,
  RunContext,
  simCount,
  sinkNode,
  sleep,
  tabFlow,
  TENANT,
  waitFor,
  wsConnections,
} from './context';

const THERMOSTATS = { type: 'deviceType', deviceTypes: ['thermostat'] };
const SORT_NAME = { key: { type: 'ENTITY_FIELD', key: 'name' }, direction: 'ASC' };
const ENTITY_QUERY = {
  entityFilter: THERMOSTATS,
  entityFields: [{ type: 'ENTITY_FIELD', key: 'name' }],
  latestValues: [{ type: 'TIME_SERIES', key: 'temperature' }],
  pageLink: { page: 0, pageSize: 100, sortOrder: SORT_NAME },
};
const ALARM_QUERY = {
  entityFilter: { type: 'entityType', entityType: 'DEVICE' },
  entityFields: [{ type: 'ENTITY_FIELD', key: 'name' }],
  alarmFields: ['createdTime', 'type', 'severity', 'status'].map((key) => ({ type: 'ALARM_FIELD', key })),
  pageLink: {
    page: 0,
    pageSize: 100,
    statusList: ['ACTIVE'],
    sortOrder: { key: { type: 'ALARM_FIELD', key: 'createdTime' }, direction: 'DESC' },
  },
};

const CONN = 'conn_redeploy';
const TAB = 'redeploys';

function subscribe(id: string, kind: string, query: unknown, extra: Rec = {}): FlowNode {
  return {
    id,
    type: 'tb-subscribe',
    name: id,
    connection: CONN,
    kind,
    queryType: 'json',
    query: JSON.stringify(query),
    format: 'flat',
    wires: [[`sink_${id}`]],
    ...extra,
  };
}

/** The first message each live node sends after it (re)started: what proves it subscribed again. */
const FIRST: Record<string, (m: Rec) => boolean> = {
  live_data: (m) => m.event === 'snapshot',
  live_series: (m) => m.event === 'snapshot',
  live_history: (m) => m.event === 'history',
  live_count: (m) => m.event === 'count',
  live_alarms: (m) => m.event === 'snapshot',
  live_alarm_count: (m) => m.event === 'count',
  live_alarm_status: (m) => typeof m.payload === 'boolean',
};
const LIVE = Object.keys(FIRST);

function liveFlow(
  c: RunContext,
  originator: string,
  names: { conn: string; data: string },
  withCredentials: boolean,
): FlowNode[] {
  const nodes: FlowNode[] = [
    connection(c, CONN, { name: names.conn }),
    subscribe('live_data', 'entityData', ENTITY_QUERY, { name: names.data }),
    subscribe('live_series', 'entityData', ENTITY_QUERY, {
      tsKeys: 'temperature',
      tsWindow: 1,
      tsWindowUnit: 'hours',
      tsLimit: 10,
    }),
    subscribe('live_history', 'entityData', ENTITY_QUERY, {
      history: true,
      historyKeys: 'temperature',
      historyRange: 24,
      historyRangeUnit: 'hours',
      historyLimit: 10,
    }),
    subscribe('live_count', 'entityCount', { entityFilter: THERMOSTATS }),
    subscribe('live_alarms', 'alarmData', ALARM_QUERY),
    subscribe('live_alarm_count', 'alarmCount', { statusList: ['ACTIVE'] }),
    {
      id: 'live_alarm_status',
      type: 'tb-alarm-status',
      name: 'live_alarm_status',
      connection: CONN,
      originatorType: 'DEVICE',
      originatorId: originator,
      typeList: '',
      severityList: '',
      wires: [['sink_live_alarm_status']],
    },
    ...LIVE.map((id) => sinkNode(`sink_${id}`)),
  ];
  return tabFlow(TAB, nodes, withCredentials ? TENANT : undefined);
}

export const redeploys: Probe = async (c) => {
  const n = c.opts.redeploys;
  const originator = await deviceId(c, 'Thermo A-101');
  await c.sim.post('/__sim/requests/reset');
  const sessionsBefore = (await wsConnections(c)).total;

  // Which live nodes sent their first message since the last deploy.
  let arrived = new Set<string>();
  const off = onSink((sink, msg) => {
    const id = sink.slice('sink_'.length);
    if (FIRST[id]?.(msg)) arrived.add(id);
  });
  const errors: string[] = [];
  const offErr = onSink((sink, msg) => {
    if (sink === 'sink_err') errors.push(String((msg.error as Rec | undefined)?.message ?? ''));
  });

  let missed = 0;
  const missedWhere: string[] = [];
  let step = 0;
  /** Deploys and waits until each node of `expect` subscribed again (bounded: 15 s). */
  const redeploy = async (flows: FlowNode[], type: 'full' | 'nodes', expect: string[]): Promise<void> => {
    arrived = new Set();
    await deploy(c, flows, type);
    const ok = await waitFor(() => expect.every((id) => arrived.has(id)), 15000);
    step++;
    if (!ok) {
      missed++;
      if (missedWhere.length < 5)
        missedWhere.push(`${type} #${step}: ${expect.filter((id) => !arrived.has(id)).join(', ')}`);
    }
  };

  try {
    const names = { conn: 'sim', data: 'live_data' };
    await redeploy(liveFlow(c, originator, names, true), 'full', LIVE);
    await sleep(300);
    const heap0 = await heapUsed();
    const res0 = activeResources();
    const sessions0 = await wsConnections(c);
    const logins0 = await simCount(c, '/api/auth/login');
    const t0 = Date.now();

    for (let i = 0; i < n; i++) await redeploy(liveFlow(c, originator, names, false), 'full', LIVE);
    const fullMs = Date.now() - t0;
    await sleep(300);
    const heapFull = await heapUsed();
    const resFull = activeResources();
    const sessionsFull = await wsConnections(c);
    const loginsFull = await simCount(c, '/api/auth/login');

    const t1 = Date.now();
    let connChanges = 0;
    for (let i = 0; i < n; i++) {
      if (i % 2 === 0) {
        // The connection changes (its name): Node-RED restarts it and every node that uses it.
        names.conn = `sim ${i}`;
        connChanges++;
        await redeploy(liveFlow(c, originator, names, false), 'nodes', LIVE);
      } else {
        // One tb-subscribe changes: only it restarts, on the socket that stays open.
        names.data = `live_data ${i}`;
        await redeploy(liveFlow(c, originator, names, false), 'nodes', ['live_data']);
      }
    }
    const nodesMs = Date.now() - t1;
    await sleep(300);
    const heapEnd = await heapUsed();
    const resEnd = activeResources();
    const sessionsEnd = await wsConnections(c);
    const logins = await simCount(c, '/api/auth/login');
    const refreshes = await simCount(c, '/api/auth/token');

    await clearFlows(c);
    await sleep(300);
    const heapCleared = await heapUsed();
    const resCleared = activeResources();
    const sessionsCleared = await wsConnections(c);

    const gcNote = gcAvailable() ? 'after a full GC' : 'without GC (run with --expose-gc for comparable figures)';
    const rows: string[][] = [
      [
        'after the first deploy',
        int(logins0),
        int(sessions0.open),
        int(sessions0.total - sessionsBefore),
        '',
        int(res0.total),
        mb(heap0),
      ],
      [
        `after ${n} full redeploys`,
        int(loginsFull),
        int(sessionsFull.open),
        int(sessionsFull.total - sessionsBefore),
        `${(fullMs / n).toFixed(0)} ms`,
        int(resFull.total),
        mb(heapFull),
      ],
      [
        `after ${n} modified-nodes redeploys`,
        int(logins),
        int(sessionsEnd.open),
        int(sessionsEnd.total - sessionsBefore),
        `${(nodesMs / n).toFixed(0)} ms`,
        int(resEnd.total),
        mb(heapEnd),
      ],
      [
        'after deploying an empty flow',
        int(logins),
        int(sessionsCleared.open),
        int(sessionsCleared.total - sessionsBefore),
        '',
        int(resCleared.total),
        mb(heapCleared),
      ],
    ];
    const md = [
      'One connection with 7 live nodes (tb-subscribe: entity data, entity data with time series, entity data with ' +
        'history, entity count, alarm data, alarm count; tb-alarm-status on one device), each wired to a sink. ' +
        `Deployed once with credentials, then ${n} times "full" (Node-RED stops and starts every node) and ${n} ` +
        `times "modified nodes": ${connChanges} of them change the connection (Node-RED restarts it and its 7 ` +
        'users), the others change one tb-subscribe (only it restarts). After each deploy the probe waits until ' +
        'every restarted node sent its first message again (page, count, history or alarm status; at most 15 s). ' +
        `Heap ${gcNote}; active resources = \`process.getActiveResourcesInfo()\` of the Node-RED process (sockets, ` +
        'timers, servers).',
      '',
      table(
        [
          'moment',
          'logins (total)',
          'WebSocket sessions open',
          'sessions opened (total)',
          'per redeploy',
          'active resources',
          'heap used',
        ],
        rows,
        ['l', 'r', 'r', 'r', 'r', 'r', 'r'],
      ),
      '',
      `- Active resources after the first deploy: ${resourcesText(res0)}; at the end: ${resourcesText(resEnd)}.`,
      `- Token refreshes: ${refreshes}. Errors at the Catch ` +
        `node: ${errors.length}${errors.length ? ` (first: ${errors[0].slice(0, 160)})` : ''}.`,
      '- Redeploys after which a node did not subscribe again within 15 ' +
        `s: ${missed}${missedWhere.length ? ` (${missedWhere.join('; ')})` : ''}.`,
    ].join('\n');

    const heapGrowth = heapEnd - heap0;
    const checks = [
      check(`logins for 1 + ${2 * n} deploys`, '1', logins, logins === 1),
      check('every redeploy subscribed again', `${2 * n} of ${2 * n}`, `${2 * n - missed} of ${2 * n}`, missed === 0),
      check('WebSocket sessions open at the end', '1', sessionsEnd.open, sessionsEnd.open === 1),
      check('WebSocket sessions open after an empty deploy', '0', sessionsCleared.open, sessionsCleared.open === 0),
      check('active resources: end − first deploy', '≤ +5', resEnd.total - res0.total, resEnd.total - res0.total <= 5),
      // Without GC the heap figure is noise; with it, 200 redeploys must not keep megabytes.
      check(
        'heap used: end − first deploy',
        gcAvailable() ? '≤ +5 MB' : '(no GC: not judged)',
        mb(heapGrowth),
        !gcAvailable() || heapGrowth <= 5 * 2 ** 20,
      ),
      check('errors at the Catch node', '0', errors.length, errors.length === 0),
    ];
    return { key: 'redeploys', title: 'Redeploys', markdown: md, checks };
  } finally {
    off();
    offErr();
  }
};
