/**
 * The `npm start` flow builder (scripts/start.ts): the demo connection for each combination of the TB_*
 * variables (no server needed), the flows built from every example, the secret of a real server's
 * credentials, and what the script says when a port is taken (the script itself, on a real occupied loopback port).
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import {
  dashboardUrl,
  DemoConfigError,
  demoFlows,
  demoPort,
  downstreamOfLive,
  demoSecret,
  demoServer,
  isDashboardNode,
  portProblem,
  repeats,
  SIMULATOR_CREDENTIALS,
} from '../../scripts/start';

const SIM = 'http://127.0.0.1:40001';
const TB = 'https://tb.example.com';
const SECRET = 'pa55-W0rd!';
const KEY = 'tb_0123456789abcdef';

describe('npm start: the demo connection and flows (scripts/start.ts)', function () {
  it('without TB_URL: the simulator, its demo users, its analytics service', function () {
    for (const env of [{}, { TB_URL: '' }, { TB_URL: '  ', TB_USERNAME: 'ignored', TB_PASSWORD: 'ignored' }]) {
      const s = demoServer(env, SIM);
      assert.equal(s.real, false);
      assert.deepEqual(s.connection, {
        id: 'tb-demo-connection',
        type: 'tb-connection',
        name: 'Demo (simulator)',
        url: SIM,
        authMode: 'password',
        analyticsUrl: `${SIM}/apiTrendz/`,
        analyticsAuth: 'same',
        timeout: 30,
        reportConcurrency: 2,
        reportTimeout: 300,
        version: 1,
        credentials: { ...SIMULATOR_CREDENTIALS },
      });
      assert.match(s.description, new RegExp(`^ThingsBoard simulator: ${SIM} `));
    }
    assert.throws(() => demoServer({}), /simulator URL is needed/);
  });

  it('TB_URL + TB_USERNAME + TB_PASSWORD: password mode, credentials only in `credentials`', function () {
    const s = demoServer({ TB_URL: `${TB}/`, TB_USERNAME: 'me@example.com', TB_PASSWORD: SECRET }, SIM);
    assert.equal(s.real, true);
    const { credentials, ...props } = s.connection;
    assert.deepEqual(credentials, { username: 'me@example.com', password: SECRET });
    assert.deepEqual(props, {
      id: 'tb-demo-connection',
      type: 'tb-connection',
      name: 'Demo (tb.example.com)',
      url: TB,
      authMode: 'password',
      analyticsUrl: '',
      analyticsAuth: 'same',
      timeout: 30,
      reportConcurrency: 2,
      reportTimeout: 300,
      version: 1,
    });
    assert.equal(s.description, `ThingsBoard server:    ${TB} (signed in with a username and password)`);
    assert.ok(
      !s.description.includes(SECRET) && !s.description.includes('me@example.com'),
      'the description names no credential',
    );
  });

  it('TB_URL + TB_API_KEY: API key mode', function () {
    const s = demoServer({ TB_URL: TB, TB_API_KEY: KEY }, SIM);
    assert.equal(s.connection.authMode, 'apiKey');
    assert.deepEqual(s.connection.credentials, { apiKey: KEY });
    assert.equal(s.connection.url, TB);
    assert.ok(!s.description.includes(KEY));
  });

  it('TB_ANALYTICS_URL: the platform sign-in, or its own with TB_ANALYTICS_USERNAME/PASSWORD (needed with an API key)', function () {
    let s = demoServer(
      { TB_URL: TB, TB_USERNAME: 'u', TB_PASSWORD: 'p', TB_ANALYTICS_URL: 'http://trendz:8888/apiTrendz' },
      SIM,
    );
    assert.equal(s.connection.analyticsUrl, 'http://trendz:8888/apiTrendz/');
    assert.equal(s.connection.analyticsAuth, 'same');
    assert.deepEqual(s.connection.credentials, { username: 'u', password: 'p' });
    assert.match(s.description, /\nAnalytics: +http:\/\/trendz:8888\/apiTrendz\/$/);
    s = demoServer(
      {
        TB_URL: TB,
        TB_API_KEY: KEY,
        TB_ANALYTICS_URL: `${TB}/apiTrendz/`,
        TB_ANALYTICS_USERNAME: 'a',
        TB_ANALYTICS_PASSWORD: 'b',
      },
      SIM,
    );
    assert.equal(s.connection.analyticsAuth, 'own');
    assert.deepEqual(s.connection.credentials, { apiKey: KEY, analyticsUsername: 'a', analyticsPassword: 'b' });
  });

  it('refuses variables that do not make one way to sign in, without repeating any secret', function () {
    const bad: Array<[Record<string, string>, RegExp]> = [
      [{ TB_URL: TB }, /TB_USERNAME and TB_PASSWORD, or TB_API_KEY/],
      [{ TB_URL: TB, TB_USERNAME: 'u' }, /TB_USERNAME and TB_PASSWORD, or TB_API_KEY/],
      [{ TB_URL: TB, TB_PASSWORD: SECRET }, /TB_USERNAME and TB_PASSWORD, or TB_API_KEY/],
      [{ TB_URL: TB, TB_USERNAME: 'u', TB_PASSWORD: SECRET, TB_API_KEY: KEY }, /only one way to sign in/],
      [{ TB_URL: 'tb.example.com', TB_API_KEY: KEY }, /TB_URL must be an http/],
      [{ TB_URL: 'ftp://tb.example.com', TB_API_KEY: KEY }, /TB_URL must be an http/],
      [{ TB_URL: `https://u:${SECRET}@tb.example.com`, TB_API_KEY: KEY }, /must not contain a user name or password/],
      [
        { TB_URL: TB, TB_API_KEY: KEY, TB_ANALYTICS_URL: `${TB}/apiTrendz/` },
        /TB_ANALYTICS_USERNAME and TB_ANALYTICS_PASSWORD/,
      ],
      [
        { TB_URL: TB, TB_API_KEY: KEY, TB_ANALYTICS_URL: `${TB}/apiTrendz/`, TB_ANALYTICS_USERNAME: 'a' },
        /both TB_ANALYTICS_USERNAME and TB_ANALYTICS_PASSWORD/,
      ],
      [
        { TB_URL: TB, TB_API_KEY: KEY, TB_ANALYTICS_USERNAME: 'a', TB_ANALYTICS_PASSWORD: SECRET },
        /need TB_ANALYTICS_URL/,
      ],
    ];
    for (const [env, re] of bad) {
      assert.throws(
        () => demoServer(env, SIM),
        (err: unknown) =>
          err instanceof DemoConfigError &&
          re.test(err.message) &&
          !err.message.includes(SECRET) &&
          !err.message.includes(KEY),
        JSON.stringify(env),
      );
    }
  });

  it('without Dashboard 2 leaves out the dashboard example (its widgets would stop every flow), and prints its address with it', function () {
    const conn = demoServer({}, SIM).connection;
    const title = 'Dashboard of temperatures, live line and alarms';
    const tabs = (flows: Array<Record<string, unknown>>) => flows.filter((n) => n.type === 'tab').map((n) => n.label);
    const without = demoFlows(conn, { dashboard: false });
    assert.ok(!tabs(without).includes(title));
    assert.deepEqual(without.filter(isDashboardNode), []);
    assert.equal(dashboardUrl(without, 'http://127.0.0.1:1880'), undefined);
    const withIt = demoFlows(conn, { dashboard: true });
    assert.ok(tabs(withIt).includes(title));
    assert.equal(tabs(withIt).length, tabs(without).length + 1, 'only that one');
    assert.equal(dashboardUrl(withIt, 'http://127.0.0.1:1880'), 'http://127.0.0.1:1880/dashboard/thermostats');
  });

  it("deploys every example on its own tab (the example's), every ThingsBoard node on the one demo connection", function () {
    const conn = demoServer({ TB_URL: TB, TB_API_KEY: KEY }, SIM).connection;
    const flows = demoFlows(conn);
    const dir = path.join(__dirname, '../../examples');
    const examples = fs.readdirSync(dir).filter((f) => f.endsWith('.json'));
    const tabs = flows.filter((n) => n.type === 'tab');
    assert.deepEqual(tabs.map((t) => t.label).sort(), examples.map((f) => f.replace(/\.json$/, '')).sort());
    assert.deepEqual(
      flows.filter((n) => n.type === 'tb-connection'),
      [conn],
      'one connection: the demo one',
    );
    let nodes = 0;
    for (const f of examples) {
      const example = JSON.parse(fs.readFileSync(path.join(dir, f), 'utf8')) as Array<Record<string, unknown>>;
      const tab = example.find((n) => n.type === 'tab')!;
      assert.deepEqual(
        flows.find((n) => n.id === tab.id),
        tab,
        `${f}: its own tab`,
      );
      for (const n of example) {
        if (n.type === 'tb-connection') continue;
        nodes++;
        const deployed = flows.find((x) => x.id === n.id);
        assert.ok(deployed, `${f}: ${n.type} ${n.id} is deployed`);
        if (typeof n.connection === 'string') assert.equal(deployed!.connection, conn.id);
        // Dashboard 2's configuration (base, page, theme, groups) is global, as in its example.
        if (n.type !== 'tab')
          assert.equal(deployed!.z, n.z === undefined ? undefined : tab.id, `${n.id} is on its example's tab`);
      }
    }
    assert.equal(flows.length, 1 + nodes);
    assert.equal(JSON.stringify(flows.filter((n) => n !== conn)).includes(KEY), false);
  });

  it('fires nothing at deploy that reaches the debug sidebar: every inject as in its example, and writes files where it is told', function () {
    const conn = demoServer({}, SIM).connection;
    const dir = path.join(__dirname, '../../examples');
    const examples = fs
      .readdirSync(dir)
      .filter((f) => f.endsWith('.json'))
      .flatMap((f) => JSON.parse(fs.readFileSync(path.join(dir, f), 'utf8')) as Array<Record<string, unknown>>);
    const fileDir = path.join(os.tmpdir(), 'tb-demo-files');
    const flows = demoFlows(conn, { fileDir });
    const deployed = (n: Record<string, unknown>) => flows.find((x) => x.id === n.id)!;
    const injects = examples.filter((n) => n.type === 'inject');
    for (const n of injects) {
      assert.deepEqual(
        [deployed(n).once, deployed(n).repeat, deployed(n).crontab],
        [n.once, n.repeat, n.crontab],
        `inject "${n.name as string}" as in its example`,
      );
    }
    const repeating = examples.filter(repeats);
    assert.ok(repeating.length >= 4, 'examples that repeat');
    for (const n of repeating) assert.equal(deployed(n).once, false, `"${n.name as string}" waits for its first time`);
    // Three fire at deploy, for their own examples: a flow variable the counts read, the alarm watch of the meters,
    // the dashboard's day.
    const atDeploy = flows.filter((n) => n.type === 'inject' && n.once === true);
    assert.deepEqual(atDeploy.map((n) => n.name).sort(), ['at deploy', 'the day, at deploy', 'watch all meters']);
    // What they start reaches no debug node that writes to the sidebar.
    const byId = new Map(flows.map((n) => [n.id, n]));
    for (const start of atDeploy) {
      const seen = new Set<string>();
      const todo = [start.id];
      while (todo.length) {
        for (const port of (byId.get(todo.pop()!)?.wires as string[][] | undefined) ?? []) {
          for (const id of port) {
            if (seen.has(id)) continue;
            seen.add(id);
            todo.push(id);
          }
        }
      }
      const loud = [...seen]
        .map((id) => byId.get(id)!)
        .filter((n) => n.type === 'debug' && n.active !== false && n.tosidebar !== false);
      assert.deepEqual(
        loud.map((n) => n.name),
        [],
        `"${start.name as string}" at deploy`,
      );
    }
    const files = examples.filter((n) => n.type === 'file');
    assert.ok(files.length > 0, 'an example writes a file');
    for (const n of files) {
      assert.equal(deployed(n).filename, path.join(fileDir, n.filename as string));
      assert.equal(
        demoFlows(conn).find((x) => x.id === n.id)!.filename,
        n.filename,
        'without fileDir: as in the example',
      );
    }
  });

  it('keeps the sidebar quiet: debug nodes fed by a live node show their last message on the canvas instead', function () {
    const conn = demoServer({}, SIM).connection;
    const dir = path.join(__dirname, '../../examples');
    const flows = demoFlows(conn);
    let quieted = 0;
    for (const f of fs.readdirSync(dir).filter((x) => x.endsWith('.json'))) {
      const example = JSON.parse(fs.readFileSync(path.join(dir, f), 'utf8')) as Array<
        Record<string, unknown> & { id: string; type: string }
      >;
      const live = downstreamOfLive(example);
      for (const n of example.filter((x) => x.type === 'debug')) {
        const deployed = flows.find((x) => x.id === n.id)!;
        if (live.has(n.id)) {
          quieted++;
          assert.equal(deployed.tosidebar, false, `${f}: "${n.name}" not in the sidebar`);
          assert.equal(deployed.tostatus, true, `${f}: "${n.name}" shows its last message under the node`);
        } else {
          assert.equal(deployed.tosidebar, n.tosidebar, `${f}: "${n.name}" as in its example`);
        }
      }
    }
    assert.ok(quieted >= 5, `the live examples' debug nodes (${quieted})`);
    const table = JSON.parse(fs.readFileSync(path.join(dir, 'Live telemetry table.json'), 'utf8')) as Array<
      Record<string, unknown> & { id: string; type: string }
    >;
    const error = table.find((n) => n.type === 'debug' && n.name === 'error')!;
    assert.equal(
      downstreamOfLive(table).has(error.id),
      false,
      'an error debug (fed by a catch node) stays in the sidebar',
    );
  });

  it("keeps the secret for a real server's credentials in .demo/.secret, generated once, owner-only", function () {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tb-start-test-'));
    try {
      const a = demoSecret(dir);
      assert.match(a, /^[0-9a-f]{64}$/);
      assert.equal(demoSecret(dir), a);
      assert.equal(fs.statSync(path.join(dir, '.secret')).mode & 0o077, 0, 'not readable by others');
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('npm start: a port that is taken or wrong (scripts/start.ts)', function () {
  this.timeout(30000);
  const ROOT = path.join(__dirname, '../..');

  /** Runs the start script as `npm start` does (the tsx CLI), with only the given variables of ours set. */
  function start(env: Record<string, string>): Promise<{ code: number | null; stdout: string; stderr: string }> {
    const clean = Object.fromEntries(Object.entries(process.env).filter(([k]) => !/^(TB_|PORT$|SIM_PORT$)/.test(k)));
    return new Promise((resolve) => {
      execFile(
        process.execPath,
        [require.resolve('tsx/cli'), 'scripts/start.ts'],
        { cwd: ROOT, env: { ...clean, ...env }, timeout: 25000 },
        (err, stdout, stderr) => {
          resolve({ code: err ? ((err as { code?: number | string }).code as number | null) : 0, stdout, stderr });
        },
      );
    });
  }

  /** A loopback port held by another server (as a Node-RED already running on 1880 holds that one). */
  async function occupied(): Promise<{ port: number; close: () => Promise<void> }> {
    const server = net.createServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return {
      port: (server.address() as net.AddressInfo).port,
      close: () => new Promise<void>((resolve) => server.close(() => resolve())),
    };
  }

  /** One line on stderr, no stack trace, a non-zero exit code. */
  function oneLine(r: { code: number | null; stderr: string }, pattern: RegExp): void {
    assert.notEqual(r.code, 0, 'exits non-zero');
    const lines = r.stderr.trim().split('\n');
    assert.equal(lines.length, 1, `one line on stderr, got:\n${r.stderr}`);
    assert.match(lines[0], pattern);
    assert.doesNotMatch(r.stderr, /^\s+at /m, 'no stack trace');
  }

  it('PORT taken (Node-RED already on 1880): one line that says so and how to choose another', async function () {
    const held = await occupied();
    try {
      const r = await start({ PORT: String(held.port) });
      oneLine(
        r,
        new RegExp(
          `^npm start: Node-RED's port ${held.port} is already in use .*PORT=${held.port + 1} npm start.*PORT=0 for ` +
            'any free port$',
        ),
      );
    } finally {
      await held.close();
    }
  });

  it('SIM_PORT taken: one line naming SIM_PORT', async function () {
    const held = await occupied();
    try {
      const r = await start({ SIM_PORT: String(held.port) });
      oneLine(
        r,
        new RegExp(
          `^npm start: the simulator's port ${held.port} is already in use: .*SIM_PORT=${held.port + 1} npm start`,
        ),
      );
    } finally {
      await held.close();
    }
  });

  it('a PORT or SIM_PORT that is not a port number: one line, before anything starts', async function () {
    oneLine(
      await start({ PORT: 'abc' }),
      /^npm start: PORT must be a port number from 0 to 65535 \(0 = any free port\), not "abc"$/,
    );
    assert.equal(demoPort({}, 'PORT', 1880), 1880);
    assert.equal(demoPort({ PORT: ' ' }, 'PORT', 1880), 1880);
    assert.equal(demoPort({ SIM_PORT: '0' }, 'SIM_PORT', 0), 0);
    assert.equal(demoPort({ PORT: '1881' }, 'PORT', 1880), 1881);
    for (const v of ['-1', '65536', '18.5', '0x10', '1e3'])
      assert.throws(() => demoPort({ SIM_PORT: v }, 'SIM_PORT', 0), DemoConfigError, v);
  });

  it('any other listen error is left as it is (a stack trace, for a bug)', function () {
    assert.equal(portProblem(Object.assign(new Error('x'), { code: 'EACCES' }), 'PORT', 80), undefined);
    assert.equal(portProblem(new Error('x'), 'PORT', 1880), undefined);
  });
});
