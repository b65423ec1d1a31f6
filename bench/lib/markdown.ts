/** Markdown tables. */
import type { Target } from './common';
export function table(head: string[], rows: string[][], align?: Array<'l' | 'r'>): string {
  const al = align ?? head.map((_, i) => (i === 0 ? 'l' : 'r'));
  const lines = [`| ${head.join(' | ')} |`, `|${al.map((a) => (a === 'r' ? '---:' : ':---')).join('|')}|`];
  for (const r of rows) lines.push(`| ${r.join(' | ')} |`);
  return lines.join('\n');
}

export function passText(p: boolean | undefined): string {
  return p === undefined ? 'not measured' : p ? '**pass**' : '**MISS**';
}

/** The table of a scenario's targets: what, goal, measured, pass/MISS. */
export function targetsTable(targets: Target[]): string {
  return table(
    ['target', 'goal', 'measured', 'result'],
    targets.map((t) => [t.what, t.goal, t.measured, passText(t.pass)]),
    ['l', 'l', 'r', 'l'],
  );
}
