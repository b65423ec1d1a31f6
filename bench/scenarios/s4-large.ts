/**
 * Scenario 4: large results. allPages over 1,000, 10,000 and 100,000 bench devices (pages of 1,000), with and without
 * split: total time and peak RSS. Every measurement runs in a fresh agent process (Node-RED with only that contender's
 * flow; the raw client in a process without Node-RED), so that the peak RSS is that contender's alone: after start-up
 * and deploy the process is garbage-collected and its peak-RSS counter reset (/proc/self/clear_refs), then the query
 * runs once, cold.
 */
import { startSim } from '../../sim/process';
import type { LargeResult } from '../agent/query-load';
import { startAgent } from '../lib/agent';
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
import { table, targetsTable } from '../lib/markdown';
import { Contender, med, runRounds, selected } from '../lib/rounds';
import { fmt } from '../lib/stats';

interface Mem {
  rss: number;
  heapUsed: number;
  peakRss: number;
}

interface Cell extends LargeResult {
  baseRss: number;
  peakRss: number;
}

const MB = 1024 * 1024;

/** The sizes of the allPages + split table (entities); the largest also gets every contender. */
const SIZES = [1000, 10000, 100000];
const PAGE_SIZE = 1000;
const QUICK_SIZES = [1000, 5000];
/**
 * allPages + split before a parsed answer's bytes were let go at once (commit 3d79145, this scenario run from that
 * commit's build on the same machine, medians of 3): total ms, peak − base MB.
 */
const BEFORE: Record<number, string> = { 1000: '45 ms, 5 MB', 10000: '228 ms, 19 MB', 100000: '1,470 ms, 79 MB' };

interface SizeRun {
  total: number;
  chosen: Array<Contender<Cell>>;
  res: Map<string, Cell[]>;
}

