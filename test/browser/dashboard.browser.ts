/**
 * The dashboard example in a real Dashboard 2 (`@flowfuse/node-red-dashboard`, a devDependency), in chromium: deployed
 * as `npm start` deploys it, against the simulator with the demo's data (a week of hourly history up to now, its clock
 * off so that nothing moves by itself). The day's chart draws each hourly average at its own time, the live line grows
 * by the value the simulator stores, the table shows the active alarms and its button acknowledges one, and the gauge
 * shows the critical count. It takes the README's picture of the dashboard, docs/images/dashboard.png.
 */
import { strict as assert } from 'node:assert';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { BrowserContext, Page } from 'playwright-core';
import { ownTemperature, startDemoActivity } from '../../scripts/demo-activity';
import { type Embedded } from '../../scripts/embedded';
import { dashboardUrl, demoFlows, demoServer } from '../../scripts/start';
import { dbl } from '../../sim';
import { useSimulator } from '../support/simulator';
import { waitFor } from '../support/wait';
import { launchChromium, requireChromium, screenshotDir } from './chromium';
import { deployFlows, sharedNodeRed } from './nodered';

const TITLE = 'Dashboard of temperatures, live line and alarms';
const WAIT = 15000;
const HOUR = 3600000;

type Node = Record<string, any> & { id: string; type: string };
/** A chart's series as its ECharts instance holds them: `data` is [x, y] per point. */
type Series = { name: string; data: Array<[number, number]> };

