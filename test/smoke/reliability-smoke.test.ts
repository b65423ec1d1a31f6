/**
 * Keeps the reliability probes working (bench/reliability.ts, `npm run reliability`): one quick run of every probe
 * (small counts, a 3 s soak; about 25 s). It asserts that each probe ran, printed its figures and that every check
 * passed: the checks are the package's guarantees (bench/RELIABILITY.md), not timings.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import path from 'node:path';

const ROOT = path.join(__dirname, '..', '..');

describe('reliability probes (quick run)', function () {
  this.timeout(120000);

  it('runs every probe in quick mode; every check passes', async () => {
    const child = spawn(process.execPath, ['--expose-gc', '--import', 'tsx', 'bench/reliability.ts', '--quick'], {
      cwd: ROOT,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (out += d.toString()));
    const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
    const failed = out.split('\n').filter((l) => /^\s+(FAIL|COULD NOT RUN)/.test(l));
    assert.equal(code, 0, `exit code ${code}\n${failed.join('\n')}\n${out.slice(-3000)}`);
    for (const title of [
      '### Redeploys',
      '### REST faults',
      '### Telemetry flood',
      '### Fuzzed messages',
      '### Isolation and soak',
      '### An hour of faults',
    ]) {
      assert.ok(out.includes(title), `${title} missing:\n${out.slice(-2000)}`);
    }
    assert.match(out, /RESULT: every check passed/);
  });
});
