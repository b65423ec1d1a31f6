/**
 * Scenario 7: tb-wait-until. N waits at once on N bench devices (one message each, `changes` of a time
 * series, a 10-minute timeout) over one connection: heap per wait (heapUsed after GC with the N waits running, minus
 * before them, ÷ N), subscriptions the simulator holds (at most one per entity watched), then one write per device
 * paced at a fixed rate: the delay from the simulator's write (the `sentAt` value written, its wall clock) to the
 * message leaving the node on "met" (p50/p99), and every subscription gone once every wait ended.
 */
import { benchId } from '../../sim/dataset';
import { startSim } from '../../sim/process';
import type { WaitsRun } from '../agent/waits';
import { AgentPool } from '../lib/agent';
import { benchFlow, RunOptions, roundsText, ScenarioResult, sink, Target } from '../lib/common';
import { table, targetsTable } from '../lib/markdown';
import { Contender, med, runRounds, selected } from '../lib/rounds';
import { fmt, fmtMs } from '../lib/stats';

export async function scenario7(opts: RunOptions): Promise<ScenarioResult> {
  const N = opts.quick ? 100 : 1000;
  const rate = opts.quick ? 500 : 1000;
  const rounds = Math.min(opts.rounds, 3);
  const sim = await startSim(['--extra-devices', String(N)]);
  try {
    const pool = new AgentPool(sim.url, opts.profileDir);
    try {
      const entityIds = Array.from({ length: N }, (_, i) => benchId(i + 1));
      const wait = {
        id: 'wait',
        type: 'tb-wait-until',
        connection: 'conn',
        waitFor: 'value',
        keyType: 'TIME_SERIES',
        key: 'sentAt',
        operator: 'changes',
        value: '',
        valueType: 'str',
        listMode: 'all',
        checkCurrent: true,
        timeout: '10m',
        maxWaits: String(N),
        wires: [['sink_met'], ['sink_late']],
      };
      const flows = benchFlow(sim.url, [wait, sink('sink_met'), sink('sink_late')]);
      const empty = benchFlow(sim.url, [sink('sink_met')]);
      const measure = async (): Promise<WaitsRun> => {
        const agent = await pool.get('ours');
        await agent.call('deploy', { flows: empty });
        await agent.call('deploy', { flows });
        const r = await agent.call<WaitsRun>(
          'task',
          {
            name: 'waitsRun',
            args: { node: 'wait', conn: 'conn', sink: 'sink_met', entityIds, ratePerSec: rate, timeoutMs: 60000 },
          },
          70000,
        );
        await agent.call('deploy', { flows: empty });
        return r;
      };
      const chosen = selected(
        [{ key: 'ours', label: `ours (one tb-wait-until node, ${fmt(N)} waits)`, run: measure } as Contender<WaitsRun>],
        opts,
      );
      opts.log(`  scenario 7: ${fmt(N)} waits on ${fmt(N)} entities, ${rounds} round(s)`);
      const res = await runRounds(
        chosen,
        { ...opts, rounds },
        (c) =>
          `started ${fmt(c.startMs)} ms, heap ${fmt(c.heapPerWaitKb, 1)} KB/wait, server subs ${c.serverSubsWaiting} ` +
          `→ ${c.serverSubsAfter}, met ${c.met}, write→met p50 ${fmtMs(c.p50)} p99 ${fmtMs(c.p99)} ms, socket→met ` +
          `p50 ${fmtMs(c.socketP50)} p99 ${fmtMs(c.socketP99)} ms`,
      );
      const o = res.get('ours');
      const rows = chosen.map((c) => {
        const rs = res.get(c.key)!;
        return [
          c.label,
          fmt(med(rs, (r) => r.startMs)),
          fmt(
            med(rs, (r) => r.heapPerWaitKb),
            1,
          ),
          fmt(med(rs, (r) => r.serverSubsWaiting)),
          fmt(med(rs, (r) => r.met)),
          fmtMs(med(rs, (r) => r.socketP50)),
          fmtMs(med(rs, (r) => r.socketP99)),
          fmtMs(med(rs, (r) => r.p50)),
          fmtMs(med(rs, (r) => r.p99)),
          fmt(med(rs, (r) => r.serverSubsAfter)),
        ];
      });
      const kb = med(o, (r) => r.heapPerWaitKb);
      const subs = med(o, (r) => r.serverSubsWaiting);
      const after = med(o, (r) => r.serverSubsAfter);
      const met = med(o, (r) => r.met);
      const p99 = med(o, (r) => r.socketP99);
      const targets: Target[] = [
        {
          what: `${fmt(N)} waits: subscriptions on the server (ours)`,
          goal: `≤ ${fmt(N)} (entities watched)`,
          measured: fmt(subs),
          pass: Number.isFinite(subs) ? subs <= N : undefined,
        },
        {
          what: `${fmt(N)} waits: every wait met, nothing left subscribed (ours)`,
          goal: `${fmt(N)} met, 0 left`,
          measured: `${fmt(met)} met, ${fmt(after)} left`,
          pass: Number.isFinite(met) ? met === N && after === 0 : undefined,
        },
        {
          what: `${fmt(N)} waits: heap per wait (ours)`,
          goal: '≤ 20 KB',
          measured: `${fmt(kb, 1)} KB`,
          pass: Number.isFinite(kb) ? kb <= 20 : undefined,
        },
        {
          what: `${fmt(N)} waits: update at the socket → "met" message p99 (ours)`,
          goal: '≤ 5 ms',
          measured: `${fmtMs(p99)} ms`,
          pass: Number.isFinite(p99) ? p99 <= 5 : undefined,
        },
      ];
      const markdown = [
        `${fmt(N)} messages into one tb-wait-until node (\`sentAt\` changes, timeout 10 min), one bench device each, ` +
          'on one connection (one WebSocket). "Started" = from the first message until the simulator holds every ' +
          `subscription. Heap = heapUsed after GC with the waits running minus before them, ÷ ${fmt(N)} (a wait and ` +
          `its entity's subscription). Then the simulator writes one value per device at ${fmt(rate)}/s: "socket → ` +
          'met" = the message leaving on "met" (at the sink) minus the time its update\'s frame reached the ' +
          'client\'s socket (before the hub reads it): the node\'s own delay; "write → met" = the same minus the ' +
          "simulator's wall clock written in the value (the simulator's routing and sending " +
          `included). ${roundsText(opts, rounds)}`,
        '',
        table(
          [
            'contender',
            'started ms',
            'heap KB / wait',
            'server subscriptions',
            'met',
            'socket → met p50 ms',
            'socket → met p99 ms',
            'write → met p50 ms',
            'write → met p99 ms',
            'subscriptions left',
          ],
          rows,
        ),
        '',
        targetsTable(targets),
      ].join('\n');
      return { id: 7, title: 'Waits: tb-wait-until on one connection', markdown, targets, notes: [] };
    } finally {
      await pool.stopAll();
    }
  } finally {
    await sim.stop();
  }
}
