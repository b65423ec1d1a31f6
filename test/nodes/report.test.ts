/**
 * tb-build-report in the real runtime against the simulator's analytics service (mounted at /apiTrendz/):
 * range modes, filters, formats, split, the 429 retry path, 400/500, timeouts, token expiry and re-login,
 * and the per-connection concurrency limit.
 */
import assert from 'node:assert/strict';
import sinon from 'sinon';
import { BASE_TIME, HOUR, VIEW_ENERGY_PER_BUILDING_PER_DAY, VIEW_ENERGY_PER_BUILDING_PER_HOUR } from '../../sim';
import tbBuildReport from '../../src/nodes/tb-build-report/index';
import tbConnection from '../../src/nodes/tb-connection/index';
import {
  connectionNode,
  flow,
  helper,
  inject,
  key,
  message,
  messages,
  statuses,
  TENANT,
  assertCode,
  useRuntime,
} from '../support/runtime';
import { waitFor } from '../support/wait';

const NODES = [tbConnection, tbBuildReport];
type Rec = Record<string, unknown>;
const DAY_VIEW = VIEW_ENERGY_PER_BUILDING_PER_DAY;
const HOUR_VIEW = VIEW_ENERGY_PER_BUILDING_PER_HOUR;

function reportNode(extra: Rec = {}): Rec {
  return {
    id: 'r',
    type: 'tb-build-report',
    connection: 'c1',
    viewConfigId: DAY_VIEW,
    viewConfigIdType: 'str',
    range: 'view',
    last: 24,
    lastUnit: 'hours',
    filters: '{}',
    filtersType: 'json',
    format: 'rows',
    split: false,
    parseNumbers: false,
    maxRetries: 5,
    maxWait: 120,
    wires: [['out']],
    ...extra,
  };
}

