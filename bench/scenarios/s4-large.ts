/**
 * Scenario 4: large results. allPages over 100,000 bench devices (pages of 1,000), with and without split:
 * total time and peak RSS. Every measurement runs in a fresh agent process (Node-RED with only that
 * contender's flow; the raw client in a process without Node-RED), so that the peak RSS is that
 * contender's alone: after start-up and deploy the process is garbage-collected and its peak-RSS counter
 * reset (/proc/self/clear_refs), then the query runs once, cold.
 */
import { startAgent } from '../lib/agent';
import { benchFlow, benchQuery, FlowNode, functionNode, httpRequestNode, login, RunOptions, roundsText, ScenarioResult, sink, Target } from '../lib/common';
import { table, targetsTable } from '../lib/markdown';
import { Contender, med, runRounds, selected } from '../lib/rounds';
import { startSim } from '../lib/sim';
import { fmt } from '../lib/stats';
import type { LargeResult } from '../agent/query-load';

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

export async function scenario4(opts: RunOptions): Promise<ScenarioResult> {
  const total = opts.quick ? 5000 : 100000;
  const pageSize = 1000;
  const rounds = Math.min(opts.rounds, 3);
  const sim = await startSim(['--extra-devices', String(total)]);
  const notes: string[] = [];
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
          const build = `const q = ${JSON.stringify(query)};\nq.pageLink.page = msg.pageNo || 0;\nmsg.headers = ${headers};\nmsg.payload = q;\nreturn msg;`;
          const collect = split
            ? `const page = msg.payload;\nconst out = { payload: page.data };\nif (page.hasNext) { msg.pageNo = (msg.pageNo || 0) + 1; return [msg, out]; }\nreturn [null, out];`
            : `const page = msg.payload;\nmsg.items = msg.items ? msg.items.concat(page.data) : page.data;\nif (page.hasNext) { msg.pageNo = (msg.pageNo || 0) + 1; return [msg, null]; }\nmsg.payload = msg.items;\ndelete msg.items;\nreturn [null, msg];`;
          return [
            functionNode('entry', build, [['core_http']]),
            httpRequestNode('core_http', findUrl, [['core_collect']]),
            functionNode('core_collect', collect, [['entry'], [split ? 'core_split' : 'sink_out']]),
            ...(split ? [{ id: 'core_split', type: 'split', splt: '\\n', spltType: 'str', arraySplt: 1, arraySpltType: 'len', stream: false, addname: '', wires: [['sink_out']] }] : []),
            sink('sink_out'),
          ];
        }
        case 'ref':
          return [{ id: 'entry', type: 'bench-ref-query', url: findUrl, query: JSON.stringify(query), allPages: true, split, credentials: { token }, wires: [['sink_out']] }, sink('sink_out')];
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
          ? await agent.call<LargeResult>('task', { name: 'axiosLarge', args: { url: findUrl, token, query, split, timeoutMs: 600000 } }, 660000)
          : await agent.call<LargeResult>('task', { name: 'nodeLarge', args: { entry: 'entry', sink: 'sink_out', errSink: 'sink_err', expect: total, timeoutMs: 600000 } }, 660000);
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
        contenders.push({ key: `${key}${split ? '+split' : ''}`, label: `${label}${split ? ' + split' : ''}`, run: () => measure(key, split) });
      }
    }
    const chosen = selected(contenders, opts);
    opts.log(`  scenario 4: allPages over ${fmt(total)} bench devices, pages of ${fmt(pageSize)}, a fresh process per measurement, ${rounds} round(s)`);
    const res = await runRounds(
      chosen,
      { ...opts, rounds },
      (r) => `${fmt(r.elapsedMs)} ms  ${fmt(r.items)} items in ${fmt(r.messages)} msg  peak RSS ${fmt(r.peakRss / MB)} MB (base ${fmt(r.baseRss / MB)})${r.errors ? `  ERROR ${r.firstError}` : ''}`,
    );
    for (const [key, rs] of res) {
      const bad = rs.find((r) => r.errors > 0 || r.items !== total);
      if (bad) notes.push(`${key}: ${bad.errors} errors (${bad.firstError ?? ''}), ${fmt(bad.items)} items (expected ${fmt(total)})`);
    }
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
    const peak = med(res.get('ours+split'), (r) => r.peakRss / MB);
    const targets: Target[] = [
      {
        what: `allPages + split over ${fmt(total)} entities: peak RSS (ours)`,
        goal: '< 300 MB',
        measured: `${fmt(peak)} MB`,
        pass: Number.isFinite(peak) ? peak < 300 : undefined,
      },
    ];
    const time = (k: string) => med(res.get(k), (r) => r.elapsedMs);
    notes.push(
      `time ours ÷ reference node: ${(time('ours') / time('ref')).toFixed(2)} (no split), ${(time('ours+split') / time('ref+split')).toFixed(2)} (split); ` +
        `ours ÷ core flow: ${(time('ours') / time('core')).toFixed(2)} (no split), ${(time('ours+split') / time('core+split')).toFixed(2)} (split) — lower is faster`,
    );
    const markdown = [
      `allPages over ${fmt(total)} bench devices (2 entity fields, 4 latest values), pages of ${fmt(pageSize)}; ` +
        `one message with every item, or one message per item (split). Each measurement in a fresh process: peak RSS is the ` +
        `process's high-water mark during the query (reset after start-up, deploy and a GC); "base" is the RSS just before it. ` +
        `The raw client runs in a process without Node-RED. ${roundsText(opts, rounds)}`,
      '',
      table(['contender', 'total ms', 'items/s', 'messages', 'peak RSS MB', 'peak − base MB', 'client CPU ms'], rows),
      '',
      targetsTable(targets),
    ].join('\n');
    return { id: 4, title: 'Large results (allPages)', markdown, targets, notes };
  } finally {
    await sim.stop();
  }
}
