/**
 * The benchmark suite: `npm run bench` (= build, then `tsx bench/run.ts`).
 *
 *   tsx bench/run.ts [--scenario 1,2,...] [--quick] [--rounds N] [--only ours,ref] [--profile] [--out FILE]
 *
 * --quick      a seconds-long smoke run (small counts, one measured round); does not write RESULTS.md
 *              unless --out is given
 * --rounds N   measured rounds after the warm-up round (default 5)
 * --only a,b only these contenders (keys: ours, ours-raw, ours-bound, ours10, axios, axios-nr, raw, core, ref; a key
 * also
 *              selects its variants, e.g. ours -> ours@100, ours+split, ours/small, ours/c1)
 * --profile    run the Node-RED (agent) process under `node --cpu-prof`; profiles go to bench/profiles/ and a
 *              summary (top functions by self time, by origin: ours / Node-RED / axios / ws / node) is printed
 * --out FILE   where to write the Markdown (default bench/RESULTS.md for full runs)
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { REPO_ROOT } from '../sim/process';
import { pinFromEnv } from './lib/agent';
import { RunOptions, ScenarioResult } from './lib/common';
import { passText, table } from './lib/markdown';
import { summarizeProfiles } from './lib/profile';
import { SCENARIOS } from './scenarios';

interface Args {
  scenarios: number[];
  quick: boolean;
  rounds: number;
  only?: string[];
  profile: boolean;
  out?: string;
}

function parseArgs(argv: string[]): Args {
  const a: Args = { scenarios: Object.keys(SCENARIOS).map(Number), quick: false, rounds: 5, profile: false };
  let roundsGiven = false;
  for (let i = 0; i < argv.length; i++) {
    const k = argv[i];
    const next = (): string => {
      const v = argv[++i];
      if (v === undefined) throw new Error(`${k} needs a value`);
      return v;
    };
    if (k === '--scenario' || k === '--scenarios')
      a.scenarios = next()
        .split(',')
        .map((s) => Number(s.trim()));
    else if (k === '--quick') a.quick = true;
    else if (k === '--rounds') {
      a.rounds = Math.max(1, Math.floor(Number(next())));
      roundsGiven = true;
    } else if (k === '--only')
      a.only = next()
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean);
    else if (k === '--profile') a.profile = true;
    else if (k === '--out') a.out = next();
    else if (k === '--help' || k === '-h') {
      process.stdout.write(fs.readFileSync(__filename, 'utf8').split('*/')[0] + '*/\n');
      process.exit(0);
    } else throw new Error(`unknown option ${k}`);
  }
  if (a.quick && !roundsGiven) a.rounds = 1;
  for (const s of a.scenarios)
    if (!SCENARIOS[s]) throw new Error(`unknown scenario ${s} (${Object.keys(SCENARIOS).join(', ')})`);
  return a;
}

function nodeRedVersion(): string {
  try {
    return (
      JSON.parse(fs.readFileSync(path.join(REPO_ROOT, 'node_modules/node-red/package.json'), 'utf8')) as {
        version: string;
      }
    ).version;
  } catch {
    return '?';
  }
}

function pkgVersion(name: string): string {
  try {
    return (
      JSON.parse(fs.readFileSync(path.join(REPO_ROOT, 'node_modules', name, 'package.json'), 'utf8')) as {
        version: string;
      }
    ).version;
  } catch {
    return '?';
  }
}

/** The commit measured (and whether src/ had uncommitted changes). */
function revision(): string {
  try {
    const head = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: REPO_ROOT, encoding: 'utf8' }).trim();
    const dirty = execFileSync('git', ['status', '--porcelain', '--', 'src'], {
      cwd: REPO_ROOT,
      encoding: 'utf8',
    }).trim();
    return dirty ? `${head} + uncommitted changes in src/` : head;
  } catch {
    return 'unknown';
  }
}

