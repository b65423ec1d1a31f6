/**
 * Scenario 8: tb-trigger over a fleet. One node watches the N bench devices of a query (`seq > updates ÷ 2` held for
 * 10 minutes) at N = 1,000 and 10,000: time until every entity is judged, heap per entity, then a burst of 5
 * updates per entity as fast as the socket drains: CPU of the Node-RED process per update, heap once every entity
 * holds (each with its deadline), and the timers the holds added (one for all). Beside it, a tb-subscribe on the same
 * query whose updates send nothing: the cost of the subscription alone, so the difference is the trigger's own.
 * --quick: 1,000 entities, 2 updates each.
 */
import { startSim } from '../../sim/process';
import type { TriggerRun } from '../agent/triggers';
import { AgentPool } from '../lib/agent';
import { benchFlow, RunOptions, roundsText, ScenarioResult, sink, Target } from '../lib/common';
import { table, targetsTable } from '../lib/markdown';
import { Contender, med, runRounds, selected } from '../lib/rounds';
import { fmt } from '../lib/stats';

/** The query of the bench devices, with the keys the burst writes. */
function benchQuery(n: number): string {
  return JSON.stringify({
    entityFilter: { type: 'deviceType', deviceTypes: ['bench'] },
    entityFields: [{ type: 'ENTITY_FIELD', key: 'name' }],
    latestValues: [
      { type: 'TIME_SERIES', key: 'seq' },
      { type: 'TIME_SERIES', key: 'sentAt' },
    ],
    pageLink: { page: 0, pageSize: n },
  });
}

