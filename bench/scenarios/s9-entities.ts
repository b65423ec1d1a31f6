/**
 * Scenario 9: entities in bulk. Against a simulator that answers every request after 5 ms, 1,000 rows of
 * create-or-update (a device each, with a profile and a label, every name new):
 * - through one deployed tb-entity as ONE message holding the list (bounded concurrency, one result per row);
 * - through the same node as 1,000 messages of one row, each waited for before the next (a flow without the bulk);
 * - through the package's platform client called directly (no Node-RED) with the same concurrency: the baseline;
 * and the heap of the one-message run, in a fresh process: its growth per row, and what it holds beyond its results.
 */
import { startSim } from '../../sim/process';
import type { EntityRun } from '../agent/entities';
import { AgentPool, startAgent } from '../lib/agent';
import { benchFlow, FlowNode, RunOptions, roundsText, ScenarioResult, sink, Target, TENANT } from '../lib/common';
import { table, targetsTable } from '../lib/markdown';
import { Contender, med, runRounds, selected } from '../lib/rounds';
import { fmt, fmtRatio, ratio } from '../lib/stats';

const MB = 1024 * 1024;
const LATENCY_MS = 5;
const CONCURRENCY = 4;
const PROFILE = 'thermostat';
/** Rows of a one-message run before the heap measurement, in the same process: the hot path compiled first. */
const HEAP_WARMUP = 200;

function entityNode(): FlowNode[] {
  return [
    {
      id: 'entry',
      type: 'tb-entity',
      connection: 'conn',
      operation: 'upsert',
      entityType: 'DEVICE',
      profile: '',
      customer: '',
      concurrency: CONCURRENCY,
      version: 1,
      wires: [['sink_out']],
    },
    sink('sink_out'),
  ];
}

