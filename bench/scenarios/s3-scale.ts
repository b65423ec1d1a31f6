/**
 * Scenario 3: scale. S subscriptions (one bench device each) on one connection: sockets opened, time until all
 * are subscribed (from the deploy request), time until all are subscribed again after the simulator drops every
 * session, and heap per subscription (heap after GC with the S subscriptions, minus the heap with an empty flow,
 * divided by S). For context, the same heap figure for S bare Node-RED nodes (bench-sink).
 */
import { benchId } from '../../sim/dataset';
import { startSim } from '../../sim/process';
import type { SubscribeResult } from '../agent/live';
import { Agent, AgentPool } from '../lib/agent';
import { benchFlow, FlowNode, login, RunOptions, roundsText, ScenarioResult, Target } from '../lib/common';
import { coreLiveFlow, entityDataCmd, oursSubscribe, refLive, sink } from '../lib/live-flows';
import { table, targetsTable } from '../lib/markdown';
import { Contender, med, runRounds, selected } from '../lib/rounds';
import { fmt } from '../lib/stats';

interface Mem {
  heapUsed: number;
}

interface Cell {
  subscribedMs: number;
  deployMs: number;
  /** sockets the simulator accepted while subscribing */
  sockets: number;
  /** sessions open at the simulator once all were subscribed */
  openSessions: number;
  resubscribedMs: number;
  heapPerSubKb: number;
  hubSockets?: number;
}

interface Connections {
  open: number;
  authenticated: number;
  total: number;
}