/** allPages over `total` bench devices for the chosen contenders (`keys`: only these), each in a fresh process. */
async function runAt(
  total: number,
  keys: string[] | undefined,
  opts: RunOptions,
  rounds: number,
  notes: string[],
): Promise<SizeRun> {
  const pageSize = PAGE_SIZE;
  const sim = await startSim(['--extra-devices', String(total)]);
  try {
    const token = await login(sim.url);
    const query = benchQuery(pageSize);
    const findUrl = `${sim.url}/api/entitiesQuery/find`;
    const headers = `{ 'Content-Type': 'application/json', 'X-Authorization': 'Bearer ' + ${JSON.stringify(token)} }`;

    const flowFor = (key: string, split: boolean): FlowNode[] => {
      switch (key) {
        case 'ours':
          return [
            {
              id: 'entry',
              type: 'tb-entity-query',
              connection: 'conn',
              operation: 'find',
              query: JSON.stringify(query),
              queryType: 'json',
              format: 'flat',
              allPages: true,
              maxItems: total * 2,
              split,
              wires: [['sink_out']],
            },
            sink('sink_out'),
          ];
        case 'core': {
          const build =
            `const q = ${JSON.stringify(query)};\nq.pageLink.page = msg.pageNo || 0;\nmsg.headers ` +
            `= ${headers};\nmsg.payload = q;\nreturn msg;`;
          const collect = split
            ? 'const page = msg.payload;\nconst out = { payload: page.data };\nif (page.hasNext) { msg.pageNo = ' +
              '(msg.pageNo || 0) + 1; return [msg, out]; }\nreturn [null, out];'
            : 'const page = msg.payload;\nmsg.items = msg.items ? msg.items.concat(page.data) : page.data;\nif ' +
              '(page.hasNext) { msg.pageNo = (msg.pageNo || 0) + 1; return [msg, null]; }\nmsg.payload = ' +
              'msg.items;\ndelete msg.items;\nreturn [null, msg];';
          return [
            functionNode('entry', build, [['core_http']]),
            httpRequestNode('core_http', findUrl, [['core_collect']]),
            functionNode('core_collect', collect, [['entry'], [split ? 'core_split' : 'sink_out']]),
            ...(split
              ? [
                  {
                    id: 'core_split',
                    type: 'split',
                    splt: '\\n',
                    spltType: 'str',
                    arraySplt: 1,
                    arraySpltType: 'len',
                    stream: false,
                    addname: '',
                    wires: [['sink_out']],
                  },
                ]
              : []),
            sink('sink_out'),
          ];
        }
        case 'ref':
          return [
            {
              id: 'entry',
              type: 'bench-ref-query',
              url: findUrl,
              query: JSON.stringify(query),
              allPages: true,
              split,
              credentials: { token },
              wires: [['sink_out']],
            },
            sink('sink_out'),
          ];
        default:
          throw new Error(key);
      }
    };

    const measure = async (key: string, split: boolean): Promise<Cell> => {
      const raw = key === 'axios';
      const agent = await startAgent(sim.url, { nodeRed: !raw, cpuProfDir: opts.profileDir });
      try {
        if (!raw) await agent.call('deploy', { flows: benchFlow(sim.url, flowFor(key, split)) });
        const base = await agent.call<Mem>('memory', { gc: true, resetPeak: true });
        const r = raw
          ? await agent.call<LargeResult>(
              'task',
              { name: 'axiosLarge', args: { url: findUrl, token, query, split, timeoutMs: 600000 } },
              660000,
            )
          : await agent.call<LargeResult>(
              'task',
              {
                name: 'nodeLarge',
                args: { entry: 'entry', sink: 'sink_out', errSink: 'sink_err', expect: total, timeoutMs: 600000 },
              },
              660000,
            );
        const after = await agent.call<Mem>('memory', {});
        return { ...r, baseRss: base.rss, peakRss: after.peakRss };
      } finally {
        await agent.stop();
      }
    };

    const variants: Array<[string, string]> = [
      ['ours', 'ours (tb-entity-query, allPages, flat)'],
      ['axios', 'raw axios (keep-alive), no Node-RED'],
      ['core', 'core flow (function + http request loop)'],
      ['ref', 'reference node (node:http)'],
    ];
    const contenders: Array<Contender<Cell>> = [];
    for (const split of [false, true]) {
      for (const [key, label] of variants) {
        contenders.push({
          key: `${key}${split ? '+split' : ''}`,
          label: `${label}${split ? ' + split' : ''}`,
          run: () => measure(key, split),
        });
      }
    }
    const chosen = selected(contenders, opts).filter((c) => !keys || keys.includes(c.key));
    opts.log(
      `  scenario 4: allPages over ${fmt(total)} bench devices, pages of ${fmt(pageSize)}, a fresh process per ` +
        `measurement, ${rounds} round(s)`,
    );
    const res = await runRounds(
      chosen,
      { ...opts, rounds },
      (r) =>
        `${fmt(r.elapsedMs)} ms  ${fmt(r.items)} items in ${fmt(r.messages)} msg  peak RSS ${fmt(r.peakRss / MB)} MB ` +
        `(base ${fmt(r.baseRss / MB)})${r.errors ? `  ERROR ${r.firstError}` : ''}`,
    );
    for (const [key, rs] of res) {
      const bad = rs.find((r) => r.errors > 0 || r.items !== total);
      if (bad)
        notes.push(
          `${fmt(total)} entities, ${key}: ${bad.errors} errors (${bad.firstError ?? ''}), ${fmt(bad.items)} items ` +
            `(expected ${fmt(total)})`,
        );
    }
    return { total, chosen, res };
  } finally {
    await sim.stop();
  }
}

