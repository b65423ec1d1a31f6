/**
 * Scenario 6: acting on devices. Against a simulator that answers every request after 5 ms:
 * - a bulk attribute save (SHARED_SCOPE) to 1,000 devices in one message through tb-attributes at concurrency 4, the
 *   same at concurrency 1 (one at a time), and raw axios (keep-alive, the same requests) with 4 and 1 workers;
 * - the heap of that bulk save with 1,000 and with 10,000 entities: it must stay flat beyond the result list;
 * - (without the 5 ms) a history of 100,000 points of one key read in pages of 100 points: tb-telemetry (flat and
 *   raw output, and at its default page size) and raw axios paging; time and peak RSS, a fresh process each.
 */
import { startSim, SimProcess } from '../../sim/process';
import type { BulkRun, HistoryRun } from '../agent/actions';
import { AgentPool, startAgent } from '../lib/agent';
import { benchFlow, FlowNode, login, RunOptions, roundsText, ScenarioResult, sink, Target } from '../lib/common';
import { table, targetsTable } from '../lib/markdown';
import { Contender, med, runRounds, selected } from '../lib/rounds';
import { fmt, fmtMs, fmtRatio, ratio } from '../lib/stats';

const MB = 1024 * 1024;
const LATENCY_MS = 5;
const CONCURRENCY = 4;
const SCOPE = 'SHARED_SCOPE';
const VALUES = { targetTemperature: 21.5, mode: 'eco' };
const HISTORY_KEY = 'benchSeries';
const HISTORY_T0 = Date.UTC(2025, 0, 1);
const HISTORY_STEP_MS = 1000;
const HISTORY_PAGE = 100;
/**
 * Entities of the bulk that runs before a heap measurement, in the same process (at most half the smaller size):
 * enough requests for V8 to compile the hot path, so that its optimised code (~1 MB) is in the heap before the
 * measurement starts.
 */
const HEAP_WARMUP = 500;

/** The ids of the first `count` bench devices (by name), through the entity query. */
async function benchIds(sim: SimProcess, token: string, count: number): Promise<string[]> {
  const res = await fetch(`${sim.url}/api/entitiesQuery/find`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', 'X-Authorization': `Bearer ${token}` },
    body: JSON.stringify({
      entityFilter: { type: 'deviceType', deviceTypes: ['bench'] },
      pageLink: {
        page: 0,
        pageSize: count,
        sortOrder: { key: { type: 'ENTITY_FIELD', key: 'name' }, direction: 'ASC' },
      },
    }),
  });
  if (!res.ok) throw new Error(`bench device ids: HTTP ${res.status}`);
  const ids = ((await res.json()) as { data: Array<{ entityId: { id: string } }> }).data.map((d) => d.entityId.id);
  if (ids.length < count) throw new Error(`only ${ids.length} bench devices (expected ${count})`);
  return ids;
}

/** `points` points of HISTORY_KEY on one device, one second apart, saved over REST in chunks. */
async function seedHistory(sim: SimProcess, token: string, deviceId: string, points: number): Promise<void> {
  const chunk = 10000;
  for (let from = 0; from < points; from += chunk) {
    const body = [];
    for (let i = from; i < Math.min(points, from + chunk); i++)
      body.push({ ts: HISTORY_T0 + i * HISTORY_STEP_MS, values: { [HISTORY_KEY]: 20 + (i % 1000) / 10 } });
    const res = await fetch(`${sim.url}/api/plugins/telemetry/DEVICE/${deviceId}/timeseries/ANY`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', 'X-Authorization': `Bearer ${token}` },
      body: JSON.stringify(body),
    });
    if (!res.ok) throw new Error(`seeding the history: HTTP ${res.status} ${(await res.text()).slice(0, 200)}`);
  }
}

function attributesNode(concurrency: number): FlowNode[] {
  return [
    {
      id: 'entry',
      type: 'tb-attributes',
      connection: 'conn',
      operation: 'save',
      scope: SCOPE,
      target: '',
      targetType: 'auto',
      targetEntityType: 'DEVICE',
      keys: '',
      format: 'flat',
      concurrency,
      version: 1,
      wires: [['sink_out']],
    },
    sink('sink_out'),
  ];
}

