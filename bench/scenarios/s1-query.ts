/**
 * Scenario 1: query throughput and latency. The same entity query (a page of 100 bench devices, 2 entity
 * fields, 4 latest values), N messages with 16 in flight, through each contender in turn.
 */
import { startSim } from '../../sim/process';
import type { LoadResult } from '../agent/query-load';
import { AgentPool } from '../lib/agent';
import {
  benchFlow,
  benchQuery,
  FlowNode,
  functionNode,
  httpRequestNode,
  login,
  RunOptions,
  roundsText,
  ScenarioResult,
  sink,
  Target,
} from '../lib/common';
import { table, passText } from '../lib/markdown';
import { Contender, med, runRounds, selected } from '../lib/rounds';
import { fmt, fmtMs, fmtRatio, ratio } from '../lib/stats';

export async function scenario1(opts: RunOptions): Promise<ScenarioResult> {
  const n = opts.quick ? 300 : 3000;
  const inflight = 16;
  const devices = opts.quick ? 200 : 1000;
  const sim = await startSim(['--extra-devices', String(devices)]);
  const notes: string[] = [];
  try {
    const token = await login(sim.url);
    const query = benchQuery(100);
    const findUrl = `${sim.url}/api/entitiesQuery/find`;
    // The same query with three values from the message: the profile, the page size and the sort key.
    const bound = {
      ...query,
      entityFilter: { type: 'deviceType', deviceTypes: ['{{msg.profile}}'] },
      pageLink: {
        ...query.pageLink,
        pageSize: '{{msg.size}}',
        sortOrder: { key: { type: 'ENTITY_FIELD', key: '{{msg.sortKey}}' }, direction: 'ASC' },
      },
    };
    const boundMsg = { profile: 'bench', size: 100, sortKey: 'name' };
    const ours = (id: string, format: 'flat' | 'raw', q: unknown = query): FlowNode => ({
      id,
      type: 'tb-entity-query',
      name: id,
      connection: 'conn',
      operation: 'find',
      query: JSON.stringify(q),
      queryType: 'json',
      format,
      allPages: false,
      maxItems: 10000,
      split: false,
      wires: [[`sink_${id}`]],
    });
    const coreFunc =
      `msg.headers = { 'Content-Type': 'application/json', 'X-Authorization': ` +
      `'Bearer ' + ${JSON.stringify(token)} };\n` +
      `msg.payload = ${JSON.stringify(query)};\nreturn msg;`;
    const flowFor: Record<string, FlowNode[]> = {
      ours: [ours('ours_flat', 'flat'), sink('sink_ours_flat')],
      'ours-raw': [ours('ours_raw', 'raw'), sink('sink_ours_raw')],
      'ours-bound': [ours('ours_bound', 'flat', bound), sink('sink_ours_bound')],
      core: [
        functionNode('core_fn', coreFunc, [['core_http']]),
        httpRequestNode('core_http', findUrl, [['sink_core']]),
        sink('sink_core'),
      ],
      ref: [
        {
          id: 'ref',
          type: 'bench-ref-query',
          name: 'ref',
          url: findUrl,
          query: JSON.stringify(query),
          allPages: false,
          split: false,
          credentials: { token },
          wires: [['sink_ref']],
        },
        sink('sink_ref'),
      ],
    };
    // One process per contender (see AgentPool); each Node-RED process holds only its contender's flow.
    const pool = new AgentPool(sim.url, opts.profileDir);
    try {
      const timeoutMs = 120000;
      const nodeAgent = async (key: string) => {
        const fresh = !deployed.has(key);
        const agent = await pool.get(key);
        if (fresh) {
          deployed.add(key);
          await agent.call('deploy', { flows: benchFlow(sim.url, flowFor[key]) });
        }
        return agent;
      };
      const deployed = new Set<string>();
      const node = (
        key: string,
        label: string,
        entry: string,
        sinkId: string,
        msg?: Record<string, unknown>,
      ): Contender<LoadResult> => ({
        key,
        label,
        run: async () =>
          (await nodeAgent(key)).call<LoadResult>('task', {
            name: 'nodeLoad',
            args: { entry, sink: sinkId, errSink: 'sink_err', n, inflight, timeoutMs, msg },
          }),
      });
      const ax = (key: string, label: string, variant: 'default' | 'noRedirect'): Contender<LoadResult> => ({
        key,
        label,
        run: async () =>
          (await pool.get(key, { nodeRed: false })).call<LoadResult>('task', {
            name: 'axiosLoad',
            args: { url: findUrl, token, query, n, inflight, variant, timeoutMs },
          }),
      });
      const contenders = selected(
        [
          node('ours', 'ours (tb-entity-query, flat)', 'ours_flat', 'sink_ours_flat'),
          node('ours-raw', 'ours (tb-entity-query, raw)', 'ours_raw', 'sink_ours_raw'),
          node(
            'ours-bound',
            'ours (tb-entity-query, flat, 3 values from the message)',
            'ours_bound',
            'sink_ours_bound',
            boundMsg,
          ),
          ax('axios', 'raw axios (keep-alive, defaults)', 'default'),
          ax('axios-nr', 'raw axios (keep-alive, maxRedirects 0)', 'noRedirect'),
          node('core', 'core flow (function + http request)', 'core_fn', 'sink_core'),
          node('ref', 'reference node (node:http)', 'ref', 'sink_ref'),
        ],
        opts,
      );
      await pool.prestart(contenders.map((c) => [c.key, { nodeRed: !c.key.startsWith('axios') }]));
      opts.log(`  scenario 1: ${n} queries, ${inflight} in flight, ${devices} bench devices, page of 100`);
      const res = await runRounds(
        contenders,
        opts,
        (r) =>
          `${fmt(r.perSec)} msg/s  p50 ${fmtMs(r.p50)} ms  p99 ${fmtMs(r.p99)} ` +
          `ms${r.errors ? `  ERRORS ${r.errors}: ${r.firstError}` : ''}`,
      );
      for (const [key, rs] of res) {
        const bad = rs.find((r) => r.errors > 0 || r.items !== 100);
        if (bad)
          notes.push(
            `${key}: ${bad.errors} errors (${bad.firstError ?? ''}), ${bad.items} items in the last answer (expected ` +
              '100)',
          );
      }
      const rows = contenders.map((c) => {
        const rs = res.get(c.key)!;
        return [
          c.label,
          fmt(med(rs, (r) => r.perSec)),
          fmtMs(med(rs, (r) => r.p50)),
          fmtMs(med(rs, (r) => r.p99)),
          fmt(med(rs, (r) => (r.cpuMs / r.n) * 1000)),
          fmt(med(rs, (r) => (r.simCpuMs / r.elapsedMs) * 100)),
        ];
      });
      const perSec = (k: string) => med(res.get(k), (r) => r.perSec);
      const p99 = (k: string) => med(res.get(k), (r) => r.p99);
      const oursRate = perSec('ours');
      const targets: Target[] = [];
      const rRef = ratio(oursRate, perSec('ref'));
      const rCore = ratio(oursRate, perSec('core'));
      const rAx = ratio(oursRate, perSec('axios'));
      const rAxNr = ratio(oursRate, perSec('axios-nr'));
      targets.push({
        what: 'queries/s: ours ÷ reference node',
        goal: '≥ 0.80',
        measured: fmtRatio(rRef),
        pass: Number.isFinite(rRef) ? rRef >= 0.8 : undefined,
      });
      targets.push({
        what: 'queries/s: ours ÷ core flow',
        goal: '≈ 1.9 (implied)',
        measured: fmtRatio(rCore),
        pass: Number.isFinite(rCore) ? rCore >= 1.9 : undefined,
      });
      targets.push({
        what: 'queries/s: ours ÷ raw axios (defaults)',
        goal: '≈ 1.25 (implied)',
        measured: fmtRatio(rAx),
        pass: Number.isFinite(rAx) ? rAx >= 1.25 : undefined,
      });
      const rBound = ratio(perSec('ours-bound'), oursRate);
      targets.push({
        what: 'queries/s: ours with 3 values from the message ÷ ours fixed',
        goal: '≥ 0.95',
        measured: fmtRatio(rBound),
        pass: Number.isFinite(rBound) ? rBound >= 0.95 : undefined,
      });
      targets.push({
        what: 'queries/s: ours ÷ raw axios (maxRedirects 0)',
        goal: '(information)',
        measured: fmtRatio(rAxNr),
        pass: undefined,
      });
      const dp99 = p99('ours') - p99('axios');
      targets.push({
        what: 'p99 latency: ours − raw axios (defaults)',
        goal: '≤ +1 ms',
        measured: Number.isFinite(dp99) ? `${dp99 >= 0 ? '+' : ''}${fmtMs(dp99)} ms` : '—',
        pass: Number.isFinite(dp99) ? dp99 <= 1 : undefined,
      });
      const redirectCost = ratio(perSec('axios-nr'), perSec('axios'));
      notes.push(`axios maxRedirects 0 ÷ defaults: ${fmtRatio(redirectCost)} (the redirect follower's cost)`);
      notes.push(
        'the HTTP client underneath: raw axios (maxRedirects 0, no Node-RED at all) ÷ reference node ' +
          `= ${fmtRatio(ratio(perSec('axios-nr'), perSec('ref')))}; ours raw ÷ raw axios (maxRedirects 0) ` +
          `= ${fmtRatio(ratio(perSec('ours-raw'), perSec('axios-nr')))}; ours flat ÷ ours raw ` +
          `= ${fmtRatio(ratio(oursRate, perSec('ours-raw')))}`,
      );
      const markdown = [
        `${fmt(n)} queries per contender and round, ${inflight} in flight; simulator with ${fmt(devices)} bench ` +
          'devices; each answer is one page of 100 devices (2 entity fields, 4 latest values). Each contender in its ' +
          'own process (Node-RED with only its flow; axios without Node-RED). Latency = from the message entering ' +
          `the contender (or the request call, for axios) to its arrival at the sink. ${roundsText(opts, opts.rounds)}`,
        '',
        table(['contender', 'queries/s', 'p50 ms', 'p99 ms', 'client CPU µs/query', 'simulator CPU %'], rows),
        '',
        table(
          ['target', 'goal', 'measured', 'result'],
          targets.map((t) => [
            t.what,
            t.goal,
            t.measured,
            t.pass === undefined && t.goal.startsWith('(') ? '—' : passText(t.pass),
          ]),
          ['l', 'l', 'r', 'l'],
        ),
      ].join('\n');
      return {
        id: 1,
        title: 'Query throughput and latency',
        markdown,
        targets: targets.filter((t) => !t.goal.startsWith('(')),
        notes,
      };
    } finally {
      await pool.stopAll();
    }
  } finally {
    await sim.stop();
  }
}
