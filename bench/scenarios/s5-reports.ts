/**
 * Scenario 5: reports. N report requests fired at once against the simulator's analytics service, whose report
 * queue answers 429 when full. Two service set-ups: the service as shipped (10 workers + a queue of 10) and a
 * small one (2 workers + a queue of 2) that a connection running 10 reports at once overflows, so that ours goes
 * through the 429 retry path too. "Queue limit" = the least time the service itself needs:
 * ceil(N / workers) × report time. All reports must succeed.
 */
import { startSim, SimProcess } from '../../sim/process';
import type { ReportRun } from '../agent/reports';
import { AgentPool } from '../lib/agent';
import {
  benchFlow,
  FlowNode,
  functionNode,
  httpRequestNode,
  RunOptions,
  roundsText,
  ScenarioResult,
  sink,
  Target,
  TENANT,
} from '../lib/common';
import { table, targetsTable } from '../lib/markdown';
import { Contender, med, runRounds, selected } from '../lib/rounds';
import { fmt, fmtRatio } from '../lib/stats';

const VIEW = '5b1f6c2e-0d3a-4f7e-9a21-7c4e8b2d9f10'; // energy per building per day (the examples' view)

interface Setup {
  name: string;
  workers: number;
  queue: number;
}

async function analyticsLogin(sim: SimProcess): Promise<string> {
  const res = await fetch(`${sim.url}/apiTrendz/publicApi/auth/login`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify(TENANT),
  });
  if (!res.ok) throw new Error(`analytics login failed: HTTP ${res.status} ${(await res.text()).slice(0, 200)}`);
  return ((await res.json()) as { token: string }).token;
}