export async function scenario3(opts: RunOptions): Promise<ScenarioResult> {
  const S = opts.quick ? 100 : 1000;
  const rounds = Math.min(opts.rounds, 3);
  const sim = await startSim(['--extra-devices', String(Math.max(S, 1000))]);
  const notes: string[] = [];
  try {
    const token = await login(sim.url);
    const pool = new AgentPool(sim.url, opts.profileDir);
    try {
      const query = (i: number) => ({
        entityFilter: { type: 'singleEntity', singleEntity: { entityType: 'DEVICE', id: benchId(i) } },
        entityFields: [{ type: 'ENTITY_FIELD', key: 'name' }],
        latestValues: [{ type: 'TIME_SERIES', key: 'temperature' }],
        pageLink: { page: 0, pageSize: 1 },
      });
      const ids = Array.from({ length: S }, (_, i) => `sub_${i + 1}`);
      const cmds = Array.from({ length: S }, (_, i) => entityDataCmd(i + 1, query(i + 1)));
      const sinkId = 'sink_scale';
      const empty = benchFlow(sim.url, [sink(sinkId)]);
      const connections = () => sim.get<Connections>('/__sim/ws/connections');
      const heapOf = async (agent: Agent) => (await agent.call<Mem>('memory', { gc: true })).heapUsed;

      const measure = async (key: string): Promise<Cell> => {
        // One process per contender (see AgentPool); the raw client's process runs Node-RED too, idle, so that
        // its heap figure is measured on the same base.
        const agent = await pool.get(key);
        const heap = () => heapOf(agent);
        await agent.call('deploy', { flows: empty });
        const heap0 = await heap();
        const before = await connections();
        let sub: SubscribeResult;
        if (key === 'raw') {
          const r = await agent.call<{ openMs: number }>('task', {
            name: 'rawOpen',
            args: { token, cmds, snapshots: S, reconnect: true, timeoutMs: 60000 },
          });
          sub = { deployMs: 0, subscribedMs: r.openMs, snapshots: S };
        } else {
          let nodes: FlowNode[];
          if (key === 'ours') nodes = ids.map((id, i) => oursSubscribe(id, query(i + 1), sinkId));
          else if (key === 'core') nodes = coreLiveFlow(sim.url, token, cmds, sinkId);
          else nodes = ids.map((id, i) => refLive(id, sim.url, token, entityDataCmd(1, query(i + 1)), sinkId));
          sub = await agent.call<SubscribeResult>(
            'task',
            {
              name: 'deployAndWait',
              args: {
                flows: benchFlow(sim.url, [...nodes, sink(sinkId)]),
                sink: sinkId,
                snapshots: S,
                statusIds: key === 'ours' ? ids : undefined,
                timeoutMs: 60000,
              },
            },
            70000,
          );
        }
        const after = await connections();
        const heap1 = await heap();
        const hub =
          key === 'ours'
            ? await agent.call<{ sockets: number } | undefined>('task', { name: 'hubStats', args: { conn: 'conn' } })
            : undefined;
        let resubscribedMs = NaN;
        // The reference node does not reconnect; in --quick mode the core flow's fixed 3 s reconnect is skipped.
        if (key !== 'ref' && !(opts.quick && key === 'core')) {
          const r = await agent.call<{ resubscribedMs: number }>(
            'task',
            {
              name: 'dropAndWait',
              args:
                key === 'ours'
                  ? { statusIds: ids, timeoutMs: 60000 }
                  : { sink: key === 'raw' ? 'raw' : sinkId, snapshots: S, timeoutMs: 60000 },
            },
            70000,
          );
          resubscribedMs = r.resubscribedMs;
        }
        if (key === 'raw') await agent.call('task', { name: 'rawClose', args: {} });
        await agent.call('deploy', { flows: empty });
        return {
          subscribedMs: sub.subscribedMs,
          deployMs: sub.deployMs,
          sockets: after.total - before.total,
          openSessions: after.open,
          resubscribedMs,
          heapPerSubKb: (heap1 - heap0) / S / 1024,
          hubSockets: hub?.sockets,
        };
      };

      const kinds: Array<[string, string]> = [
        ['ours', `ours (${fmt(S)} tb-subscribe nodes, one connection)`],
        ['raw', `raw ws client (${fmt(S)} commands, one socket)`],
        ['core', `core flow (one websocket client, ${fmt(S)} commands)`],
        ['ref', `reference node (${fmt(S)} nodes, a socket each)`],
      ];
      const chosen = selected(
        kinds.map(([key, label]) => ({ key, label, run: () => measure(key) }) as Contender<Cell>),
        opts,
      );
      await pool.prestart([...chosen.map((c) => [c.key] as [string]), ['bare']]);
      opts.log(`  scenario 3: ${fmt(S)} subscriptions, ${rounds} round(s)`);
      const res = await runRounds(
        chosen,
        { ...opts, rounds },
        (c) =>
          `subscribed ${fmt(c.subscribedMs)} ms (deploy ${fmt(c.deployMs)}), sockets ${c.sockets}, ` +
          `open ${c.openSessions}, resubscribed ${fmt(c.resubscribedMs)} ms, heap ${fmt(c.heapPerSubKb, 1)} KB/sub`,
      );

      // Bare Node-RED nodes, for context: what S nodes cost before any subscription.
      const agent = await pool.get('bare');
      const heap = () => heapOf(agent);
      await agent.call('deploy', { flows: empty });
      const h0 = await heap();
      await agent.call('deploy', {
        flows: benchFlow(sim.url, [...ids.map((id) => ({ id, type: 'bench-sink' }) as FlowNode), sink(sinkId)]),
      });
      const bareKb = ((await heap()) - h0) / S / 1024;
      await agent.call('deploy', { flows: empty });

      const rows = chosen.map((c) => {
        const rs = res.get(c.key)!;
        return [
          c.label,
          fmt(med(rs, (r) => r.sockets)),
          fmt(med(rs, (r) => r.subscribedMs)),
          fmt(med(rs, (r) => r.deployMs)),
          c.key === 'ref'
            ? 'no reconnect'
            : opts.quick && c.key === 'core'
              ? 'not measured (--quick)'
              : fmt(med(rs, (r) => r.resubscribedMs)),
          fmt(
            med(rs, (r) => r.heapPerSubKb),
            1,
          ),
        ];
      });
      const o = res.get('ours');
      const sockets = med(o, (r) => r.sockets);
      const subMs = med(o, (r) => r.subscribedMs);
      const resubMs = med(o, (r) => r.resubscribedMs);
      const kb = med(o, (r) => r.heapPerSubKb);
      const targets: Target[] = [
        {
          what: `${fmt(S)} subscriptions: sockets opened (ours)`,
          goal: '1',
          measured: fmt(sockets),
          pass: Number.isFinite(sockets) ? sockets === 1 : undefined,
        },
        {
          what: `${fmt(S)} subscriptions: all subscribed after deploy (ours)`,
          goal: '≤ 1,000 ms',
          measured: `${fmt(subMs)} ms`,
          pass: Number.isFinite(subMs) ? subMs <= 1000 : undefined,
        },
        {
          what: `${fmt(S)} subscriptions: all subscribed again after a drop (ours)`,
          goal: '≤ 2,000 ms',
          measured: `${fmt(resubMs)} ms`,
          pass: Number.isFinite(resubMs) ? resubMs <= 2000 : undefined,
        },
        {
          what: `${fmt(S)} subscriptions: heap per subscription (ours)`,
          goal: '≤ 20 KB',
          measured: `${fmt(kb, 1)} KB`,
          pass: Number.isFinite(kb) ? kb <= 20 : undefined,
        },
      ];
      notes.push(
        `a bare Node-RED node (bench-sink) costs ${fmt(bareKb, 1)} KB of heap: included in the per-subscription ` +
          'figure of every node-based contender',
      );
      notes.push(
        'the drop is abrupt (the clients see 1006); our hub waits its reconnect backoff first ' +
          '(tbConnectionReconnectInitialMs, 1 s ± 20 %), the core websocket client 3 s, the raw client reconnects at ' +
          'once; the reference node does not reconnect',
      );
      const markdown = [
        `${fmt(S)} ENTITY_DATA subscriptions (a single bench device each: name + temperature). "Subscribed" = from ` +
          "the deploy request until every subscription's first data arrived at the sink (ours: and every node's " +
          'status is green); "again after a drop" = from the simulator dropping every session until all are ' +
          'subscribed again (ours: every node went non-green and back to green). Heap = heapUsed after GC with the ' +
          `subscriptions minus with an empty flow, ÷ ${fmt(S)}. ${roundsText(opts, rounds)}`,
        '',
        table(
          [
            'contender',
            'sockets opened',
            'all subscribed ms',
            'of which deploy ms',
            'resubscribed after drop ms',
            'heap KB / subscription',
          ],
          rows,
        ),
        '',
        targetsTable(targets),
      ].join('\n');
      return { id: 3, title: 'Scale: subscriptions on one connection', markdown, targets, notes };
    } finally {
      await pool.stopAll();
    }
  } finally {
    await sim.stop();
  }
}
