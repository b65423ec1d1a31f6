/**
 * Probe 3, flood: one tb-subscribe (entity data, 100 bench devices, latest `seq`), then the simulator's telemetry
 * burst (`POST /__sim/ws/burst`) writes N updates round-robin over those devices as fast as
 * the socket drains. Every update carries `seq` = 1…N: the probe counts what reached the sink, lost and
 * duplicated updates, and updates that arrived out of order for their device.
 */
import { table } from '../lib/markdown';
import {
  check,
  clearFlows,
  connection,
  deploy,
  FlowNode,
  heapUsed,
  int,
  mb,
  onSink,
  Probe,
  Rec,
  sinkNode,
  tabFlow,
  TENANT,
  waitFor,
  wsConnections,
} from './context';

const ENTITIES = 100;

export const flood: Probe = async (c) => {
  const n = c.opts.flood;
  const query = {
    entityFilter: { type: 'deviceType', deviceTypes: ['bench'] },
    entityFields: [{ type: 'ENTITY_FIELD', key: 'name' }],
    latestValues: [{ type: 'TIME_SERIES', key: 'seq' }],
    pageLink: {
      page: 0,
      pageSize: ENTITIES,
      sortOrder: { key: { type: 'ENTITY_FIELD', key: 'name' }, direction: 'ASC' },
    },
  };
  const nodes: FlowNode[] = [
    connection(c, 'conn_flood'),
    {
      id: 'flood_sub',
      type: 'tb-subscribe',
      name: 'flood_sub',
      connection: 'conn_flood',
      kind: 'entityData',
      queryType: 'json',
      query: JSON.stringify(query),
      format: 'flat',
      wires: [['sink_flood']],
    },
    sinkNode('sink_flood'),
  ];

  const seen = new Uint8Array(n + 1);
  let updates = 0;
  let duplicated = 0;
  let outOfOrder = 0;
  let badSeq = 0;
  let snapshots = 0;
  let errors = 0;
  let lastArrival = 0;
  const lastSeqOf = new Map<string, number>();
  const off = onSink((sink, msg) => {
    if (sink === 'sink_err') errors++;
    if (sink !== 'sink_flood') return;
    if (msg.event === 'snapshot') {
      snapshots++;
      return;
    }
    if (msg.event !== 'update') return;
    updates++;
    lastArrival = Date.now();
    const seq = Number((msg.payload as Rec | undefined)?.seq);
    if (!Number.isInteger(seq) || seq < 1 || seq > n) {
      badSeq++;
      return;
    }
    if (seen[seq]) duplicated++;
    else seen[seq] = 1;
    const id = String(msg.topic);
    if ((lastSeqOf.get(id) ?? 0) > seq) outOfOrder++;
    lastSeqOf.set(id, seq);
  });

  try {
    const sessionsBefore = (await wsConnections(c)).total;
    await deploy(c, tabFlow('flood', nodes, TENANT));
    if (!(await waitFor(() => snapshots > 0, 15000))) throw new Error('the subscription sent no page within 15 s');
    const heap0 = await heapUsed();
    const rss0 = process.memoryUsage().rss;
    let peakRss = rss0;
    const sampler = setInterval(() => {
      peakRss = Math.max(peakRss, process.memoryUsage().rss);
    }, 50);
    const t0 = Date.now();
    type Burst = {
      updates: number;
      durationMs: number;
      stalls: number;
      stallMs: number;
      aborted: boolean;
      messagesSent: number;
    };
    let burst: Burst;
    try {
      burst = await c.sim.post<Burst>('/__sim/ws/burst', {
        entities: ENTITIES,
        updates: n,
        keysPerUpdate: 2,
        stallTimeoutMs: 30000,
      });
      // Everything the simulator sent is on its way: wait until all arrived, or 10 s without progress.
      let lastCount = -1;
      let lastChange = Date.now();
      await waitFor(() => {
        if (updates !== lastCount) {
          lastCount = updates;
          lastChange = Date.now();
        }
        return updates - duplicated - badSeq >= n || Date.now() - lastChange > 10000;
      }, 120000);
    } finally {
      clearInterval(sampler);
    }
    const elapsed = Math.max(1, lastArrival - t0);
    const distinct = updates - duplicated - badSeq;
    const lost = n - distinct;
    const sessions = (await wsConnections(c)).total - sessionsBefore;
    const heap1 = await heapUsed();

    const md = [
      `One tb-subscribe (entity data, flat, ${ENTITIES} bench devices, latest \`seq\`) wired to a sink. The ` +
        `simulator writes ${int(n)} updates (keys \`sentAt\`, \`seq\`) round-robin over the ${ENTITIES} devices as ` +
        'fast as the socket drains (`POST /__sim/ws/burst`); each is one WebSocket message. The sink counts every ' +
        '`update` message by its `seq`; "out of order" = a device\'s update with a lower `seq` than one already ' +
        "received for that device. Memory is the Node-RED process's (heap after GC when run with --expose-gc); the " +
        'rate depends on the machine and its load (see the load average above): bench/RESULTS.md measures speed.',
      '',
      table(
        [
          'updates sent',
          'received',
          'lost',
          'duplicated',
          'out of order',
          'updates/s at the sink',
          'WebSocket sessions',
          'RSS before → peak',
          'heap before → after',
        ],
        [
          [
            int(n),
            int(updates),
            int(lost),
            int(duplicated),
            int(outOfOrder),
            int((distinct * 1000) / elapsed),
            int(sessions),
            `${mb(rss0)} → ${mb(peakRss)}`,
            `${mb(heap0)} → ${mb(heap1)}`,
          ],
        ],
      ),
      '',
      `- Simulator: burst written in ${(burst.durationMs / 1000).toFixed(2)} s, ${int(burst.messagesSent)} ` +
        `messages, ${burst.stalls} waits for the socket to drain (${(burst.stallMs / 1000).toFixed(2)} ` +
        `s)${burst.aborted ? ', ABORTED' : ''}.`,
    ].join('\n');
    const checks = [
      check('updates lost', '0', int(lost), lost === 0),
      check('updates duplicated', '0', int(duplicated), duplicated === 0),
      check('updates out of order per device', '0', int(outOfOrder), outOfOrder === 0),
      check('WebSocket sessions opened', '1', sessions, sessions === 1),
      check('errors at the Catch node', '0', errors, errors === 0 && badSeq === 0),
    ];
    return { key: 'flood', title: 'Telemetry flood', markdown: md, checks };
  } finally {
    off();
    await clearFlows(c).catch(() => undefined);
  }
};
