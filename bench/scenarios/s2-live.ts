/**
 * Scenario 2: live update throughput. The simulator pushes N entity updates (2 changed keys each: sentAt, seq)
 * round-robin over 1, 100 and 1,000 bench devices as fast as the socket drains (POST /__sim/ws/burst);
 * updates per second delivered at the sink; then, at 100 entities, a paced burst at 1,000 updates/s for the
 * send-to-message delay (p50/p99). One contender is subscribed at a time (its flow alone is deployed).
 */
import { startSim } from '../../sim/process';
import type { BurstRun } from '../agent/live';
import { AgentPool } from '../lib/agent';
import { benchFlow, burstQuery, login, RunOptions, roundsText, ScenarioResult, Target } from '../lib/common';
import { coreLiveFlow, entityDataCmd, oursSubscribe, refLive, sink } from '../lib/live-flows';
import { table, targetsTable } from '../lib/markdown';
import { Contender, med, runRounds, selected } from '../lib/rounds';
import { fmt, fmtMs, fmtRatio, median, ratio } from '../lib/stats';

interface Cell {
  burst: BurstRun;
  paced?: BurstRun;
}

export async function scenario2(opts: RunOptions): Promise<ScenarioResult> {
  const updates = opts.quick ? 2000 : 50000;
  const paced = opts.quick ? 300 : 2000;
  const rate = 1000;
  const sizes = [1, 100, 1000];
  // Nothing here reads history: 100 points per key keep the simulator's heap the same size from the first round to the
  // last (with the default 5,000, 1,000 devices gather up to 10 million points over a run, and the simulator slows as
  // its heap grows: raw ws client at 1,000 entities 120,395 -> 131,837 updates/s with the limit, 8 rounds each,
  // BENCH_PIN=0:1).
  const sim = await startSim(['--extra-devices', '1000', '--history-limit', '100']);
  const notes: string[] = [];
  try {
    const token = await login(sim.url);
    // One process per contender (see AgentPool): the raw client without Node-RED. Between measurements the
    // contender's flow is replaced by an empty one, so only one client is subscribed at a time.
    const pool = new AgentPool(sim.url, opts.profileDir);
    try {
      const empty = benchFlow(sim.url, []);
      const setup = async (key: string, n: number): Promise<string> => {
        const agent = await pool.get(key, { nodeRed: key !== 'raw' });
        const q = burstQuery(n);
        const cmd = entityDataCmd(1, q);
        const sinkId = 'sink_live';
        if (key === 'raw') {
          await agent.call('task', { name: 'rawOpen', args: { token, cmds: [cmd], snapshots: 1, timeoutMs: 30000 } });
          return 'raw';
        }
        const nodes =
          key === 'ours'
            ? [oursSubscribe('sub', q, sinkId)]
            : key === 'core'
              ? coreLiveFlow(sim.url, token, [cmd], sinkId)
              : [refLive('ref', sim.url, token, cmd, sinkId)];
        await agent.call('task', {
          name: 'deployAndWait',
          args: { flows: benchFlow(sim.url, [...nodes, sink(sinkId)]), sink: sinkId, snapshots: 1, timeoutMs: 30000 },
        });
        return sinkId;
      };
      const teardown = async (key: string): Promise<void> => {
        const agent = await pool.get(key);
        if (key === 'raw') await agent.call('task', { name: 'rawClose', args: {} });
        else await agent.call('deploy', { flows: empty });
      };
      const measure = async (key: string, n: number): Promise<Cell> => {
        const sinkId = await setup(key, n);
        const agent = await pool.get(key);
        try {
          const burst = await agent.call<BurstRun>(
            'task',
            { name: 'burst', args: { sink: sinkId, entities: n, updates, keysPerUpdate: 2, timeoutMs: 300000 } },
            320000,
          );
          let pacedRun: BurstRun | undefined;
          if (n === 100) {
            pacedRun = await agent.call<BurstRun>(
              'task',
              {
                name: 'burst',
                args: {
                  sink: sinkId,
                  entities: n,
                  updates: paced,
                  keysPerUpdate: 2,
                  ratePerSec: rate,
                  timeoutMs: 120000,
                },
              },
              130000,
            );
          }
          return { burst, paced: pacedRun };
        } finally {
          await teardown(key);
        }
      };
      const kinds: Array<[string, string]> = [
        ['ours', 'ours (tb-subscribe, flat, merged)'],
        ['raw', 'raw ws client (parse each frame)'],
        ['core', 'core flow (websocket in + function)'],
        ['ref', 'reference node (ws)'],
      ];
      const contenders: Array<Contender<Cell>> = [];
      for (const n of sizes)
        for (const [key, label] of kinds)
          contenders.push({ key: `${key}@${n}`, label: `${label} @${n}`, run: () => measure(key, n) });
      const chosen = selected(contenders, opts);
      await pool.prestart(
        [...new Set(chosen.map((c) => c.key.split('@')[0]))].map((k) => [k, { nodeRed: k !== 'raw' }]),
      );
      opts.log(
        `  scenario 2: ${fmt(updates)} updates per burst over 1, 100, 1,000 entities; delay at ${fmt(rate)}/s ` +
          `with ${fmt(paced)} updates over 100 entities`,
      );
      const res = await runRounds(
        chosen,
        opts,
        (c) =>
          `${fmt(c.burst.perSec)} upd/s (${fmt(c.burst.received)}/${fmt(c.burst.updates)}; ` +
          `sim ${fmt(c.burst.sim.updatesPerSec)}/s, ${c.burst.sim.stalls} stalls)` +
          (c.paced ? `  @${rate}/s delay p50 ${fmtMs(c.paced.delayP50)} p99 ${fmtMs(c.paced.delayP99)} ms` : ''),
      );
      for (const [key, rs] of res) {
        const bad = rs.find(
          (c) => c.burst.received !== c.burst.updates || (c.paced && c.paced.received !== c.paced.updates),
        );
        if (bad) notes.push(`${key}: received ${bad.burst.received} of ${bad.burst.updates} updates`);
      }
      const perSec = (k: string) => med(res.get(k), (c) => c.burst.perSec);
      const rows: string[][] = [];
      for (const n of sizes) {
        for (const [key, label] of kinds) {
          const k = `${key}@${n}`;
          if (!res.has(k)) continue;
          const rs = res.get(k)!;
          rows.push([
            label,
            fmt(n),
            fmt(perSec(k)),
            fmt(
              med(rs, (c) => (c.burst.cpuMs / c.burst.updates) * 1000),
              1,
            ),
            fmt(med(rs, (c) => (c.burst.simCpuMs / c.burst.elapsedMs) * 100)),
            n === 100 ? fmtMs(med(rs, (c) => c.paced?.delayP50 ?? NaN)) : '',
            n === 100 ? fmtMs(med(rs, (c) => c.paced?.delayP99 ?? NaN)) : '',
          ]);
        }
      }
      const targets: Target[] = [];
      for (const n of sizes) {
        const rr = ratio(perSec(`ours@${n}`), perSec(`ref@${n}`));
        const rc = ratio(perSec(`ours@${n}`), perSec(`core@${n}`));
        // the goal: at least the minimal node's rate with the full output (state, changed keys, flat row)
        targets.push({
          what: `updates/s @${fmt(n)} entities: ours ÷ reference node`,
          goal: '≥ 1.0',
          measured: fmtRatio(rr),
          pass: Number.isFinite(rr) ? rr >= 1 : undefined,
        });
        targets.push({
          what: `updates/s @${fmt(n)} entities: ours ÷ core flow`,
          goal: '≥ 3.0',
          measured: fmtRatio(rc),
          pass: Number.isFinite(rc) ? rc >= 3 : undefined,
        });
        notes.push(`@${fmt(n)}: ours ÷ raw ws ${fmtRatio(ratio(perSec(`ours@${n}`), perSec(`raw@${n}`)))}`);
        // Each round measures the contenders one after the other, so ours and the reference node of one round share
        // the machine's state of the moment: their ratio per round shows how much of the spread is the machine's.
        const ours = res.get(`ours@${n}`);
        const ref = res.get(`ref@${n}`);
        if (ours && ref && ours.length === ref.length && ours.length > 1) {
          const pairs = ours.map((c, i) => c.burst.perSec / ref[i].burst.perSec);
          notes.push(
            `@${fmt(n)}: ours ÷ reference node round by round: ${pairs.map((r) => fmtRatio(r)).join(', ')} ` +
              `(median ${fmtRatio(median(pairs))})`,
          );
        }
      }
      const p99 = med(res.get('ours@100'), (c) => c.paced?.delayP99 ?? NaN);
      targets.push({
        what: `delay send → message at ${fmt(rate)} updates/s: ours p99`,
        goal: '≤ 1 ms',
        measured: `${fmtMs(p99)} ms`,
        pass: Number.isFinite(p99) ? p99 <= 1 : undefined,
      });
      const refP99 = med(res.get('ref@100'), (c) => c.paced?.delayP99 ?? NaN);
      targets.push({
        what: `delay p99 at ${fmt(rate)} updates/s: ours − reference node`,
        goal: '≤ 0 ms',
        measured: `${fmtMs(p99 - refP99)} ms`,
        pass: Number.isFinite(p99 - refP99) ? p99 <= refP99 : undefined,
      });
      const markdown = [
        `${fmt(updates)} updates per burst (2 changed keys each), round-robin over N bench devices, pushed by the ` +
          "simulator as fast as the socket drains; updates/s = updates ÷ (last arrival at the sink − first update's " +
          'send time). Delay = arrival at the sink − the send time the simulator wrote into the update (same machine ' +
          `clock), ${fmt(paced)} updates paced at ${fmt(rate)}/s over 100 entities. Each contender in its own ` +
          "process (the raw client without Node-RED). Client CPU includes the Node-RED process's own " +
          `work. ${roundsText(opts, opts.rounds)}`,
        '',
        table(
          [
            'contender',
            'entities',
            'updates/s',
            'client CPU µs/update',
            'simulator CPU %',
            `delay p50 ms @${rate}/s`,
            `delay p99 ms @${rate}/s`,
          ],
          rows,
        ),
        '',
        targetsTable(targets),
      ].join('\n');
      return { id: 2, title: 'Live update throughput', markdown, targets, notes };
    } finally {
      await pool.stopAll();
    }
  } finally {
    await sim.stop();
  }
}