describe('tb-build-report (runtime + simulator analytics)', function () {
  const sim = useRuntime(
    { now: () => BASE_TIME + HOUR },
    {
      reset: (s) => {
        s.analytics.resetRequests();
        s.analytics.resetStats();
      },
      cleanup: (s) => {
        s.analytics.faults.clear();
        s.analytics.setReportDelay(0);
      },
    },
  );

  const load = (node: Rec, conn: Rec = {}) =>
    helper.load(
      NODES,
      flow(connectionNode(sim.url, { analyticsUrl: `${sim.url}/apiTrendz/`, analyticsAuth: 'same', ...conn }), node),
      { c1: TENANT },
    );

  const byBuilding = (rows: Rec[]) => Object.fromEntries(rows.map((r) => [r.Building, r.energy]));

  it("the view's own range: rows in column order and msg.columns", async () => {
    await load(reportNode());
    const got = message('out');
    inject('r', { payload: 'go', topic: 'daily' });
    const m = await got;
    assert.deepEqual(m.columns, ['Date', 'Building', 'energy']);
    const rows = m.payload as Rec[];
    assert.deepEqual(Object.keys(rows[0]), ['Date', 'Building', 'energy']);
    assert.deepEqual(byBuilding(rows), { 'Building Alpha': 48002, 'Building Beta': 46803, 'Building Gamma': 73201 });
    assert.equal(typeof rows[0].Date, 'number');
    assert.equal(m.topic, 'daily');
    const st = statuses('r');
    assert.deepEqual(st[st.length - 1], { fill: 'green', shape: 'dot', text: key('rows') });
    assert.ok(st.some((s) => s.text === key('building')));
  });

  it('the last N hours, computed when the message arrives', async () => {
    const clock = sinon.useFakeTimers({ toFake: ['Date'], now: BASE_TIME });
    try {
      await load(reportNode({ range: 'last', last: 2, lastUnit: 'hours', viewConfigId: HOUR_VIEW }));
      const got = message('out');
      inject('r', { payload: 1 });
      const rows = (await got).payload as Rec[];
      assert.equal(rows.length, 6, '2 hours x 3 buildings');
      assert.deepEqual([...new Set(rows.map((r) => r.Date))], [BASE_TIME - 2 * HOUR, BASE_TIME - HOUR]);
    } finally {
      clock.restore();
    }
  });

  it('a fixed range from the node, and a range from msg.payload', async () => {
    await load(
      reportNode({
        range: 'fixed',
        rangeStartTs: BASE_TIME - 3 * HOUR,
        rangeEndTs: BASE_TIME,
        viewConfigId: HOUR_VIEW,
      }),
    );
    let got = message('out');
    inject('r', { payload: 1 });
    assert.equal(((await got).payload as Rec[]).length, 9);
    await helper.unload();
    await load(reportNode({ range: 'msg', viewConfigId: 'payload.view', viewConfigIdType: 'msg' }));
    got = message('out');
    inject('r', { payload: { view: HOUR_VIEW, rangeStartTs: BASE_TIME - HOUR, rangeEndTs: BASE_TIME } });
    assert.equal(((await got).payload as Rec[]).length, 3);
  });

  it('filters from JSON, from the message and from JSONata', async () => {
    for (const f of [
      { filtersType: 'json', filters: '{"Building": ["Building Alpha"]}' },
      { filtersType: 'msg', filters: 'payload.filters' },
      { filtersType: 'jsonata', filters: '{"Building": [payload.b]}' },
    ]) {
      await load(reportNode(f));
      const got = message('out');
      inject('r', { payload: { filters: { Building: ['Building Alpha'] }, b: 'Building Alpha' } });
      const rows = (await got).payload as Rec[];
      assert.deepEqual(byBuilding(rows), { 'Building Alpha': 48002 }, JSON.stringify(f));
      assert.equal(rows.length, 1);
      await waitFor(() => statuses('r').at(-1)?.fill === 'green');
      assert.deepEqual(statuses('r').at(-1), { fill: 'green', shape: 'dot', text: key('oneRow') }, 'one row, singular');
      await helper.unload();
    }
  });

  it('formats: the server table, CSV with a header row, and rows split into a sequence', async () => {
    await load(reportNode({ format: 'table' }));
    let got = message('out');
    inject('r', { payload: 1 });
    const table = (await got).payload as Rec;
    assert.deepEqual(table.columnLabels, ['Date', 'Building', 'energy']);
    assert.equal((table.dataTable as unknown[]).length, 3);
    await helper.unload();

    await load(reportNode({ format: 'csv' }));
    got = message('out');
    inject('r', { payload: 1 });
    const csv = (await got).payload as string;
    const lines = csv.split('\r\n');
    assert.equal(lines[0], 'Date,Building,energy');
    assert.match(lines[1], /^\d{13},Building Alpha,48002$/);
    assert.equal(lines.length, 5, 'header, 3 rows, final CRLF');
    await helper.unload();

    await load(reportNode({ split: true }));
    const parts = messages('out', 3);
    inject('r', { payload: 1 });
    const ms = await parts;
    assert.deepEqual(
      ms.map((m) => (m.parts as Rec).index),
      [0, 1, 2],
    );
    assert.ok(ms.every((m) => (m.parts as Rec).count === 3));
    assert.equal((ms[0].payload as Rec).Building, 'Building Alpha');
  });

  it('numeric text from the server becomes numbers with parseNumbers', async () => {
    sim.analytics.setNumericStrings(true);
    try {
      for (const parseNumbers of [false, true]) {
        await load(reportNode({ parseNumbers }));
        const got = message('out');
        inject('r', { payload: 1 });
        const row = ((await got).payload as Rec[])[0];
        assert.equal(typeof row.energy, parseNumbers ? 'number' : 'string');
        assert.equal(typeof row.Date, parseNumbers ? 'number' : 'string');
        await helper.unload();
      }
    } finally {
      sim.analytics.setNumericStrings(false);
    }
  });

  it('saved by version 1 without parseNumbers and filters: read as then, numbers as text and no filter', async () => {
    sim.analytics.setNumericStrings(true);
    try {
      const { parseNumbers: _p, filters: _f, ...saved } = reportNode({ filtersType: 'msg' });
      // A version 2 node without them (written by hand) reads their defaults: parseNumbers on, filters {} (none).
      for (const [node, numbers] of [
        [saved, false],
        [{ ...saved, version: 2, filtersType: 'json' }, true],
      ] as const) {
        await load(node);
        const got = message('out');
        inject('r', { payload: 1 });
        const rows = (await got).payload as Rec[];
        assert.ok(rows.length > 1, 'every building: no filter');
        assert.equal(typeof rows[0].energy, numbers ? 'number' : 'string');
        await helper.unload();
      }
    } finally {
      sim.analytics.setNumericStrings(false);
    }
  });

  it('bad requests are refused before the network, naming the field', async () => {
    await load(
      reportNode({
        viewConfigId: 'payload.view',
        viewConfigIdType: 'msg',
        range: 'msg',
        filtersType: 'msg',
        filters: 'payload.filters',
      }),
    );
    const cases: Array<[Rec, RegExp]> = [
      [{ view: 'energy' }, /msg\.payload\.view must be the UUID of an analytics view/],
      [{ view: DAY_VIEW }, /msg\.payload\.rangeStartTs and msg\.payload\.rangeEndTs must be set/],
      [
        { view: DAY_VIEW, rangeStartTs: 10, rangeEndTs: 5 },
        /msg\.payload\.rangeStartTs \(10\) must be before msg\.payload\.rangeEndTs \(5\)/,
      ],
      [
        { view: DAY_VIEW, rangeStartTs: 1, rangeEndTs: 5, filters: ['x'] },
        /msg\.payload\.filters must be an object of filter name/,
      ],
    ];
    const caught = messages('caught', cases.length);
    for (const [payload] of cases) inject('r', { payload });
    (await caught).forEach((m, i) => {
      const e = m.error as Rec;
      assertCode(e, 'TB_INVALID_INPUT');
      assert.match(e.message as string, cases[i][1]);
    });
    assert.equal(sim.analytics.countRequests('/'), 0, 'nothing sent, not even a login');
  });

  it('400 (unknown view) is reported with the view and the server message, and not retried', async () => {
    const unknown = '11111111-2222-4333-8444-555555555555';
    await load(reportNode({ viewConfigId: unknown }));
    const caught = message('caught');
    inject('r', { payload: 1 });
    const e = (await caught).error as Rec;
    assertCode(e, 'TB_BAD_REQUEST');
    assert.match(
      e.message as string,
      new RegExp(`rejected the report for view ${unknown} \\(HTTP 400: View config not found`),
    );
    assert.equal(sim.analytics.countRequests('/apiTrendz/publicApi/buildReport'), 1);
  });

  it('429 (queue full): retried, with "queued, retry n" in the status, then succeeds; gives up at maxRetries', async () => {
    await load(reportNode({ maxRetries: 2 }));
    sim.analytics.faults.add({ path: 'publicApi/buildReport', status: 429, times: 2, retryAfter: 0 });
    let got = message('out');
    inject('r', { payload: 1 });
    assert.equal(((await got).payload as Rec[]).length, 3);
    assert.ok(statuses('r').some((s) => s.fill === 'yellow' && s.text === key('queued')));
    assert.equal(sim.analytics.countRequests('/apiTrendz/publicApi/buildReport'), 3);

    sim.analytics.resetRequests();
    sim.analytics.faults.add({ path: 'publicApi/buildReport', status: 429, times: 5, retryAfter: 0 });
    const caught = message('caught');
    inject('r', { payload: 1 });
    const e = (await caught).error as Rec;
    assertCode(e, 'TB_RATE_LIMITED');
    assert.match(e.message as string, /report queue stayed full for view .* \(gave up after 2 retries/);
    assert.equal(sim.analytics.countRequests('/apiTrendz/publicApi/buildReport'), 3);
    got = message('out');
    inject('r', { payload: 1 });
    await got; // and the node keeps working
  });

  it('the real queue: 30 reports against a queue of 2+2 all succeed through the retry path', async () => {
    sim.analytics.setQueue({ concurrency: 2, queueCapacity: 2 });
    sim.analytics.setReportDelay(15);
    try {
      await load(reportNode({ maxRetries: 20, maxWait: 60 }), { reportConcurrency: 10 });
      const all = messages('out', 30, 30000);
      for (let i = 0; i < 30; i++) inject('r', { payload: i });
      const ms = await all;
      assert.equal(ms.length, 30);
      assert.ok(sim.analytics.stats.rejected > 0, 'the queue did fill up');
    } finally {
      sim.analytics.setQueue({ concurrency: 10, queueCapacity: 10 });
    }
  });

  it('the connection runs at most reportConcurrency reports at once', async () => {
    sim.analytics.setReportDelay(20);
    await load(reportNode(), { reportConcurrency: 2 });
    const all = messages('out', 8);
    for (let i = 0; i < 8; i++) inject('r', { payload: i });
    await all;
    assert.equal(sim.analytics.stats.maxConcurrentSeen, 2);
    assert.equal(sim.analytics.stats.rejected, 0);
  });

  it('500 carries the server message; a slow report times out', async () => {
    await load(reportNode(), { reportTimeout: 0.3 });
    sim.analytics.faults.add({
      path: 'publicApi/buildReport',
      status: 500,
      body: { status: 500, message: 'Report computation failed: boom' },
    });
    let caught = message('caught');
    inject('r', { payload: 1 });
    let e = (await caught).error as Rec;
    assertCode(e, 'TB_REPORT_FAILED');
    assert.match(
      e.message as string,
      /failed to build the report for view .* \(HTTP 500: Report computation failed: boom\)/,
    );
    sim.analytics.faults.add({ path: 'publicApi/buildReport', delayMs: 2000 });
    caught = message('caught');
    inject('r', { payload: 1 });
    e = (await caught).error as Rec;
    assertCode(e, 'TB_TIMEOUT');
  });

  it('an expired token is renewed once (401) and the report retried', async () => {
    await load(reportNode());
    let got = message('out');
    inject('r', { payload: 1 });
    await got;
    sim.analytics.expireAllTokens();
    got = message('out');
    inject('r', { payload: 1 });
    await got;
    assert.equal(sim.analytics.countRequests('/apiTrendz/publicApi/buildReport'), 3);
    assert.equal(
      sim.analytics.countRequests('/apiTrendz/publicApi/auth/token') +
        sim.analytics.countRequests('/apiTrendz/publicApi/auth/login'),
      2,
    );
  });

  it('a service that answers 403 for an expired token is treated the same way (re-authenticate once)', async () => {
    sim.analytics.setAuthErrorStatus(403);
    try {
      await load(reportNode());
      let got = message('out');
      inject('r', { payload: 1 });
      await got;
      sim.analytics.expireAllTokens();
      got = message('out');
      inject('r', { payload: 1 });
      assert.equal(((await got).payload as Rec[]).length, 3);
      assert.equal(sim.analytics.countRequests('/apiTrendz/publicApi/buildReport'), 3);
    } finally {
      sim.analytics.setAuthErrorStatus(401);
    }
  });

  it('logs in again before expiry when the service has no refresh endpoint', async () => {
    const clock = sinon.useFakeTimers({ toFake: ['Date'], now: Date.now() });
    sim.analytics.setRefreshEnabled(false);
    sim.analytics.setTokenLifetime(600);
    try {
      await load(reportNode());
      let got = message('out');
      inject('r', { payload: 1 });
      await got;
      clock.tick(590 * 1000);
      got = message('out');
      inject('r', { payload: 1 });
      await got;
      assert.equal(sim.analytics.countRequests('/apiTrendz/publicApi/auth/login'), 2);
      assert.equal(sim.analytics.countRequests('/apiTrendz/publicApi/buildReport'), 2, 'no 401 on the way');
    } finally {
      clock.restore();
      sim.analytics.setRefreshEnabled(true);
      sim.analytics.setTokenLifetime(9000);
    }
  });

  it('without an analytics URL on the connection: a configuration error', async () => {
    await load(reportNode(), { analyticsUrl: '' });
    const caught = message('caught');
    inject('r', { payload: 1 });
    const e = (await caught).error as Rec;
    assertCode(e, 'TB_CONFIG');
    assert.match(e.message as string, /no analytics URL/);
  });
});

/** Polls a condition on the event loop; rejects after `ms`. */