describe('Dashboard 2: the dashboard example (browser)', function () {
  this.timeout(60000);

  const sim = useSimulator();
  let stopActivity: () => void = () => undefined;
  let nr: Embedded;
  let context: BrowserContext;
  let page: Page;
  let userDir: string;
  let flows: Node[];
  const pageErrors: string[] = [];

  /** The example's node of this type and name. */
  const node = (type: string, name: string): Node => {
    const n = flows.find((x) => x.type === type && x.name === name);
    assert.ok(n, `the example has a ${type} named "${name}"`);
    return n!;
  };

  before(async function () {
    requireChromium();
    userDir = fs.mkdtempSync(path.join(os.tmpdir(), 'tb-browser-dashboard-'));
    stopActivity = startDemoActivity(sim, { clock: false });
    ({ nr } = await sharedNodeRed());
    // The example as the demo deploys it (on the demo connection), without the other examples' tabs.
    const all = demoFlows(demoServer({}, sim.url).connection, { fileDir: userDir, dashboard: true }) as Node[];
    const tab = all.find((n) => n.type === 'tab' && n.label === TITLE);
    assert.ok(tab, `the demo deploys "${TITLE}"`);
    flows = all.filter((n) => (n.type === 'tab' ? n.id === tab.id : n.z === undefined || n.z === tab.id));
    await deployFlows(nr, flows);
    ({ context, page } = await launchChromium(path.join(userDir, 'profile')));
    await page.setViewportSize({ width: 1400, height: 1000 });
    page.on('pageerror', (err) => pageErrors.push(err.stack || err.message));
    // A chart draws on a canvas: its points are read from its ECharts instance. Dashboard 2 hands each chart's
    // component to window.uiCharts when window.Cypress is set (the hook of its own end-to-end tests).
    await page.addInitScript(() => {
      (window as any).Cypress = {};
    });
    const url = dashboardUrl(flows, nr.url);
    assert.equal(url, `${nr.url}/dashboard/thermostats`, 'the address npm start prints');
    await page.goto(url!);
  });

  afterEach(function () {
    assert.deepEqual(pageErrors.splice(0), [], 'page errors');
  });

  after(async function () {
    await context?.close().catch(() => undefined);
    if (nr) await deployFlows(nr, []).catch(() => undefined); // its nodes let go of the simulator
    stopActivity();
    if (userDir) fs.rmSync(userDir, { recursive: true, force: true });
  });

  /** The series of a chart, once `ready` holds for them (waited for in the page). */
  async function chartSeries(name: string, ready: string): Promise<Series[]> {
    const id = node('ui-chart', name).id;
    const read = `(() => {
      const c = window.uiCharts && window.uiCharts[${JSON.stringify(id)}];
      const option = c && c.chart && c.chart.getOption();
      return option ? option.series.map((s) => ({ name: s.name, data: (s.data || []).map((d) => [d[0], d[1]]) })) : [];
    })()`;
    await page
      .waitForFunction(`((series) => ${ready})(${read})`, undefined, { timeout: WAIT })
      .catch(async () =>
        assert.fail(`chart "${name}": ${ready} never held: ${JSON.stringify(await page.evaluate(read))}`),
      );
    return (await page.evaluate(read)) as Series[];
  }

  const thermostat = (series: string) => sim.data.mustFindByName('DEVICE', series.replace(/ · temperature$/, ''));

  it("the day's chart: one line per thermostat, each hourly average drawn at its own time", async function () {
    const series = await chartSeries(
      'a day, hourly',
      'series.length === 3 && series.every((s) => s.data.length === 24)',
    );
    assert.deepEqual(series.map((s) => s.name).sort(), [
      'Thermo A-101 · temperature',
      'Thermo A-102 · temperature',
      'Thermo A-103 · temperature',
    ]);
    const now = Date.now();
    for (const s of series) {
      const device = thermostat(s.name);
      const xs = s.data.map((d) => d[0]);
      assert.ok(
        xs.every((x, i) => i === 0 || x - xs[i - 1] === HOUR),
        `${s.name}: an hour apart, oldest first: ${xs.join(', ')}`,
      );
      assert.ok(xs[0] < now - 23 * HOUR && xs[23] < now, `${s.name}: the last 24 hours, not now (${xs[0]}…${xs[23]})`);
      // Each point is its hour's average, stamped at the middle of the hour: the stored values of that hour.
      for (const [x, y] of s.data) {
        const stored = sim.data.history(device.id, 'temperature', x - HOUR / 2, x + HOUR / 2 - 1);
        assert.ok(stored.length > 0, `${s.name}: values stored in the hour around ${new Date(x).toISOString()}`);
        const mean = stored.reduce((sum, p) => sum + Number(p.value), 0) / stored.length;
        assert.ok(Math.abs(y - mean) < 1e-9, `${s.name} at ${new Date(x).toISOString()}: ${y}, stored ${mean}`);
      }
    }
  });

  it('the live line: the latest values first, then each value the rooms report as the next point of its line', async function () {
    const first = await chartSeries('live line', 'series.length === 3 && series.every((s) => s.data.length === 1)');
    for (const s of first) {
      const latest = sim.data.latestOf(thermostat(s.name).id, 'temperature')!;
      assert.deepEqual(s.data, [[latest.ts, latest.value]], `${s.name}: its latest value`);
    }
    // The rooms report what the demo's rooms would, one value each in turn, between their last value and now: what
    // the live line looks like after a while (the README's picture shows it).
    const from = Math.max(...first.map((s) => s.data[0][0]));
    const now = Date.now();
    const sent = new Map<string, Array<[number, number]>>(first.map((s) => [s.name, []]));
    for (let i = 1; i <= 8; i++) {
      const ts = from + Math.round(((now - from) * i) / 9);
      for (const s of first) {
        const device = thermostat(s.name);
        const v = Math.round(ownTemperature(device.name, ts) * 10) / 10;
        sim.data.setTelemetry(device.id, { temperature: dbl(v) }, ts);
        sent.get(s.name)!.push([ts, v]);
      }
    }
    const series = await chartSeries('live line', 'series.length === 3 && series.every((s) => s.data.length === 9)');
    for (const s of series) {
      assert.deepEqual(s.data, [first.find((f) => f.name === s.name)!.data[0], ...sent.get(s.name)!], s.name);
    }
  });

  /** The texts of the table's rows, by column key, in the order shown. */
  const readRows = `Array.from(document.querySelectorAll('#nrdb-ui-widget-' + tableId + ' tbody tr')).map((tr) => {
    const cells = {};
    tr.querySelectorAll('td[data-column-key]').forEach((td) => {
      cells[td.getAttribute('data-column-key')] = (td.textContent || '').trim();
    });
    return cells;
  })`;

  /**
   * Waits until the table shows the simulator's active alarms (a page of 10 of them, newest first: alarms of the same
   * time in either order), and returns its rows.
   */
  async function tableShowsActiveAlarms(): Promise<Array<Record<string, string>>> {
    const tableId = node('ui-table', 'active alarms').id;
    const key = (r: { originator: string; type: string; status: string; severity: string }) =>
      [r.originator, r.type, r.severity, r.status].join(' | ');
    const expected = sim.data
      .alarms()
      .filter((a) => !a.cleared)
      .sort((a, b) => b.createdTime - a.createdTime)
      .slice(0, 10)
      .map((a) =>
        key({
          originator: sim.data.get(a.originator.id)!.name,
          type: a.type,
          severity: a.severity,
          status: alarmStatus(a),
        }),
      )
      .sort();
    const read = `((tableId) => ${readRows})(${JSON.stringify(tableId)})`;
    await page
      .waitForFunction(
        `JSON.stringify(${read}.map((r) => [r.originator, r.type, r.severity, r.status].join(' | ')).sort()) === ` +
          JSON.stringify(JSON.stringify(expected)),
        undefined,
        { timeout: WAIT },
      )
      .catch(async () =>
        assert.fail(`table ${JSON.stringify(await page.evaluate(read))}, active alarms ${JSON.stringify(expected)}`),
      );
    return (await page.evaluate(read)) as Array<Record<string, string>>;
  }
  const alarmStatus = (a: { acknowledged: boolean; cleared: boolean }) =>
    `${a.cleared ? 'CLEARED' : 'ACTIVE'}_${a.acknowledged ? 'ACK' : 'UNACK'}`;

  /** The number the gauge shows, once it is `n`. */
  async function gaugeShows(n: number): Promise<void> {
    const id = node('ui-gauge', 'critical alarms').id;
    await page
      .waitForFunction(
        ([gauge, text]) =>
          document.querySelector(`#nrdb-ui-widget-${gauge} .nrdb-ui-gauge-value span`)?.textContent?.trim() === text,
        [id, String(n)] as const,
        { timeout: WAIT },
      )
      .catch(async () =>
        assert.fail(
          `the gauge shows ${await page.evaluate(
            (gauge) => document.querySelector(`#nrdb-ui-widget-${gauge} .nrdb-ui-gauge-value`)?.textContent,
            id,
          )}, not ${n}`,
        ),
      );
  }
  const criticalCount = () => sim.data.alarms().filter((a) => !a.cleared && a.severity === 'CRITICAL').length;

  it('the table shows the active alarms, a new one comes first, and the gauge counts the critical ones', async function () {
    const before = await tableShowsActiveAlarms();
    assert.ok(before.length > 0, 'the demo has active alarms');
    assert.ok(criticalCount() > 0, 'the demo has an active critical alarm');
    await gaugeShows(criticalCount());
    const device = sim.data.mustFindByName('DEVICE', 'Thermo B-101');
    sim.data.createAlarm({ originator: device.id, type: 'Too warm', severity: 'CRITICAL' });
    const rows = await tableShowsActiveAlarms();
    assert.deepEqual([rows[0].originator, rows[0].type, rows[0].severity], ['Thermo B-101', 'Too warm', 'CRITICAL']);
    await gaugeShows(criticalCount());
  });

  it("a row's Acknowledge button acknowledges its alarm on the server, and the table shows it acknowledged", async function () {
    const alarm = sim.data.alarms().find((a) => a.type === 'Too warm' && !a.cleared);
    assert.ok(alarm && !alarm.acknowledged, 'the new alarm, not acknowledged');
    const row = page
      .locator(`#nrdb-ui-widget-${node('ui-table', 'active alarms').id} tbody tr`)
      .filter({ hasText: 'Thermo B-101' })
      .filter({ hasText: 'Too warm' });
    await row.getByRole('button', { name: 'Acknowledge' }).click();
    await waitFor(() => sim.data.getAlarm(alarm.id)!.acknowledged, WAIT, 'the alarm acknowledged on the server');
    const rows = await tableShowsActiveAlarms();
    assert.equal(rows.find((r) => r.originator === 'Thermo B-101' && r.type === 'Too warm')?.status, 'ACTIVE_ACK');
    // Only that alarm.
    assert.deepEqual(
      sim.data
        .alarms()
        .filter((a) => a.acknowledged && a.ackTs >= alarm.createdTime)
        .map((a) => a.id),
      [alarm.id],
    );
    // The README's picture: the whole page, every widget drawn.
    await page.screenshot({ path: path.join(screenshotDir(), 'dashboard.png'), fullPage: true });
  });
});
