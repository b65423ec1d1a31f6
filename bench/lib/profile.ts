/**
 * Summary of V8 CPU profiles (node --cpu-prof): self time by origin (ours = this package's dist/, Node-RED,
 * axios, ws, Node.js internals, GC, the bench harness) and the top functions by self time.
 */
import fs from 'node:fs';
import path from 'node:path';
import { REPO_ROOT } from '../../sim/process';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}

interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

export function origin(url: string, fn: string): string {
  if (fn === '(garbage collector)') return 'GC';
  if (fn === '(idle)') return 'idle';
  if (fn === '(program)') return 'program (V8/native)';
  if (!url) return 'native/builtin';
  if (url.startsWith('Function node')) return 'function node code (vm)';
  const u = url.replace(/^file:\/\//, '');
  if (
    u.includes('/node_modules/axios/') ||
    u.includes('/node_modules/follow-redirects/') ||
    u.includes('/node_modules/form-data/') ||
    u.includes('/node_modules/proxy-from-env/')
  )
    return 'axios';
  if (u.includes('/node_modules/ws/')) return 'ws';
  if (u.includes('/node_modules/@node-red/') || u.includes('/node_modules/node-red/')) return 'Node-RED';
  if (u.includes('/node_modules/')) return `deps (${u.split('/node_modules/').pop()!.split('/')[0]})`;
  if (u.startsWith(path.join(REPO_ROOT, 'dist'))) return 'ours';
  if (u.startsWith(path.join(REPO_ROOT, 'bench/reference-node'))) return 'reference node';
  if (u.startsWith(path.join(REPO_ROOT, 'bench'))) return 'bench harness';
  if (u.startsWith('node:')) return 'Node.js';
  return 'other';
}

export function summarizeProfile(file: string, top = 25): string {
  const p = JSON.parse(fs.readFileSync(file, 'utf8')) as Profile;
  const byId = new Map<number, ProfileNode>();
  for (const n of p.nodes) byId.set(n.id, n);
  const self = new Map<number, number>();
  for (let i = 0; i < p.samples.length; i++)
    self.set(p.samples[i], (self.get(p.samples[i]) ?? 0) + (p.timeDeltas[i] ?? 0));
  const byFn = new Map<string, { us: number; origin: string }>();
  const byOrigin = new Map<string, number>();
  let total = 0;
  for (const [id, us] of self) {
    const n = byId.get(id)!;
    const o = origin(n.callFrame.url, n.callFrame.functionName);
    if (o === 'idle') continue;
    total += us;
    byOrigin.set(o, (byOrigin.get(o) ?? 0) + us);
    const where = n.callFrame.url
      ? `${path.relative(REPO_ROOT, n.callFrame.url.replace(/^file:\/\//, ''))}:${n.callFrame.lineNumber + 1}`
      : '';
    const key = `${n.callFrame.functionName || '(anonymous)'} ${where}`;
    const e = byFn.get(key) ?? { us: 0, origin: o };
    e.us += us;
    byFn.set(key, e);
  }
  const pct = (us: number) => `${((us / total) * 100).toFixed(1).padStart(5)} %`;
  const lines: string[] = [`profile ${path.relative(REPO_ROOT, file)}: ${(total / 1000).toFixed(0)} ms busy`];
  lines.push('  by origin:');
  let rest = 0;
  for (const [o, us] of [...byOrigin].sort((a, b) => b[1] - a[1])) {
    if (us / total < 0.005) rest += us;
    else lines.push(`    ${pct(us)}  ${o}`);
  }
  if (rest > 0) lines.push(`    ${pct(rest)}  (the rest, each < 0.5 %)`);
  lines.push(`  top ${top} functions by self time:`);
  for (const [k, e] of [...byFn].sort((a, b) => b[1].us - a[1].us).slice(0, top))
    lines.push(`    ${pct(e.us)}  [${e.origin}] ${k}`);
  return lines.join('\n');
}

/** Every .cpuprofile under `dir` (one sub-directory per contender). */
export function summarizeProfiles(dir: string, top = 25): string {
  if (!fs.existsSync(dir)) return `(no profiles in ${dir})`;
  const files: string[] = [];
  const walk = (d: string): void => {
    for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      if (e.isDirectory()) walk(path.join(d, e.name));
      else if (e.name.endsWith('.cpuprofile')) files.push(path.join(d, e.name));
    }
  };
  walk(dir);
  return files
    .sort()
    .map((f) => summarizeProfile(f, top))
    .join('\n\n');
}

if (require.main === module) {
  // tsx bench/lib/profile.ts <file.cpuprofile | dir> [top]
  const target = process.argv[2];
  const top = Number(process.argv[3] ?? 25);
  if (!target) {
    process.stderr.write('usage: tsx bench/lib/profile.ts <file.cpuprofile|dir> [top]\n');
    process.exit(2);
  }
  process.stdout.write(
    `${fs.statSync(target).isDirectory() ? summarizeProfiles(target, top) : summarizeProfile(target, top)}\n`,
  );
}