export async function scenario5(opts: RunOptions): Promise<ScenarioResult> {
  const n = opts.quick ? 10 : 100;
  const delayMs = opts.quick ? 20 : 50;
  const rounds = Math.min(opts.rounds, 2);
  // --quick: only the small set-up, where every contender goes through the 429 path.
  const setups: Setup[] = [
    ...(opts.quick ? [] : [{ name: 'as shipped', workers: 10, queue: 10 }]),
    { name: 'small', workers: 2, queue: 2 },
  ];
  const sim = await startSim([]);
  const notes: string[] = [];
  try {
    const token = await analyticsLogin(sim);
    const base = `${sim.url}/apiTrendz/`;
    const body = { viewConfigId: VIEW };
    const pool = new AgentPool(sim.url, opts.profileDir);
    try {
      const oursFlow = (concurrency: number, maxRetries: number): FlowNode[] =>
        benchFlow(
          sim.url,
          [
            {
              id: 'entry',
              type: 'tb-build-report',
              connection: 'conn',
              viewConfigId: VIEW,
              viewConfigIdType: 'str',
              range: 'view',
              filters: '',
              filtersType: 'json',
              format: 'rows',
              split: false,
              parseNumbers: false,
              maxRetries,
              maxWait: 300,
              wires: [['sink_rep']],
            },
            sink('sink_rep'),
          ],
          {
            connection: {
              analyticsUrl: base,
              analyticsAuth: 'same',
              reportConcurrency: concurrency,
              reportTimeout: 300,
            },
          },
        );
      const headers = { 'Content-Type': 'application/json', 'X-Authorization': `Bearer ${token}` };
      const coreFlow = benchFlow(sim.url, [
        functionNode(
          'entry',
          `msg.headers = ${JSON.stringify(headers)};\nmsg.payload = ${JSON.stringify(body)};\nreturn msg;`,
          [['core_http']],
        ),
        httpRequestNode('core_http', `${base}publicApi/buildReport`, [['core_check']]),
        // 429: put the request back together and try again after 1 s (a delay node); anything else goes on.
        functionNode(
          'core_check',
          `if (msg.statusCode === 429) {\n  msg.headers = ${JSON.stringify(headers)};\n  msg.payload ` +
            `= ${JSON.stringify(body)};\n  return [msg, null];\n}\nreturn [null, msg];`,
          [['core_delay'], ['sink_rep']],
        ),
        {
          id: 'core_delay',
          type: 'delay',
          name: 'retry in 1 s',
          pauseType: 'delay',
          timeout: '1',
          timeoutUnits: 'seconds',
          rate: '1',
          nbRateUnits: '1',
          rateUnits: 'second',
          randomFirst: '1',
          randomLast: '5',
          randomUnits: 'seconds',
          drop: false,
          allowrate: false,
          outputs: 1,
          wires: [['core_http']],
        },
        sink('sink_rep'),
      ]);
      const refFlow = benchFlow(sim.url, [
        {
          id: 'entry',
          type: 'bench-ref-report',
          url: base,
          body: JSON.stringify(body),
          credentials: { token },
          wires: [['sink_rep']],
        },
        sink('sink_rep'),
      ]);
      const timeoutMs = 600000;
      // One process per contender (see AgentPool), its flow deployed once.
      const deployed = new Set<string>();
      const nodeRun = async (key: string, flows: FlowNode[]): Promise<ReportRun> => {
        const agent = await pool.get(key);
        if (!deployed.has(key)) {
          deployed.add(key);
          await agent.call('deploy', { flows });
        }
        return agent.call<ReportRun>(
          'task',
          { name: 'reportLoad', args: { entry: 'entry', sink: 'sink_rep', errSink: 'sink_err', n, timeoutMs } },
          timeoutMs + 10000,
        );
      };
      const kinds: Array<[string, string, () => Promise<ReportRun>]> = [
        ['ours', 'ours (tb-build-report, report concurrency 2 = default)', () => nodeRun('ours', oursFlow(2, 20))],
        ['ours10', 'ours (report concurrency 10)', () => nodeRun('ours10', oursFlow(10, 20))],
        [
          'axios',
          'raw axios (all at once, 429 → retry after 1 s)',
          async () =>
            (await pool.get('axios', { nodeRed: false })).call<ReportRun>(
              'task',
              { name: 'axiosReports', args: { baseUrl: base, token, body, n, timeoutMs } },
              timeoutMs + 10000,
            ),
        ],
        ['core', 'core flow (http request, 429 → delay 1 s → again)', () => nodeRun('core', coreFlow)],
        ['ref', 'reference node (node:http, 429 → retry after 1 s)', () => nodeRun('ref', refFlow)],
      ];
      await pool.prestart(
        selected(
          kinds.map(([key]) => ({ key, label: key, run: () => Promise.reject(new Error('unused')) })),
          opts,
        ).map((c) => [c.key, { nodeRed: c.key !== 'axios' }]),
      );
      const rows: string[][] = [];
      const targets: Target[] = [];
      for (const s of setups) {
        const limitMs = Math.ceil(n / s.workers) * delayMs;
        const contenders = selected(
          kinds.map(([key, label, run]) => ({
            key: `${key}/${s.name}`,
            label,
            run: async () => {
              await sim.post('/__sim/analytics/settings', {
                reportDelayMs: delayMs,
                concurrency: s.workers,
                queueCapacity: s.queue,
              });
              return run();
            },
          })) as Array<Contender<ReportRun>>,
          opts,
        );
        opts.log(
          `  scenario 5 (${s.name}: ${s.workers} workers + queue of ${s.queue}, ${delayMs} ms per report): ${n} ` +
            `reports at once; queue limit ${fmt(limitMs)} ms`,
        );
        const res = await runRounds(
          contenders,
          { ...opts, rounds },
          (r) =>
            `${fmt(r.elapsedMs)} ms  ok ${r.ok}/${r.n}  requests ${r.requests}  ` +
            `429 ${r.rejected}${r.errors ? `  ERRORS ${r.errors}: ${r.firstError}` : ''}`,
        );
        for (const c of contenders) {
          const rs = res.get(c.key)!;
          const okAll = rs.every((r) => r.ok === r.n && r.errors === 0);
          rows.push([
            c.label,
            `${s.workers} + ${s.queue}`,
            fmt(med(rs, (r) => r.elapsedMs)),
            fmt(limitMs),
            fmtRatio(med(rs, (r) => r.elapsedMs) / limitMs),
            fmt(med(rs, (r) => r.requests)),
            fmt(med(rs, (r) => r.rejected)),
            okAll ? `${n}/${n}` : `${fmt(Math.min(...rs.map((r) => r.ok)))}/${n}`,
          ]);
          if (c.key.startsWith('ours')) {
            const bad = rs.find((r) => r.errors > 0);
            if (bad) notes.push(`${c.key}: ${bad.errors} failed: ${bad.firstError}`);
            targets.push({
              what: `${n} reports, ${s.workers} workers + queue of ${s.queue}: ${c.label.replace(/^ours \(/, 'ours (')} all succeed`,
              goal: `${n}/${n}`,
              measured:
                `${fmt(Math.min(...rs.map((r) => r.ok)))}/${n}, ${fmtRatio(med(rs, (r) => r.elapsedMs) / limitMs)} ` +
                'the queue limit',
              pass: rs.length ? okAll : undefined,
            });
          }
        }
      }
      const markdown = [
        `${n} report requests (view "energy per building per day") fired at once; every report holds a worker of the ` +
          `service for ${delayMs} ms; the service answers 429 when its workers and its queue are full. Queue limit = ` +
          `ceil(${n} ÷ workers) × ${delayMs} ms. "requests" counts every buildReport request the service received ` +
          '(retries included), "429" its rejections. Ours uses its own 429 policy (Retry-After, else 1 s doubling, ± ' +
          `20 %) with max retries 20; the baselines retry after 1 s. ${roundsText(opts, rounds)}`,
        '',
        table(
          [
            'contender',
            'workers + queue',
            'total ms',
            'queue limit ms',
            'total ÷ limit',
            'requests',
            '429',
            'succeeded',
          ],
          rows,
        ),
        '',
        targetsTable(targets),
      ].join('\n');
      return { id: 5, title: 'Reports against a bounded queue', markdown, targets, notes };
    } finally {
      await pool.stopAll();
    }
  } finally {
    await sim.stop();
  }
}