function telemetryHistoryNode(format: 'flat' | 'raw', maxItems: number): FlowNode[] {
  return [
    {
      id: 'entry',
      type: 'tb-telemetry',
      connection: 'conn',
      operation: 'history',
      target: '',
      targetType: 'auto',
      targetEntityType: 'DEVICE',
      keys: HISTORY_KEY,
      agg: 'NONE',
      order: 'ASC',
      maxItems,
      format,
      concurrency: 4,
      version: 1,
      wires: [['sink_out']],
    },
    sink('sink_out'),
  ];
}

interface HistoryCell extends HistoryRun {
  baseRss: number;
  peakRss: number;
}

export async function scenario6(opts: RunOptions): Promise<ScenarioResult> {
  const n = opts.quick ? 100 : 1000;
  const heapSizes: [number, number] = opts.quick ? [100, 1000] : [1000, 10000];
  const points = opts.quick ? 5000 : 100000;
  const heapRounds = Math.min(opts.rounds, 2);
  const historyRounds = Math.min(opts.rounds, 3);
  const sim = await startSim([
    '--extra-devices',
    String(heapSizes[1]),
    '--latency',
    String(LATENCY_MS),
    '--history-limit',
    String(points),
  ]);
  const notes: string[] = [];
  const targets: Target[] = [];
  const sections: string[] = [];
  try {
    const token = await login(sim.url);
    const ids = await benchIds(sim, token, heapSizes[1]);
    const pool = new AgentPool(sim.url, opts.profileDir);
    try {
      // ---------------------------------------------------------------------------------------------------------
      // Bulk attribute save: time
      // ---------------------------------------------------------------------------------------------------------
      const deployed = new Set<string>();
      const nodeAgent = async (key: string, concurrency: number) => {
        const agent = await pool.get(key);
        if (!deployed.has(key)) {
          deployed.add(key);
          await agent.call('deploy', { flows: benchFlow(sim.url, attributesNode(concurrency)) });
        }
        return agent;
      };
      const ours = (
        key: string,
        label: string,
        concurrency: number,
        count: number,
        heap: boolean,
      ): Contender<BulkRun> => ({
        key,
        label,
        run: async () =>
          (await nodeAgent(key.split('@')[0], concurrency)).call<BulkRun>(
            'task',
            {
              name: 'nodeBulk',
              args: {
                entry: 'entry',
                sink: 'sink_out',
                errSink: 'sink_err',
                ids: ids.slice(0, count),
                values: VALUES,
                heap,
                timeoutMs: 600000,
              },
            },
            660000,
          ),
      });
      const ax = (
        key: string,
        label: string,
        concurrency: number,
        variant: 'default' | 'noRedirect',
        count: number,
        heap: boolean,
      ): Contender<BulkRun> => ({
        key,
        label,
        run: async () =>
          (await pool.get(key.split('@')[0], { nodeRed: false })).call<BulkRun>(
            'task',
            {
              name: 'axiosBulk',
              args: {
                token,
                ids: ids.slice(0, count),
                values: VALUES,
                scope: SCOPE,
                concurrency,
                variant,
                heap,
                timeoutMs: 600000,
              },
            },
            660000,
          ),
      });
      const saveContenders = selected(
        [
          ours('ours', `ours (tb-attributes, concurrency ${CONCURRENCY})`, CONCURRENCY, n, false),
          ours('ours/c1', 'ours (tb-attributes, concurrency 1)', 1, n, false),
          ax('axios', `raw axios (keep-alive, defaults), ${CONCURRENCY} workers`, CONCURRENCY, 'default', n, false),
          ax(
            'axios-nr',
            `raw axios (keep-alive, maxRedirects 0), ${CONCURRENCY} workers`,
            CONCURRENCY,
            'noRedirect',
            n,
            false,
          ),
          ax('axios/c1', 'raw axios (keep-alive, defaults), one at a time', 1, 'default', n, false),
        ],
        opts,
      );
      const concurrencyOf = (key: string): number => (key.endsWith('/c1') ? 1 : CONCURRENCY);
      await pool.prestart(saveContenders.map((c) => [c.key, { nodeRed: c.key.startsWith('ours') }]));
      opts.log(
        `  scenario 6a: bulk save of ${SCOPE} attributes to ${fmt(n)} devices in one message, server answering ` +
          `after ${LATENCY_MS} ms`,
      );
      const describeBulk = (r: BulkRun): string =>
        `${fmt(r.elapsedMs)} ms  ${fmt(r.ok)}/${fmt(r.n)} ok  ${fmt(r.requests)} ` +
        `requests${
          r.heap
            ? `  heap base ${fmt(r.heap.base / MB, 1)} MB, peak +${fmt((r.heap.peak - r.heap.base) / MB, 2)}, after ` +
              `+${fmt((r.heap.after - r.heap.base) / MB, 2)} (${r.heap.samples} samples)`
            : ''
        }${r.failed ? `  FAILED ${r.failed}: ${r.firstError}` : ''}`;
      const saves = await runRounds(saveContenders, opts, describeBulk);
      const checkBulk = (key: string, rs: BulkRun[], count: number): void => {
        const bad = rs.find((r) => r.failed > 0 || r.ok !== count || r.requests !== count);
        if (bad)
          notes.push(
            `${key}: ${bad.failed} failed (${bad.firstError ?? ''}), ${fmt(bad.ok)} ok, ${fmt(bad.requests)} ` +
              `requests (expected ${fmt(count)})`,
          );
      };
      for (const [key, rs] of saves) checkBulk(key, rs, n);
      const time = (k: string): number => med(saves.get(k), (r) => r.elapsedMs);
      const saveRows = saveContenders.map((c) => {
        const rs = saves.get(c.key)!;
        const floor = (n * LATENCY_MS) / concurrencyOf(c.key);
        return [
          c.label,
          fmt(time(c.key)),
          fmt(floor),
          fmt(med(rs, (r) => r.n / (r.elapsedMs / 1000))),
          fmt(med(rs, (r) => (r.cpuMs / r.n) * 1000)),
          fmt(med(rs, (r) => (r.simCpuMs / r.elapsedMs) * 100)),
        ];
      });
      const speedup = ratio(time('ours/c1'), time('ours'));
      const vsAxios = ratio(time('ours'), time('axios'));
      const vsAxiosNr = ratio(time('ours'), time('axios-nr'));
      targets.push({
        what:
          `bulk save to ${fmt(n)} devices (${LATENCY_MS} ms server): ours at concurrency ${CONCURRENCY}, speed-up ` +
          'over one at a time',
        goal: '≥ 3×',
        measured: fmtRatio(speedup),
        pass: Number.isFinite(speedup) ? speedup >= 3 : undefined,
      });
      targets.push({
        what: `bulk save to ${fmt(n)} devices at concurrency ${CONCURRENCY}: time ours ÷ raw axios (defaults)`,
        goal: '≤ 1.10',
        measured: fmtRatio(vsAxios),
        pass: Number.isFinite(vsAxios) ? vsAxios <= 1.1 : undefined,
      });
      targets.push({
        what: `bulk save to ${fmt(n)} devices at concurrency ${CONCURRENCY}: time ours ÷ raw axios (maxRedirects 0)`,
        goal: '≤ 1.10',
        measured: fmtRatio(vsAxiosNr),
        pass: Number.isFinite(vsAxiosNr) ? vsAxiosNr <= 1.1 : undefined,
      });
      notes.push(
        `raw axios: ${CONCURRENCY} workers ÷ one at a time = ${fmtRatio(ratio(time('axios/c1'), time('axios')))} ` +
          `speed-up; "latency floor" = ${fmt(n)} × ${LATENCY_MS} ms ÷ requests in flight, what the server's wait ` +
          'alone costs',
      );
      sections.push(
        `### Bulk attribute save\n\nOne message with \`msg.entity\` = ${fmt(n)} device ids (\`{entityType, id}\`) ` +
          `and \`msg.payload\` = ${JSON.stringify(VALUES).replace(/"/g, "'")} into tb-attributes (save, ${SCOPE}); ` +
          `time = from the message entering the node until its one output message (the ${fmt(n)} results in input ` +
          `order) reaches the sink. Raw axios: the same ${fmt(n)} \`POST …/DEVICE/{id}/attributes/${SCOPE}\` ` +
          'requests from a pool of workers, results kept in input order, no Node-RED. The simulator ' +
          `waits ${LATENCY_MS} ms (a timer) before handling each request ` +
          `(\`--latency ${LATENCY_MS}\`). ${roundsText(opts, opts.rounds)}`,
        '',
        table(
          [
            'contender',
            `total ms (${fmt(n)} saves)`,
            'latency floor ms',
            'saves/s',
            'client CPU µs/save',
            'simulator CPU %',
          ],
          saveRows,
        ),
      );

      // ---------------------------------------------------------------------------------------------------------
      // Bulk attribute save: heap, 1,000 vs 10,000 entities
      // ---------------------------------------------------------------------------------------------------------
      // A fresh process per measurement: Node-RED keeps a flow's last message alive until the next one goes through
      // (a plain function node does the same), so a run after a bigger one would start with the bigger one's result
      // list in its heap. A smaller bulk first loads and compiles everything the measured run uses.
      const warmup = Math.min(HEAP_WARMUP, Math.floor(heapSizes[0] / 2));
      const heapRun = async (key: string, size: number): Promise<BulkRun> => {
        const raw = key === 'axios';
        const agent = await startAgent(sim.url, { nodeRed: !raw, cpuProfDir: opts.profileDir });
        try {
          const args = { ids: ids.slice(0, size), values: VALUES, timeoutMs: 600000 };
          const run = (heap: boolean, count: number): Promise<BulkRun> =>
            raw
              ? agent.call<BulkRun>(
                  'task',
                  {
                    name: 'axiosBulk',
                    args: {
                      ...args,
                      ids: ids.slice(0, count),
                      token,
                      scope: SCOPE,
                      concurrency: CONCURRENCY,
                      variant: 'default',
                      heap,
                    },
                  },
                  660000,
                )
              : agent.call<BulkRun>(
                  'task',
                  {
                    name: 'nodeBulk',
                    args: {
                      ...args,
                      ids: ids.slice(0, count),
                      entry: 'entry',
                      sink: 'sink_out',
                      errSink: 'sink_err',
                      heap,
                    },
                  },
                  660000,
                );
          if (!raw) await agent.call('deploy', { flows: benchFlow(sim.url, attributesNode(CONCURRENCY)) });
          await run(false, warmup);
          return await run(true, size);
        } finally {
          await agent.stop();
        }
      };
      const heapContenders = selected<BulkRun>(
        heapSizes.flatMap((size) => [
          {
            key: `ours@${size}`,
            label: `ours (tb-attributes, concurrency ${CONCURRENCY})`,
            run: () => heapRun('ours', size),
          },
          {
            key: `axios@${size}`,
            label: `raw axios (keep-alive, defaults), ${CONCURRENCY} workers`,
            run: () => heapRun('axios', size),
          },
        ]),
        opts,
      );
      opts.log(`  scenario 6b: heap of the bulk save, ${heapSizes.map((s) => fmt(s)).join(' vs ')} entities`);
      const heaps = await runRounds(heapContenders, { ...opts, rounds: heapRounds }, describeBulk);
      for (const [key, rs] of heaps) checkBulk(key, rs, Number(key.split('@')[1]));
      const hm = (k: string, f: (h: NonNullable<BulkRun['heap']>) => number): number =>
        med(heaps.get(k), (r) => (r.heap ? f(r.heap) : NaN));
      const heapRows = heapContenders.map((c) => {
        const size = Number(c.key.split('@')[1]);
        return [
          c.label,
          fmt(size),
          fmt(
            hm(c.key, (h) => h.base / MB),
            1,
          ),
          fmt(
            hm(c.key, (h) => (h.peak - h.base) / MB),
            2,
          ),
          fmt(
            hm(c.key, (h) => (h.after - h.base) / MB),
            2,
          ),
          fmt(hm(c.key, (h) => (h.after - h.base) / size)),
          fmt(hm(c.key, (h) => (h.peak - h.after) / 1024)),
          fmt(med(heaps.get(c.key), (r) => r.elapsedMs)),
        ];
      });
      const beyond = (k: string): number => hm(k, (h) => h.peak - h.after);
      const growth = beyond(`ours@${heapSizes[1]}`) - beyond(`ours@${heapSizes[0]}`);
      targets.push({
        what:
          `bulk save heap beyond the result list (peak during − after, with the results held), ${fmt(heapSizes[0])} ` +
          `→ ${fmt(heapSizes[1])} entities (ours)`,
        goal: 'flat (≤ +1 MB)',
        measured: Number.isFinite(growth) ? `${growth >= 0 ? '+' : '−'}${fmt(Math.abs(growth) / 1024)} KB` : '—',
        pass: Number.isFinite(growth) ? growth <= MB : undefined,
      });
      sections.push(
        '',
        `### Heap of a bulk save: ${fmt(heapSizes[0])} vs ${fmt(heapSizes[1])} entities\n\nThe same bulk save ` +
          `with ${heapSizes.map((s) => fmt(s)).join(' and ')} devices, each measurement in a fresh process, after a ` +
          `bulk save to ${fmt(Math.min(HEAP_WARMUP, Math.floor(heapSizes[0] / 2)))} of the devices that loads and ` +
          'compiles what the run uses. heapUsed after a full GC: "before" with the input message built; "peak ' +
          'during" = the largest of ~20 samples taken while the save runs (ours: at each progress status the node ' +
          'shows, every 5 % of the entities; axios: every 5 % of the completions), each after a full GC; "after" = ' +
          'when the output arrives, with the result list still held (after − before: the result list, plus whatever ' +
          'V8 compiled during the run). Heap beyond the result list = peak during − after: what the save holds ' +
          'besides its results (per-entity state kept until the end, requests in flight, pending promises); it must ' +
          "not grow with the entity count. The samples' GCs make these runs slower than the timed " +
          `ones. ${roundsText(opts, heapRounds)}`,
        '',
        table(
          [
            'contender',
            'entities',
            'heap before MB',
            'peak during − before MB',
            'after − before MB',
            'after − before, bytes/entity',
            'beyond the result list KB',
            'total ms',
          ],
          heapRows,
        ),
      );
    } finally {
      await pool.stopAll();
    }

    // -----------------------------------------------------------------------------------------------------------
    // History of 100,000 points, 100-point pages
    // -----------------------------------------------------------------------------------------------------------
    await sim.post('/__sim/latency', { ms: 0 });
    const device = ids[0];
    await seedHistory(sim, token, device, points);
    const endTs = HISTORY_T0 + points * HISTORY_STEP_MS;
    const maxItems = points * 2;
    const historyMsg = { entity: { entityType: 'DEVICE', id: device }, from: HISTORY_T0, to: endTs };
    const measureHistory = async (key: string): Promise<HistoryCell> => {
      const raw = key === 'axios';
      const pageSetting = key === 'ours/p10000' ? {} : { tbConnectionHistoryPageSize: HISTORY_PAGE };
      const agent = await startAgent(sim.url, {
        nodeRed: !raw,
        cpuProfDir: opts.profileDir,
        settings: raw ? undefined : pageSetting,
      });
      try {
        if (!raw)
          await agent.call('deploy', {
            flows: benchFlow(sim.url, telemetryHistoryNode(key === 'ours-raw' ? 'raw' : 'flat', maxItems)),
          });
        const base = await agent.call<{ rss: number }>('memory', { gc: true, resetPeak: true });
        const r = raw
          ? await agent.call<HistoryRun>(
              'task',
              {
                name: 'axiosHistory',
                args: {
                  token,
                  deviceId: device,
                  key: HISTORY_KEY,
                  startTs: HISTORY_T0,
                  endTs,
                  pageSize: HISTORY_PAGE,
                  timeoutMs: 600000,
                },
              },
              660000,
            )
          : await agent.call<HistoryRun>(
              'task',
              {
                name: 'nodeHistory',
                args: {
                  entry: 'entry',
                  sink: 'sink_out',
                  errSink: 'sink_err',
                  msg: historyMsg,
                  deviceId: device,
                  timeoutMs: 600000,
                },
              },
              660000,
            );
        const after = await agent.call<{ peakRss: number }>('memory', {});
        return { ...r, baseRss: base.rss, peakRss: after.peakRss };
      } finally {
        await agent.stop();
      }
    };
    const historyContenders = selected<HistoryCell>(
      [
        {
          key: 'ours',
          label: `ours (tb-telemetry history, flat rows, pages of ${HISTORY_PAGE})`,
          run: () => measureHistory('ours'),
        },
        {
          key: 'ours-raw',
          label: `ours (tb-telemetry history, raw, pages of ${HISTORY_PAGE})`,
          run: () => measureHistory('ours-raw'),
        },
        {
          key: 'ours/p10000',
          label: 'ours (tb-telemetry history, flat rows, default pages of 10,000)',
          run: () => measureHistory('ours/p10000'),
        },
        {
          key: 'axios',
          label: `raw axios paging (keep-alive, pages of ${HISTORY_PAGE}), no Node-RED`,
          run: () => measureHistory('axios'),
        },
      ],
      opts,
    );
    opts.log(
      `  scenario 6c: history of ${fmt(points)} points, pages of ${HISTORY_PAGE}, a fresh process per measurement`,
    );
    const hist = await runRounds(
      historyContenders,
      { ...opts, rounds: historyRounds },
      (r) =>
        `${fmt(r.elapsedMs)} ms  ${fmt(r.points)} points in ${fmt(r.requests)} requests  peak ` +
        `RSS ${fmt(r.peakRss / MB)} MB ` +
        `(base ${fmt(r.baseRss / MB)})${r.truncated ? '  TRUNCATED' : ''}${r.errors ? `  ERROR ${r.firstError}` : ''}`,
    );
    for (const [key, rs] of hist) {
      const bad = rs.find((r) => r.errors > 0 || r.points !== points || r.truncated);
      if (bad)
        notes.push(
          `${key}: ${bad.errors} errors (${bad.firstError ?? ''}), ${fmt(bad.points)} points ` +
            `(expected ${fmt(points)})${bad.truncated ? ', truncated' : ''}`,
        );
    }
    const histRows = historyContenders.map((c) => {
      const rs = hist.get(c.key)!;
      return [
        c.label,
        fmt(med(rs, (r) => r.elapsedMs)),
        fmt(med(rs, (r) => r.points / (r.elapsedMs / 1000))),
        fmt(med(rs, (r) => r.requests)),
        fmtMs(med(rs, (r) => r.elapsedMs / r.requests)),
        fmt(med(rs, (r) => r.peakRss / MB)),
        fmt(med(rs, (r) => (r.peakRss - r.baseRss) / MB)),
        fmt(med(rs, (r) => r.cpuMs)),
      ];
    });
    const oursHist = hist.get('ours');
    const allRead = oursHist?.length
      ? oursHist.every((r) => r.points === points && !r.truncated && r.errors === 0)
      : undefined;
    const pages = med(oursHist, (r) => r.requests);
    // A full last page may have more after it: one more (empty) request ends the range, for ours and for axios alike.
    const maxPages = Math.ceil(points / HISTORY_PAGE) + 1;
    targets.push({
      what:
        `history of ${fmt(points)} points in ${HISTORY_PAGE}-point pages (ours, flat): every point, ` +
        `page after page`,
      goal: `${fmt(points)} points in ≤ ${fmt(maxPages)} requests`,
      measured: oursHist?.length ? `${fmt(med(oursHist, (r) => r.points))} in ${fmt(pages)}` : '—',
      pass: allRead === undefined ? undefined : allRead && pages <= maxPages,
    });
    const ht = (k: string): number => med(hist.get(k), (r) => r.elapsedMs);
    notes.push(
      `history time ours ÷ raw axios: ${fmtRatio(ratio(ht('ours'), ht('axios')))} (flat ` +
        `rows), ${fmtRatio(ratio(ht('ours-raw'), ht('axios')))} (raw) — lower is faster; ours at its default page ` +
        `size (10,000) ÷ ours at 100: ${fmtRatio(ratio(ht('ours/p10000'), ht('ours')))}`,
    );
    sections.push(
      '',
      `### History of ${fmt(points)} points\n\nOne key of one device holding ${fmt(points)} points (one per second), ` +
        `read over its whole range, oldest first, in pages of ${HISTORY_PAGE} points (the server's default limit): ` +
        `tb-telemetry (operation history, \`tbConnectionHistoryPageSize: ${HISTORY_PAGE}\`, ` +
        `maxItems ${fmt(maxItems)}) with flat output (rows \`{ts, ${HISTORY_KEY}}\`) or raw (\`{${HISTORY_KEY}: ` +
        '[{ts, value}]}`), and once at its default page size; raw axios: the same requests page after page, every ' +
        `point pushed into one array. Without the ${LATENCY_MS} ms wait (the simulator answers at once), so that the ` +
        "client's own cost shows. Each measurement in a fresh process: peak RSS is its high-water mark during the " +
        'read (reset after start-up, deploy and a GC); "base" is the RSS just ' +
        `before. ${roundsText(opts, historyRounds)}`,
      '',
      table(
        [
          'contender',
          'total ms',
          'points/s',
          'requests',
          'ms/request',
          'peak RSS MB',
          'peak − base MB',
          'client CPU ms',
        ],
        histRows,
      ),
    );

    const markdown = [...sections, '', targetsTable(targets)].join('\n');
    return { id: 6, title: 'Acting on devices (bulk attribute save, history)', markdown, targets, notes };
  } finally {
    await sim.stop();
  }
}
