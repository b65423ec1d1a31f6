/**
 * Keeps the benchmark suite working: a quick run of every scenario with our nodes only (small counts, one
 * round). It asserts that each scenario ran and produced its table — never a timing.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import path from 'node:path';

const ROOT = path.join(__dirname, '..', '..');

describe('benchmark suite (smoke run)', function () {
  this.timeout(180000);

  it('runs every scenario in quick mode and prints its table', async () => {
    const tsx = path.join(ROOT, 'node_modules', '.bin', 'tsx');
    const child = spawn(tsx, ['bench/run.ts', '--quick', '--only', 'ours'], {
      cwd: ROOT,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (out += d.toString()));
    const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
    assert.equal(code, 0, out.slice(-3000));
    for (const title of [
      '## 1. Query throughput',
      '## 2. Live update throughput',
      '## 3. Scale',
      '## 4. Large results',
      '## 5. Reports',
      '## 6. Acting on devices',
      '## 7. Waits',
      '## 8. Triggers',
      '## 9. Entities in bulk',
    ]) {
      assert.ok(out.includes(title), `${title} missing:\n${out.slice(-2000)}`);
    }
    assert.match(out, /\| ours/);
    // Scenario 6 ran each of its parts with our nodes (bulk save, its heap at two sizes, the paged history), and every
    // entity and point came back (a shortfall is a note "…: N failed" / "N points (expected …)").
    for (const part of ['### Bulk attribute save', '### Heap of a bulk save', '### History of'])
      assert.ok(out.includes(part), `${part} missing`);
    assert.match(out, /\| ours \(tb-attributes, concurrency 1\) \|/);
    assert.match(out, /\| ours \(tb-telemetry history, flat rows, pages of 100\) \|/);
    assert.doesNotMatch(out, /failed \(|points \(expected/);
    // Scenario 8 measured the trigger and its subscription alone.
    assert.match(out, /\| ours \(tb-trigger, 1,000 entities\) \|/);
    assert.match(out, /\| its subscription alone \(1,000\) \|/);
    // Scenario 9 ran the rows as one message and one message per row, and measured the heap; every row was created.
    assert.match(out, /\| ours \(tb-entity, one message, concurrency 4\) \| [\d,]+ \|/);
    assert.match(out, /\| ours \(tb-entity, one message per row\) \| [\d,]+ \|/);
    assert.ok(out.includes('### Heap of the one-message run'), 'scenario 9 heap part missing');
    assert.doesNotMatch(out, /created \(expected/);
  });
});
