/**
 * The out-of-process entry (sim/cli.ts) as the benchmarks start it: options reach the simulator.
 */
import assert from 'node:assert/strict';
import { ChildProcess, spawn } from 'node:child_process';
import path from 'node:path';
import readline from 'node:readline';
import { login } from '../../sim/testkit';

const CLI = path.join(__dirname, '..', '..', 'sim', 'cli.ts');

/** Starts the CLI; resolves with its URL (first stdout line) or rejects with its stderr when it exits first. */
function startCli(args: string[]): {
  child: ChildProcess;
  url: Promise<string>;
  exit: Promise<{ code: number | null; stderr: string }>;
} {
  const child = spawn(process.execPath, ['--import', 'tsx', CLI, '--port', '0', ...args], {
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
  const exit = new Promise<{ code: number | null; stderr: string }>((resolve) =>
    child.once('exit', (code) => resolve({ code, stderr })),
  );
  const url = new Promise<string>((resolve, reject) => {
    readline
      .createInterface({ input: child.stdout! })
      .once('line', (line) => resolve((JSON.parse(line) as { url: string }).url));
    void exit.then(({ code }) => reject(new Error(`the simulator exited (${code}): ${stderr}`)));
  });
  return { child, url, exit };
}

describe('simulator: command line', function () {
  this.timeout(30000);

  it('--history-limit keeps more points per key than the default 5,000', async () => {
    const sim = startCli(['--history-limit', '6000']);
    try {
      const url = await sim.url;
      const tenant = await login(url, 'tenant@thingsboard.org', 'tenant');
      const device = (
        (await (await fetch(`${url}/__sim/entities?type=DEVICE&name=Thermo%20A-101`)).json()) as Array<{
          id: { id: string };
        }>
      )[0].id.id;
      const base = `/api/plugins/telemetry/DEVICE/${device}`;
      const points = Array.from({ length: 6000 }, (_, i) => ({ ts: 1000 + i, values: { cliSeries: i } }));
      assert.equal((await tenant.post(`${base}/timeseries/ANY`, points)).status, 200);
      const r = await tenant.request(
        'GET',
        `${base}/values/timeseries?keys=cliSeries&startTs=0&endTs=100000&limit=10000&orderBy=ASC`,
      );
      assert.equal(r.status, 200, r.text);
      const got = (r.body as Record<string, Array<{ ts: number }>>).cliSeries;
      assert.equal(got.length, 6000);
      assert.equal(got[0].ts, 1000);
    } finally {
      sim.child.kill('SIGTERM');
      await sim.exit;
    }
  });

  it('refuses a --history-limit that is not a whole number of points', async () => {
    const sim = startCli(['--history-limit', '0']);
    sim.url.catch(() => undefined);
    const { code, stderr } = await sim.exit;
    assert.equal(code, 2);
    assert.match(stderr, /--history-limit takes a whole number/);
  });
});