async function main(): Promise<void> {
  pinFromEnv(); // before any simulator starts
  const args = parseArgs(process.argv.slice(2));
  const started = new Date();
  const rev = revision();
  const log = (line: string): void => {
    process.stdout.write(`${line}\n`);
  };
  const profileRoot = args.profile
    ? path.join(REPO_ROOT, 'bench/profiles', started.toISOString().replace(/[:.]/g, '-'))
    : undefined;
  const results: ScenarioResult[] = [];
  const failures: string[] = [];
  const command = `npm run bench${process.argv.length > 2 ? ` -- ${process.argv.slice(2).join(' ')}` : ''}`;
  log(
    'benchmark suite: ' +
      `scenarios ${args.scenarios.join(', ')}${args.quick ? ' (quick: small counts, no warm-up round)' : ''}, ${args.rounds} ` +
      `measured round(s)${args.quick ? '' : ' + 1 warm-up'}`,
  );
  for (const id of args.scenarios) {
    const s = SCENARIOS[id];
    log(`\n== scenario ${id}: ${s.title}`);
    const opts: RunOptions = {
      quick: args.quick,
      rounds: args.rounds,
      only: args.only,
      profileDir: profileRoot ? path.join(profileRoot, `s${id}`) : undefined,
      log,
    };
    const t0 = Date.now();
    try {
      const r = await s.run(opts);
      results.push(r);
      log(`  (${((Date.now() - t0) / 1000).toFixed(1)} s)`);
      if (opts.profileDir) log(summarizeProfiles(opts.profileDir));
    } catch (err) {
      const text = err instanceof Error ? err.message : String(err);
      failures.push(`scenario ${id}: ${text}`);
      results.push({ id, title: s.title, markdown: `Could not run: ${text.split('\n')[0]}`, targets: [], notes: [] });
      log(`  FAILED: ${text}`);
    }
  }

  const cpus = os.cpus();
  const lines: string[] = [];
  lines.push('# Benchmark results', '');
  lines.push(`- Date: ${started.toISOString()}`);
  lines.push(`- Command: \`${command}\``);
  lines.push(`- Code measured: commit ${rev} (dist/ built from it by \`npm run bench\`)`);
  lines.push(
    `- Machine: ${cpus.length} cores (${cpus[0]?.model.trim() ?? '?'}), ${(os.totalmem() / 2 ** 30).toFixed(1)} ` +
      `GiB, ${os.type()} ${os.release()}`,
  );
  lines.push(
    `- Node ${process.version}, node-red ${nodeRedVersion()}, axios ${pkgVersion('axios')}, ws ${pkgVersion('ws')}`,
  );
  lines.push(
    '- Each scenario: the simulator in its own process; each contender in its own process (Node-RED with only that ' +
      "contender's flow; the raw clients without Node-RED), measured in turn, in rotated " +
      `order, ${args.quick ? 'no warm-up round (--quick)' : 'one warm-up round discarded'}, then ${args.rounds} ` +
      'measured round(s) (scenarios 3 and 4 at most 3, scenario 5 at most 2, scenario 6: heap at most 2, history at ' +
      'most 3, scenarios 7 and 8 at most 3); figures are medians over the measured rounds.',
  );
  lines.push('');
  const allTargets: Array<[number, string, string, string, boolean | undefined]> = [];
  for (const r of results) {
    lines.push(`## ${r.id}. ${r.title}`, '', r.markdown, '');
    if (r.notes.length) {
      for (const n of r.notes) lines.push(`- ${n}`);
      lines.push('');
    }
    for (const t of r.targets) allTargets.push([r.id, t.what, t.goal, t.measured, t.pass]);
  }
  lines.push('## Targets', '');
  lines.push(
    table(
      ['#', 'target', 'goal', 'measured', 'result'],
      allTargets.map(([id, what, goal, measured, pass]) => [String(id), what, goal, measured, passText(pass)]),
      ['r', 'l', 'l', 'r', 'l'],
    ),
  );
  lines.push('');
  if (failures.length) lines.push('## Not run', '', ...failures.map((f) => `- ${f.split('\n')[0]}`), '');
  lines.push(`Total run time: ${((Date.now() - started.getTime()) / 1000).toFixed(0)} s.`, '');
  const md = lines.join('\n');
  log(`\n${md}`);
  const out =
    args.out ?? (args.quick || args.only || args.profile ? undefined : path.join(REPO_ROOT, 'bench/RESULTS.md'));
  if (out) {
    fs.writeFileSync(out, md);
    log(`written to ${path.relative(process.cwd(), out)}`);
  }
  process.exitCode = failures.length ? 1 : 0;
}

main().catch((err: unknown) => {
  process.stderr.write(`${err instanceof Error ? err.stack : String(err)}\n`);
  process.exit(2);
});