export async function scenario9(opts: RunOptions): Promise<ScenarioResult> {
  const n = opts.quick ? 100 : 1000;
  const heapRounds = Math.min(opts.rounds, 2);
  const sim = await startSim(['--latency', String(LATENCY_MS)]);
  const notes: string[] = [];
  const targets: Target[] = [];
  const sections: string[] = [];
  // Every run creates its own devices (new names), so every row of every run is a create.
  let runs = 0;
  const prefix = (key: string) => `b9-${key.replace(/[^a-z0-9]/gi, '')}-${++runs}`;
  try {
    const pool = new AgentPool(sim.url, opts.profileDir);
    try {
      const deployed = new Set<string>();
      const nodeAgent = async (key: string) => {
        const agent = await pool.get(key);
        if (!deployed.has(key)) {
          deployed.add(key);
          await agent.call('deploy', { flows: benchFlow(sim.url, entityNode()) });
        }
        return agent;
      };
      const ours = (key: string, label: string, bulk: boolean): Contender<EntityRun> => ({
        key,
        label,
        run: async () =>
          (await nodeAgent(key)).call<EntityRun>(
            'task',
            {
              name: 'nodeEntities',
              args: {
                entry: 'entry',
                sink: 'sink_out',
                errSink: 'sink_err',
                prefix: prefix(key),
                n,
                profile: PROFILE,
                bulk,
                heap: false,
                timeoutMs: 600000,
              },
            },
            660000,
          ),
      });
      const client: Contender<EntityRun> = {
        key: 'client',
        label: `platform client, ${CONCURRENCY} workers, no Node-RED`,
        run: async () =>
          (await pool.get('client', { nodeRed: false })).call<EntityRun>(
            'task',
            {
              name: 'clientEntities',
              args: {
                prefix: prefix('client'),
                n,
                profile: PROFILE,
                username: TENANT.username,
                password: TENANT.password,
                concurrency: CONCURRENCY,
                timeoutMs: 600000,
              },
            },
            660000,
          ),
      };
      const contenders = selected(
        [
          ours('ours', `ours (tb-entity, one message, concurrency ${CONCURRENCY})`, true),
          ours('ours/each', 'ours (tb-entity, one message per row)', false),
          client,
        ],
        opts,
      );
      await pool.prestart(contenders.map((c) => [c.key, { nodeRed: c.key.startsWith('ours') }]));
      opts.log(
        `  scenario 9a: create-or-update of ${fmt(n)} devices (profile ${PROFILE}, a label), server answering after ` +
          `${LATENCY_MS} ms`,
      );
      const describe = (r: EntityRun): string =>
        `${fmt(r.elapsedMs)} ms  ${fmt(r.created)}/${fmt(r.n)} created  ${fmt(r.requests)} requests` +
        (r.heap
          ? `  heap base ${fmt(r.heap.base / MB, 1)} MB, peak +${fmt((r.heap.peak - r.heap.base) / MB, 2)}, after ` +
            `+${fmt((r.heap.after - r.heap.base) / MB, 2)} (${r.heap.samples} samples)`
          : '') +
        (r.failed ? `  FAILED ${r.failed}: ${r.firstError}` : '');
      const check = (key: string, rs: EntityRun[]): void => {
        const bad = rs.find((r) => r.failed > 0 || r.created !== r.n);
        if (bad)
          notes.push(
            `${key}: ${bad.failed} failed (${bad.firstError ?? ''}), ${fmt(bad.created)} created ` +
              `(expected ${fmt(bad.n)})`,
          );
      };
      const times = await runRounds(contenders, opts, describe);
      for (const [key, rs] of times) check(key, rs);
      const time = (k: string): number => med(times.get(k), (r) => r.elapsedMs);
      const reqPerRow = med(times.get('ours'), (r) => r.requests / r.n);
      const rows = contenders.map((c) => {
        const rs = times.get(c.key)!;
        const inFlight = c.key === 'ours/each' ? 1 : CONCURRENCY;
        return [
          c.label,
          fmt(time(c.key)),
          fmt((med(rs, (r) => r.requests) * LATENCY_MS) / inFlight),
          fmt(med(rs, (r) => r.n / (r.elapsedMs / 1000))),
          fmt(
            med(rs, (r) => r.requests / r.n),
            1,
          ),
          fmt(med(rs, (r) => (r.cpuMs / r.n) * 1000)),
          fmt(med(rs, (r) => (r.simCpuMs / r.elapsedMs) * 100)),
          fmtRatio(ratio(time(c.key), time('client'))),
        ];
      });
      const speedup = ratio(time('ours/each'), time('ours'));
      const vsClient = ratio(time('ours'), time('client'));
      targets.push({
        what: `${fmt(n)} rows of create-or-update in one message (concurrency ${CONCURRENCY}): speed-up over one message per row`,
        goal: '≥ 3×',
        measured: fmtRatio(speedup),
        pass: Number.isFinite(speedup) ? speedup >= 3 : undefined,
      });
      targets.push({
        what: `${fmt(n)} rows in one message: time ours ÷ the platform client called directly`,
        goal: '≤ 1.10',
        measured: fmtRatio(vsClient),
        pass: Number.isFinite(vsClient) ? vsClient <= 1.1 : undefined,
      });
      sections.push(
        `### ${fmt(n)} rows of create-or-update\n\nEach run creates ${fmt(n)} new devices (\`{name, profile: ` +
          `'${PROFILE}', label}\`, names new in every run) with operation *create or update*. "One message": ` +
          `\`msg.payload\` = the list of ${fmt(n)} rows into tb-entity (concurrency ${CONCURRENCY}); time = from the ` +
          'message entering the node until its one output (a result per row, in order) reaches the sink. "One ' +
          `message per row": ${fmt(n)} messages of one row into the same node, each sent once the previous one's ` +
          "output reached the sink (what a flow without the bulk does). The platform client: the package's own " +
          'client (`dist/platform`) in a process without Node-RED, `entities.save(row, "upsert")` (the profile ' +
          'names read once for the list, as the node does) from a pool of ' +
          `${CONCURRENCY} workers, logged in before the clock starts. The simulator waits ${LATENCY_MS} ms before ` +
          `handling each request (\`--latency ${LATENCY_MS}\`); "latency floor" = requests × ${LATENCY_MS} ms ÷ ` +
          `requests in flight. ${roundsText(opts, opts.rounds)}`,
        '',
        table(
          [
            'contender',
            `total ms (${fmt(n)} rows)`,
            'latency floor ms',
            'rows/s',
            'requests/row',
            'client CPU µs/row',
            'simulator CPU %',
            '÷ platform client',
          ],
          rows,
        ),
      );
      notes.push(
        `requests per row (ours, one message): ${fmt(reqPerRow, 1)} — the profile check (the tenant's profile ` +
          'names), the look-up by name, the create',
      );
    } finally {
      await pool.stopAll();
    }

    // -----------------------------------------------------------------------------------------------------------
    // Heap of the one-message run, in a fresh process
    // -----------------------------------------------------------------------------------------------------------
    const heapRun = async (): Promise<EntityRun> => {
      const agent = await startAgent(sim.url, { nodeRed: true, cpuProfDir: opts.profileDir });
      try {
        await agent.call('deploy', { flows: benchFlow(sim.url, entityNode()) });
        const run = (heap: boolean, count: number): Promise<EntityRun> =>
          agent.call<EntityRun>(
            'task',
            {
              name: 'nodeEntities',
              args: {
                entry: 'entry',
                sink: 'sink_out',
                errSink: 'sink_err',
                prefix: prefix('heap'),
                n: count,
                profile: PROFILE,
                bulk: true,
                heap,
                timeoutMs: 600000,
              },
            },
            660000,
          );
        await run(false, Math.min(HEAP_WARMUP, Math.floor(n / 2)));
        return await run(true, n);
      } finally {
        await agent.stop();
      }
    };
    const heapContenders = selected<EntityRun>(
      [{ key: 'ours@heap', label: `ours (tb-entity, one message, concurrency ${CONCURRENCY})`, run: heapRun }],
      opts,
    );
    opts.log(`  scenario 9b: heap of the one-message run of ${fmt(n)} rows, a fresh process per measurement`);
    const heaps = await runRounds(heapContenders, { ...opts, rounds: heapRounds }, describe9b);
    for (const [key, rs] of heaps) {
      const bad = rs.find((r) => r.failed > 0 || r.created !== r.n);
      if (bad) notes.push(`${key}: ${bad.failed} failed (${bad.firstError ?? ''})`);
    }
    const hs = heaps.get('ours@heap');
    const hm = (f: (h: NonNullable<EntityRun['heap']>) => number): number => med(hs, (r) => (r.heap ? f(r.heap) : NaN));
    const perRow = hm((h) => (h.after - h.base) / n);
    const beyond = hm((h) => h.peak - h.after);
    if (hs?.length) {
      targets.push({
        what: `${fmt(n)} rows in one message: heap growth per row (after − before, the result list held)`,
        goal: '≤ 4 KB/row',
        measured: `${fmt(perRow)} B/row`,
        pass: Number.isFinite(perRow) ? perRow <= 4096 : undefined,
      });
      targets.push({
        what: `${fmt(n)} rows in one message: heap beyond the result list (peak during − after)`,
        goal: '≤ 1 MB',
        measured: `${fmt(beyond / 1024)} KB`,
        pass: Number.isFinite(beyond) ? beyond <= MB : undefined,
      });
      sections.push(
        '',
        `### Heap of the one-message run\n\nThe one-message run of ${fmt(n)} rows in a fresh process, after a run of ` +
          `${fmt(Math.min(HEAP_WARMUP, Math.floor(n / 2)))} rows that loads and compiles what it uses. heapUsed ` +
          'after a full GC: "before" with the list of rows built; "peak during" = the largest of the samples taken at ' +
          'each progress status the node shows (every 5 % of the rows); "after" = when the output arrives, its ' +
          'result list still held. After − before, per row: what a row costs (its result: the entity as the server ' +
          'answered it); beyond the result list = peak during − after: what the run holds besides its results ' +
          `(rows in flight, pending promises), which must not grow with the rows. ${roundsText(opts, heapRounds)}`,
        '',
        table(
          [
            'contender',
            'rows',
            'heap before MB',
            'peak during − before MB',
            'after − before MB',
            'after − before, bytes/row',
            'beyond the result list KB',
            'total ms',
          ],
          heapContenders.map((c) => [
            c.label,
            fmt(n),
            fmt(
              hm((h) => h.base / MB),
              1,
            ),
            fmt(
              hm((h) => (h.peak - h.base) / MB),
              2,
            ),
            fmt(
              hm((h) => (h.after - h.base) / MB),
              2,
            ),
            fmt(perRow),
            fmt(beyond / 1024),
            fmt(med(hs, (r) => r.elapsedMs)),
          ]),
        ),
      );
    }
    const markdown = [...sections, '', targetsTable(targets)].join('\n');
    return { id: 9, title: 'Entities in bulk (tb-entity create or update)', markdown, targets, notes };
  } finally {
    await sim.stop();
  }
}

function describe9b(r: EntityRun): string {
  return (
    `${fmt(r.elapsedMs)} ms  ${fmt(r.created)}/${fmt(r.n)} created` +
    (r.heap
      ? `  heap base ${fmt(r.heap.base / MB, 1)} MB, peak +${fmt((r.heap.peak - r.heap.base) / MB, 2)}, after ` +
        `+${fmt((r.heap.after - r.heap.base) / MB, 2)} (${r.heap.samples} samples)`
      : '') +
    (r.failed ? `  FAILED ${r.failed}: ${r.firstError}` : '')
  );
}