export async function scenario4(opts: RunOptions): Promise<ScenarioResult> {
  const sizes = opts.quick ? QUICK_SIZES : SIZES;
  const rounds = Math.min(opts.rounds, 3);
  const notes: string[] = [];
  const runs: SizeRun[] = [];
  for (const total of sizes) {
    // the largest size: every contender asked for; the smaller ones: allPages + split, ours and the reference node's
    const largest = total === sizes[sizes.length - 1];
    runs.push(await runAt(total, largest ? undefined : ['ours+split', 'ref+split'], opts, rounds, notes));
  }
  const { total, chosen, res } = runs[runs.length - 1];
  const rows = chosen.map((c) => {
    const rs = res.get(c.key)!;
    return [
      c.label,
      fmt(med(rs, (r) => r.elapsedMs)),
      fmt(med(rs, (r) => r.items / (r.elapsedMs / 1000))),
      fmt(med(rs, (r) => r.messages)),
      fmt(med(rs, (r) => r.peakRss / MB)),
      fmt(med(rs, (r) => (r.peakRss - r.baseRss) / MB)),
      fmt(med(rs, (r) => r.cpuMs)),
    ];
  });
  const sizeRows: string[][] = [];
  for (const run of runs) {
    for (const key of ['ours+split', 'ref+split']) {
      const rs = run.res.get(key);
      if (!rs?.length) continue;
      sizeRows.push([
        fmt(run.total),
        key === 'ours+split' ? 'ours' : 'reference node',
        fmt(med(rs, (r) => r.elapsedMs)),
        fmt(med(rs, (r) => r.peakRss / MB)),
        fmt(med(rs, (r) => (r.peakRss - r.baseRss) / MB)),
        key === 'ours+split' ? (BEFORE[run.total] ?? '—') : '',
      ]);
    }
  }
  const peak = med(res.get('ours+split'), (r) => r.peakRss / MB);
  const above = med(res.get('ours+split'), (r) => (r.peakRss - r.baseRss) / MB);
  const targets: Target[] = [
    {
      what: `allPages + split over ${fmt(total)} entities: peak RSS (ours)`,
      goal: '< 300 MB',
      measured: `${fmt(peak)} MB`,
      pass: Number.isFinite(peak) ? peak < 300 : undefined,
    },
    {
      what: `allPages + split over ${fmt(total)} entities: peak RSS above the baseline (ours)`,
      goal: '< 60 MB',
      measured: `${fmt(above)} MB`,
      pass: Number.isFinite(above) ? above < 60 : undefined,
    },
  ];
  const time = (k: string) => med(res.get(k), (r) => r.elapsedMs);
  if (res.get('ref')?.length && res.get('core')?.length) {
    notes.push(
      `time ours ÷ reference node: ${(time('ours') / time('ref')).toFixed(2)} (no ` +
        `split), ${(time('ours+split') / time('ref+split')).toFixed(2)} (split); ours ÷ core ` +
        `flow: ${(time('ours') / time('core')).toFixed(2)} (no ` +
        `split), ${(time('ours+split') / time('core+split')).toFixed(2)} (split) — lower is faster`,
    );
  }
  const markdown = [
    `allPages over ${fmt(total)} bench devices (2 entity fields, 4 latest values), pages of ${fmt(PAGE_SIZE)}; one ` +
      'message with every item, or one message per item (split). Each measurement in a fresh process: peak RSS is ' +
      'the process\'s high-water mark during the query (reset after start-up, deploy and a GC); "base" is the RSS ' +
      `just before it. The raw client runs in a process without Node-RED. ${roundsText(opts, rounds)}`,
    '',
    table(['contender', 'total ms', 'items/s', 'messages', 'peak RSS MB', 'peak − base MB', 'client CPU ms'], rows),
    '',
    'allPages + split by size (a simulator with that many bench devices each time; "before": the same query before a ' +
      "parsed answer's bytes were let go at once, see src/platform/http.ts releaseBody):",
    '',
    table(['entities', 'contender', 'total ms', 'peak RSS MB', 'peak − base MB', 'before (ms, peak − base)'], sizeRows),
    '',
    targetsTable(targets),
  ].join('\n');
  return { id: 4, title: 'Large results (allPages)', markdown, targets, notes };
}