export async function scenario8(opts: RunOptions): Promise<ScenarioResult> {
  const sizes = opts.quick ? [1000] : [1000, 10000];
  const perEntity = opts.quick ? 2 : 5;
  const rounds = Math.min(opts.rounds, 3);
  const sim = await startSim(['--extra-devices', String(sizes[sizes.length - 1])]);
  try {
    const pool = new AgentPool(sim.url, opts.profileDir);
    try {
      const contenders: Array<Contender<TriggerRun>> = [];
      for (const n of sizes) {
        const updates = n * perEntity;
        const empty = benchFlow(sim.url, [sink('sink_true')]);
        const trigger = {
          id: 'trigger',
          type: 'tb-trigger',
          connection: 'conn',
          watch: 'query',
          query: benchQuery(n),
          queryType: 'json',
          condition: 'value',
          conditions: [
            { keyType: 'TIME_SERIES', key: 'seq', operator: 'gt', value: String(updates / 2), valueType: 'num' },
          ],
          join: 'all',
          holdFor: '10m',
          holdOffFor: '0',
          maxEntities: n,
          wires: [['sink_true'], ['sink_true']],
        };
        const subscribe = {
          id: 'sub',
          type: 'tb-subscribe',
          connection: 'conn',
          kind: 'entityData',
          query: benchQuery(n),
          queryType: 'json',
          format: 'raw',
          events: 'snapshot',
          wires: [['sink_true']],
        };
        // Each contender in its own process, kept for its rounds.
        const run =
          (key: string, node: { id: string; type: string } & Record<string, unknown>, ready: string) =>
          async (): Promise<TriggerRun> => {
            const agent = await pool.get(key);
            return agent.call<TriggerRun>(
              'task',
              {
                name: 'triggerRun',
                args: {
                  flows: benchFlow(sim.url, [node, sink('sink_true')]),
                  empty,
                  node: node.id,
                  conn: 'conn',
                  n,
                  updates,
                  ready,
                  timeoutMs: 120000,
                },
              },
              300000,
            );
          };
        contenders.push(
          {
            key: `ours@${n}`,
            label: `ours (tb-trigger, ${fmt(n)} entities)`,
            run: run(`ours@${n}`, trigger, `^0 true of ${n}$`),
          },
          {
            key: `ours+sub@${n}`,
            label: `its subscription alone (${fmt(n)})`,
            run: run(`ours+sub@${n}`, subscribe, `^watching ${n} entities$`),
          },
        );
      }
      const chosen = selected(contenders, opts);
      opts.log(`  scenario 8: tb-trigger over ${sizes.map((n) => fmt(n)).join(' and ')} entities, ${rounds} round(s)`);
      const res = await runRounds(
        chosen,
        { ...opts, rounds },
        (c) =>
          `judged ${fmt(c.startMs)} ms, heap ${fmt(c.heapPerEntityKb, 2)} KB/entity (${fmt(c.heapHoldingPerEntityKb, 2)} ` +
          `holding), ${fmt(c.updates)} updates in ${fmt(c.burstMs)} ms, CPU ${fmt(c.cpuPerUpdateUs, 1)} µs/update, ` +
          `long timers ${c.timersIdle} → ${c.timersHolding}, sent ${c.sent}`,
      );
      /** The trigger's own share of a figure: its value minus its subscription's alone, at the same size. */
      const own = (key: string, f: (r: TriggerRun) => number): number => {
        const m = /^ours@(\d+)$/.exec(key);
        const base = m ? res.get(`ours+sub@${m[1]}`) : undefined;
        return m && base ? med(res.get(key), f) - med(base, f) : NaN;
      };
      const rows = chosen.map((c) => {
        const rs = res.get(c.key)!;
        const ownKb = own(c.key, (r) => r.heapHoldingPerEntityKb);
        const ownCpu = own(c.key, (r) => r.cpuPerUpdateUs);
        return [
          c.label,
          fmt(med(rs, (r) => r.startMs)),
          fmt(
            med(rs, (r) => r.heapPerEntityKb),
            2,
          ),
          fmt(
            med(rs, (r) => r.heapHoldingPerEntityKb),
            2,
          ),
          Number.isFinite(ownKb) ? fmt(ownKb, 2) : '',
          fmt(med(rs, (r) => r.updates)),
          fmt(
            med(rs, (r) => r.cpuPerUpdateUs),
            1,
          ),
          Number.isFinite(ownCpu) ? fmt(ownCpu, 1) : '',
          fmt(med(rs, (r) => r.timersHolding)),
        ];
      });
      const targets: Target[] = [];
      for (const n of sizes) {
        const o = res.get(`ours@${n}`);
        if (!o) continue;
        const kb = med(o, (r) => r.heapHoldingPerEntityKb);
        const ownKb = own(`ours@${n}`, (r) => r.heapHoldingPerEntityKb);
        const added = med(o, (r) => r.timersHolding);
        const sent = med(o, (r) => r.sent);
        const cpu = med(o, (r) => r.cpuPerUpdateUs);
        targets.push(
          {
            what: `${fmt(n)} entities held: timers of the holds (ours)`,
            goal: '≤ 1 (one for all)',
            measured: fmt(added),
            pass: Number.isFinite(added) ? added <= 1 : undefined,
          },
          {
            what: `${fmt(n)} entities held: heap per entity, its subscription included (ours)`,
            goal: '≤ 4 KB',
            measured: `${fmt(kb, 2)} KB${Number.isFinite(ownKb) ? ` (own ${fmt(ownKb, 2)} KB)` : ''}`,
            pass: Number.isFinite(kb) ? kb <= 4 : undefined,
          },
          {
            what: `${fmt(n)} entities: CPU of the process per update (ours)`,
            goal: '≤ 100 µs',
            measured: `${fmt(cpu, 1)} µs`,
            pass: Number.isFinite(cpu) ? cpu <= 100 : undefined,
          },
          {
            what: `${fmt(n)} entities: nothing sent before the hold is over (ours)`,
            goal: '0 messages',
            measured: fmt(sent),
            pass: Number.isFinite(sent) ? sent === 0 : undefined,
          },
        );
      }
      const markdown = [
        `One tb-trigger node watching the N bench devices of a query (\`seq > updates ÷ 2\` held for 10 min), on one ` +
          'connection. "Judged" = from the deploy request until its status counts every entity. Heap = heapUsed ' +
          "after GC with the node watching, minus with an empty flow, ÷ N (the subscription's rows included); " +
          `"holding" = the same once every entity holds (each with its deadline). Then ${perEntity} updates per ` +
          'entity (`sentAt`, `seq`) as fast as the socket drains: CPU (user + system) of the Node-RED process from ' +
          'the first write to the last update read, ÷ updates; in the second half of the burst every entity starts ' +
          'to hold. "Hold timers" = the timers of 5 minutes or more alive in the process once every entity holds. ' +
          '"Its subscription alone" = tb-subscribe on the same query (raw rows, updates not sent); "own" = the ' +
          `trigger's figure minus that one at the same size. ${roundsText(opts, rounds)}`,
        '',
        table(
          [
            'contender',
            'judged ms',
            'heap KB / entity',
            'holding KB / entity',
            'own KB / entity',
            'updates',
            'CPU µs / update',
            'own µs / update',
            'hold timers',
          ],
          rows,
        ),
        '',
        targetsTable(targets),
      ].join('\n');
      return { id: 8, title: 'Triggers: tb-trigger over a fleet', markdown, targets, notes: [] };
    } finally {
      await pool.stopAll();
    }
  } finally {
    await sim.stop();
  }
}
