/**
 * The reliability probes: `npm run reliability` (= build, then this file under `node --expose-gc`).
 *
 *   tsx bench/reliability.ts [--quick] [--only redeploys,faults,flood,fuzz,isolation,hour] [--out FILE]
 *                            [--redeploys N] [--soak SECONDS] [--fuzz N] [--flood N] [--seed N] [--hour MINUTES]
 *
 * Loopback only: the simulator in its own process on 127.0.0.1, Node-RED embedded in this
 * process with this repository (dist/) and the bench's sink node, deployed through its admin API. Every probe is
 * bounded in time and stops by itself; the default run takes about 4 minutes on 2 cores.
 *
 * --quick        small counts and a 3 s soak (about 20 s in all; what the test suite runs); writes nothing unless
 *                --out is given
 * --only a,b     only these probes (redeploys, faults, flood, fuzz, isolation, hour); a full run (no --only) runs
 *                all but hour
 * --out FILE     where to write the Markdown; default bench/RELIABILITY.md for a full run (no --quick, no --only).
 *                When the file has the markers <!-- measured:start --> and <!-- measured:end -->, only the text
 *                between them is replaced (the hand-written part above stays)
 * --redeploys N  full and modified-nodes redeploys, N of each (default 100)
 * --soak S       seconds of each of the two isolation runs (default 60)
 * --fuzz N       fuzzed messages per node type (default 2000)
 * --flood N      updates of the telemetry flood (default 200000)
 * --seed N       seed of the fuzzer (default 11)
 * --hour M       the hour of faults alone, M minutes (a fault a minute; `npm run reliability -- --hour 60`); its
 *                figures go between <!-- hour:start --> and <!-- hour:end --> of bench/RELIABILITY.md
 *
 * The exit code is 1 when a check failed or a probe could not run, 0 otherwise.
 * RELIABILITY_LOG=warn|info shows Node-RED's log (off by default: the fuzzer makes thousands of errors).
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startNodeRed, type Embedded } from '../scripts/embedded';
import { REPO_ROOT, startSim } from '../sim/process';
import { table } from './lib/markdown';
import {
  gcAvailable,
  installStatusHook,
  type Check,
  type Probe,
  type ProbeOptions,
  type ProbeResult,
  type RunContext,
} from './reliability/context';
import { faults, installDnsHook } from './reliability/faults';
import { flood } from './reliability/flood';
import { fuzz } from './reliability/fuzz';
import { hour } from './reliability/hour';
import { isolation } from './reliability/isolation';
import { redeploys } from './reliability/redeploys';

const PROBES: Array<{ key: string; title: string; run: Probe }> = [
  { key: 'redeploys', title: 'Redeploys', run: redeploys },
  { key: 'faults', title: 'REST faults', run: faults },
  { key: 'flood', title: 'Telemetry flood', run: flood },
  { key: 'fuzz', title: 'Fuzzed messages', run: fuzz },
  { key: 'isolation', title: 'Isolation and soak', run: isolation },
  // An hour long: only with --hour (or --only hour); --quick runs it in about 40 s.
  { key: 'hour', title: 'An hour of faults', run: hour },
];

interface Args extends ProbeOptions {
  only?: string[];
  out?: string;
}

function parseArgs(argv: string[]): Args {
  const quick = argv.includes('--quick');
  const a: Args = quick
    ? { quick, redeploys: 5, soakSeconds: 3, fuzz: 100, flood: 5000, seed: 11, hourMinutes: 1 }
    : { quick, redeploys: 100, soakSeconds: 60, fuzz: 2000, flood: 200000, seed: 11, hourMinutes: 60 };
  const num = (k: string, v: string | undefined): number => {
    const n = Number(v);
    if (v === undefined || !Number.isFinite(n) || n < 0) throw new Error(`${k} needs a number`);
    return Math.floor(n);
  };
  for (let i = 0; i < argv.length; i++) {
    const k = argv[i];
    if (k === '--quick') continue;
    else if (k === '--only')
      a.only = (argv[++i] ?? '')
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean);
    else if (k === '--out') a.out = argv[++i];
    else if (k === '--redeploys') a.redeploys = Math.max(1, num(k, argv[++i]));
    else if (k === '--soak') a.soakSeconds = Math.max(1, num(k, argv[++i]));
    else if (k === '--fuzz') a.fuzz = Math.max(1, num(k, argv[++i]));
    else if (k === '--flood') a.flood = Math.max(1, num(k, argv[++i]));
    else if (k === '--seed') a.seed = num(k, argv[++i]);
    else if (k === '--hour') {
      a.hourMinutes = Math.max(1, num(k, argv[++i]));
      a.only = ['hour'];
    } else if (k === '--help' || k === '-h') {
      process.stdout.write(`${fs.readFileSync(__filename, 'utf8').split('*/')[0]}*/\n`);
      process.exit(0);
    } else throw new Error(`unknown option ${k}`);
  }
  for (const o of a.only ?? []) {
    if (!PROBES.some((p) => p.key === o))
      throw new Error(`unknown probe ${o} (${PROBES.map((p) => p.key).join(', ')})`);
  }
  return a;
}

