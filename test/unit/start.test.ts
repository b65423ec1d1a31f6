/**
 * The `npm start` flow builder (scripts/start.ts): the demo connection for each combination of the TB_*
 * variables (no server needed), the flows built from every example, and the secret of a real server's
 * credentials.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { DemoConfigError, demoFlows, demoSecret, demoServer, repeats, SIMULATOR_CREDENTIALS } from '../../scripts/start';

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
        id: 'tb-demo-connection', type: 'tb-connection', name: 'Demo (simulator)', url: SIM, authMode: 'password',
        analyticsUrl: `${SIM}/apiTrendz/`, analyticsAuth: 'same', timeout: 30, reportConcurrency: 2, reportTimeout: 300, version: 1,
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
      id: 'tb-demo-connection', type: 'tb-connection', name: 'Demo (tb.example.com)', url: TB, authMode: 'password',
      analyticsUrl: '', analyticsAuth: 'same', timeout: 30, reportConcurrency: 2, reportTimeout: 300, version: 1,
    });
    assert.equal(s.description, `ThingsBoard server:    ${TB} (signed in with a username and password)`);
    assert.ok(!s.description.includes(SECRET) && !s.description.includes('me@example.com'), 'the description names no credential');
  });

  it('TB_URL + TB_API_KEY: API key mode', function () {
    const s = demoServer({ TB_URL: TB, TB_API_KEY: KEY }, SIM);
    assert.equal(s.connection.authMode, 'apiKey');
    assert.deepEqual(s.connection.credentials, { apiKey: KEY });
    assert.equal(s.connection.url, TB);
    assert.ok(!s.description.includes(KEY));
  });

  it('TB_ANALYTICS_URL: the platform sign-in, or its own with TB_ANALYTICS_USERNAME/PASSWORD (needed with an API key)', function () {
    let s = demoServer({ TB_URL: TB, TB_USERNAME: 'u', TB_PASSWORD: 'p', TB_ANALYTICS_URL: 'http://trendz:8888/apiTrendz' }, SIM);
    assert.equal(s.connection.analyticsUrl, 'http://trendz:8888/apiTrendz/');
    assert.equal(s.connection.analyticsAuth, 'same');
    assert.deepEqual(s.connection.credentials, { username: 'u', password: 'p' });
    assert.match(s.description, /\nAnalytics: +http:\/\/trendz:8888\/apiTrendz\/$/);
    s = demoServer({ TB_URL: TB, TB_API_KEY: KEY, TB_ANALYTICS_URL: `${TB}/apiTrendz/`, TB_ANALYTICS_USERNAME: 'a', TB_ANALYTICS_PASSWORD: 'b' }, SIM);
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
      [{ TB_URL: TB, TB_API_KEY: KEY, TB_ANALYTICS_URL: `${TB}/apiTrendz/` }, /TB_ANALYTICS_USERNAME and TB_ANALYTICS_PASSWORD/],
      [{ TB_URL: TB, TB_API_KEY: KEY, TB_ANALYTICS_URL: `${TB}/apiTrendz/`, TB_ANALYTICS_USERNAME: 'a' }, /both TB_ANALYTICS_USERNAME and TB_ANALYTICS_PASSWORD/],
      [{ TB_URL: TB, TB_API_KEY: KEY, TB_ANALYTICS_USERNAME: 'a', TB_ANALYTICS_PASSWORD: SECRET }, /need TB_ANALYTICS_URL/],
    ];
    for (const [env, re] of bad) {
      assert.throws(
        () => demoServer(env, SIM),
        (err: unknown) => err instanceof DemoConfigError && re.test(err.message) && !err.message.includes(SECRET) && !err.message.includes(KEY),
        JSON.stringify(env),
      );
    }
  });

  it('deploys every example on its own tab (the example\'s), every ThingsBoard node on the one demo connection', function () {
    const conn = demoServer({ TB_URL: TB, TB_API_KEY: KEY }, SIM).connection;
    const flows = demoFlows(conn);
    const dir = path.join(__dirname, '../../examples');
    const examples = fs.readdirSync(dir).filter((f) => f.endsWith('.json'));
    const tabs = flows.filter((n) => n.type === 'tab');
    assert.deepEqual(tabs.map((t) => t.label).sort(), examples.map((f) => f.replace(/\.json$/, '')).sort());
    assert.deepEqual(flows.filter((n) => n.type === 'tb-connection'), [conn], 'one connection: the demo one');
    let nodes = 0;
    for (const f of examples) {
      const example = JSON.parse(fs.readFileSync(path.join(dir, f), 'utf8')) as Array<Record<string, unknown>>;
      const tab = example.find((n) => n.type === 'tab')!;
      assert.deepEqual(flows.find((n) => n.id === tab.id), tab, `${f}: its own tab`);
      for (const n of example) {
        if (n.type === 'tb-connection') continue;
        nodes++;
        const deployed = flows.find((x) => x.id === n.id);
        assert.ok(deployed, `${f}: ${n.type} ${n.id} is deployed`);
        if (typeof n.connection === 'string') assert.equal(deployed!.connection, conn.id);
        if (n.type !== 'tab') assert.equal(deployed!.z, tab.id, `${n.id} is on its example's tab`);
      }
    }
    assert.equal(flows.length, 1 + nodes);
    assert.equal(JSON.stringify(flows.filter((n) => n !== conn)).includes(KEY), false);
  });

  it('starts the repeating injects at deploy (the demo is set up; the examples wait), and writes files where it is told', function () {
    const conn = demoServer({}, SIM).connection;
    const dir = path.join(__dirname, '../../examples');
    const examples = fs.readdirSync(dir).filter((f) => f.endsWith('.json'))
      .flatMap((f) => JSON.parse(fs.readFileSync(path.join(dir, f), 'utf8')) as Array<Record<string, unknown>>);
    const repeating = examples.filter(repeats);
    assert.ok(repeating.length > 0, 'some example repeats');
    for (const n of repeating) assert.equal(n.once, false, `example inject "${n.name}" waits for its first interval`);
    const fileDir = path.join(os.tmpdir(), 'tb-demo-files');
    const flows = demoFlows(conn, { fileDir });
    for (const n of repeating) assert.equal(flows.find((x) => x.id === n.id)!.once, true, `demo inject "${n.name}" fires at deploy`);
    for (const n of examples.filter((x) => x.type === 'inject' && !repeats(x))) {
      assert.equal(flows.find((x) => x.id === n.id)!.once, n.once, `inject "${n.name}" as in its example`);
    }
    const files = examples.filter((n) => n.type === 'file');
    assert.ok(files.length > 0, 'an example writes a file');
    for (const n of files) {
      assert.equal(flows.find((x) => x.id === n.id)!.filename, path.join(fileDir, n.filename as string));
      assert.equal(demoFlows(conn).find((x) => x.id === n.id)!.filename, n.filename, 'without fileDir: as in the example');
    }
  });

  it('keeps the secret for a real server\'s credentials in .demo/.secret, generated once, owner-only', function () {
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