function version(pkg: string): string {
  try {
    return (
      JSON.parse(fs.readFileSync(path.join(REPO_ROOT, 'node_modules', pkg, 'package.json'), 'utf8')) as {
        version: string;
      }
    ).version;
  } catch {
    return '?';
  }
}

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

/**
 * Writes the measured part: between the markers `<!-- part:start -->` and `<!-- part:end -->` when the file has them,
 * else the whole file.
 */
function writeReport(file: string, md: string, part: 'measured' | 'hour'): void {
  const START = `<!-- ${part}:start -->`;
  const END = `<!-- ${part}:end -->`;
  const old = fs.existsSync(file) ? fs.readFileSync(file, 'utf8') : '';
  const a = old.indexOf(START);
  const b = old.indexOf(END);
  const text = a >= 0 && b > a ? `${old.slice(0, a + START.length)}\n${md}\n${old.slice(b)}` : md;
  fs.writeFileSync(file, text);
}

async function main(): Promise<void> {
  const args = parseArgs(process.argv.slice(2));
  const started = new Date();
  const log = (line: string): void => {
    process.stdout.write(`${line}\n`);
  };
  const command = `npm run reliability${process.argv.length > 2 ? ` -- ${process.argv.slice(2).join(' ')}` : ''}`;
  const rev = revision();
  const loadStart = os.loadavg();
  if (!fs.existsSync(path.join(REPO_ROOT, 'dist', 'nodes', 'tb-connection', 'index.js')))
    throw new Error('dist/ is missing: run `npm run build` first');

  // Anything thrown or rejected outside a handler would crash a real Node-RED: count it (it fails the run).
  const escaped: string[] = [];
  const escape = (what: string, err: unknown): void => {
    const text = `${what}: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`;
    escaped.push(text);
    log(`  ${text}`);
  };
  process.on('uncaughtException', (err) => escape('uncaught exception', err));
  process.on('unhandledRejection', (err) => escape('unhandled rejection', err));

  installStatusHook();
  installDnsHook();
  const selected = PROBES.filter((p) => (args.only ? args.only.includes(p.key) : args.quick || p.key !== 'hour'));
  log(`reliability probes: ${selected.map((p) => p.key).join(', ')}${args.quick ? ' (quick)' : ''}`);
  const sim = await startSim(['--extra-devices', '1000']);
  const userDir = fs.mkdtempSync(path.join(os.tmpdir(), 'tb-reliability-'));
  let nr: Embedded | undefined;
  const results: ProbeResult[] = [];
  const failures: string[] = [];
  try {
    const logLevel = (process.env.RELIABILITY_LOG as 'warn' | undefined) ?? 'off';
    nr = await startNodeRed({
      userDir,
      port: 0,
      logLevel,
      settings: {
        nodesDir: [REPO_ROOT, path.join(REPO_ROOT, 'bench/harness-nodes')],
        // --quick: the 429 retries wait 0.1-0.4 s instead of 1-30 s (the retry count stays 3)
        ...(args.quick ? { tbConnectionRetryInitialMs: 100, tbConnectionRetryMaxMs: 400 } : {}),
      },
    });
    const ctx: RunContext = { sim, nr, opts: args, log };
    for (const p of selected) {
      log(`\n== ${p.title}`);
      const t0 = Date.now();
      try {
        const r = await p.run(ctx);
        r.markdown += `\n\nProbe time: ${((Date.now() - t0) / 1000).toFixed(1)} s.`;
        results.push(r);
        for (const ch of r.checks)
          log(`  ${ch.pass ? 'ok  ' : 'FAIL'} ${ch.what}: ${ch.measured} (expected ${ch.expected})`);
      } catch (err) {
        const text = err instanceof Error ? (err.stack ?? err.message) : String(err);
        failures.push(`${p.key}: ${text.split('\n')[0]}`);
        results.push({ key: p.key, title: p.title, markdown: `Could not run: ${text.split('\n')[0]}`, checks: [] });
        log(`  COULD NOT RUN: ${text}`);
      }
      log(`  (${((Date.now() - t0) / 1000).toFixed(1)} s)`);
    }
  } finally {
    await nr?.stop().catch(() => undefined);
    await sim.stop();
    fs.rmSync(userDir, { recursive: true, force: true });
  }

  const cpus = os.cpus();
  const allChecks: Array<[string, Check]> = [];
  for (const r of results) for (const ch of r.checks) allChecks.push([r.title, ch]);
  const failed = allChecks.filter(([, ch]) => !ch.pass);
  const lines: string[] = [];
  lines.push('## Measured', '');
  lines.push(`- Date: ${started.toISOString()}`);
  lines.push(`- Command: \`${command}\``);
  lines.push(`- Code: commit ${rev} (dist/ built from it by \`npm run reliability\`)`);
  lines.push(
    `- Machine: ${cpus.length} cores (${cpus[0]?.model.trim() ?? '?'}), ${(os.totalmem() / 2 ** 30).toFixed(1)} ` +
      `GiB, ${os.type()} ${os.release()}`,
  );
  const load = (l: number[]): string => l.map((x) => x.toFixed(1)).join(' / ');
  lines.push(
    `- Load average (1/5/15 min) at the start: ${load(loadStart)}, at the end: ${load(os.loadavg())} (other work on ` +
      'the machine slows the rates, not the counts)',
  );
  lines.push(
    `- Node ${process.version}${gcAvailable() ? ' (--expose-gc)' : ''}, node-red ${version('node-red')}, ` +
      `axios ${version('axios')}, ws ${version('ws')}`,
  );
  lines.push(
    '- Set-up: the simulator (`sim/cli.ts`, 1,000 extra bench devices) in its own process and Node-RED 4 ' +
      'embedded in the ' +
      "probe's process (`scripts/embedded.ts`, this repository loaded through `nodesDir`), both on 127.0.0.1; flows " +
      'deployed through the admin API (`POST /flows`); the runtime settings are the defaults' +
      (args.quick ? ' except the 429 retry waits (--quick: 0.1 s initial, 0.4 s cap).' : '.'),
  );
  lines.push('');
  lines.push('| probe | checks | result |', '|:---|---:|:---|');
  for (const r of results) {
    const bad = r.checks.filter((ch) => !ch.pass).length;
    lines.push(
      `| ${r.title} | ${r.checks.length} ` +
        `| ${r.checks.length === 0 ? '**could not run**' : bad ? `**${bad} failed**` : 'all pass'} |`,
    );
  }
  lines.push('');
  for (const r of results) {
    lines.push(`### ${r.title}`, '', r.markdown, '');
    if (r.checks.length) {
      lines.push(
        table(
          ['check', 'expected', 'measured', 'result'],
          r.checks.map((ch) => [ch.what, ch.expected, ch.measured, ch.pass ? 'pass' : '**FAIL**']),
          ['l', 'l', 'r', 'l'],
        ),
        '',
      );
    }
  }
  if (escaped.length) lines.push('### Uncaught errors', '', ...escaped.map((e) => `- ${e.split('\n')[0]}`), '');
  if (failures.length) lines.push('### Not run', '', ...failures.map((f) => `- ${f}`), '');
  lines.push(`Total run time: ${((Date.now() - started.getTime()) / 1000).toFixed(0)} s.`);
  const md = lines.join('\n');
  log(`\n${md}\n`);
  const hourAlone = !args.quick && selected.length === 1 && selected[0].key === 'hour';
  const out =
    args.out ?? (!args.quick && (!args.only || hourAlone) ? path.join(REPO_ROOT, 'bench/RELIABILITY.md') : undefined);
  if (out) {
    // the hour's part sits under its own '## An hour of faults': every heading one level down
    writeReport(out, hourAlone ? md.replace(/^(#{2,}) /gm, '#$1 ') : md, hourAlone ? 'hour' : 'measured');
    log(`written to ${path.relative(process.cwd(), out)}`);
  }
  log(
    failed.length || failures.length || escaped.length
      ? `RESULT: ${failed.length} check(s) failed, ${failures.length} probe(s) not run, ${escaped.length} uncaught ` +
          'error(s)'
      : 'RESULT: every check passed',
  );
  process.exitCode = failed.length || failures.length || escaped.length ? 1 : 0;
}

main().then(
  () => {
    // Everything was stopped; a handle left over must not keep the process alive.
    setTimeout(() => process.exit(), 1000).unref();
  },
  (err: unknown) => {
    process.stderr.write(`${err instanceof Error ? err.stack : String(err)}\n`);
    process.exit(2);
  },
);
