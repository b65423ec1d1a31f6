import assert from 'node:assert/strict';
import { once } from 'node:events';
import {
  DAY,
  DEFAULT_RANGE,
  DEMO_VIEW_ID,
  VIEW_DEVICE_TEMPERATURE,
  VIEW_ENERGY_PER_BUILDING_PER_DAY,
  VIEW_ENERGY_PER_BUILDING_PER_HOUR,
  VIEW_TOP_ALARMED_DEVICES,
  viewIdFor,
} from '../../sim/analytics';
import { BASE_TIME, HOUR } from '../../sim/dataset';
import { useAnalyticsSetup } from '../support/simulator';
import { fakeTimers } from '../support/wait';

const DAY_VIEW = VIEW_ENERGY_PER_BUILDING_PER_DAY;
const DEC31 = BASE_TIME - DAY; // 2025-12-31T00:00:00Z

/** The seed's hourly history formula (sim/seed.ts addSeries), recomputed here by hand. */
function seedPoint(last: number, wobble: number, h: number, isDouble: boolean): number {
  const v = last + Math.round(Math.sin((h + wobble) / 3) * 20) / 10;
  return isDouble ? v : Math.round(v);
}
/** Sum of the 24 history points before BASE_TIME (h = 24 … 1). */
function seedSum(last: number, wobble: number, isDouble = false): number {
  let s = 0;
  for (let h = 24; h >= 1; h--) s += seedPoint(last, wobble, h, isDouble);
  return s;
}
// wobble indexes from seed.ts: per floor the meter's power, energy, then each thermostat's temperature, humidity
const W = { A100: 1, A200: 9, B100: 16, B200: 24, G100: 31, G200: 39, A101t: 2 };

describe('simulator: analytics views (tables from the dataset)', function () {
  const c = useAnalyticsSetup({}, { perTest: true });
  let token: string;
  beforeEach(async () => {
    token = (await c.login()).token;
  });

  async function table(
    body: Record<string, unknown>,
    t = token,
  ): Promise<{ columnLabels: string[]; dataTable: Array<Record<string, unknown>> }> {
    const r = await c.report(t, body);
    assert.equal(r.status, 200, r.text);
    return r.body;
  }

  describe('ENERGY_PER_BUILDING_PER_DAY (the demo view 5b1f6c2e-…)', () => {
    it('is the demo view id and has Date, Building, energy', async () => {
      assert.equal(DEMO_VIEW_ID, '5b1f6c2e-0d3a-4f7e-9a21-7c4e8b2d9f10');
      assert.equal(DAY_VIEW, DEMO_VIEW_ID);
      const t = await table({ viewConfigId: DEMO_VIEW_ID });
      assert.deepEqual(t.columnLabels, ['Date', 'Building', 'energy']);
      assert.deepEqual(Object.keys(t.dataTable[0]), ['Date', 'Building', 'energy']);
    });

    it('default range (24 h before BASE_TIME): one day, the meters of each building summed', async () => {
      const t = await table({ viewConfigId: DAY_VIEW });
      const alpha = seedSum(1200, W.A100) + seedSum(800, W.A200);
      const beta = seedSum(450, W.B100) + seedSum(1500, W.B200);
      const gamma = seedSum(950, W.G100) + seedSum(2100, W.G200);
      assert.deepEqual(t.dataTable, [
        { Date: DEC31, Building: 'Building Alpha', energy: alpha },
        { Date: DEC31, Building: 'Building Beta', energy: beta },
        { Date: DEC31, Building: 'Building Gamma', energy: gamma },
      ]);
      // the same numbers written out (24 hourly readings of ~1200 + ~800, ~450 + ~1500, ~950 + ~2100)
      assert.deepEqual(
        t.dataTable.map((r) => r.energy),
        [48002, 46803, 73201],
      );
    });

    it('an explicit range: hand-written readings, several relation levels, end exclusive', async () => {
      const d = c.a.data;
      const T = BASE_TIME + DAY; // 2026-01-02, no seeded data
      d.setTelemetry(d.mustFindByName('DEVICE', 'Meter A-100'), { energy: 10 }, T + HOUR);
      d.setTelemetry(d.mustFindByName('DEVICE', 'Meter A-200'), { energy: 5 }, T + 2 * HOUR);
      d.setTelemetry(d.mustFindByName('DEVICE', 'Meter B-100'), { energy: 100 }, T);
      d.setTelemetry(d.mustFindByName('DEVICE', 'Meter A-100'), { energy: 7 }, T + DAY + 5 * HOUR);
      d.setTelemetry(d.mustFindByName('DEVICE', 'Meter G-100'), { energy: 1000 }, T + 2 * DAY); // = end: excluded
      // a meter three levels below Building Alpha: Alpha -> Floor 2 -> Wing -> meter
      const wing = d.addEntity({ entityType: 'ASSET', name: 'Alpha Wing', type: 'wing' });
      d.addRelation(d.mustFindByName('ASSET', 'Alpha Floor 2'), wing, 'Contains');
      const m = d.addEntity({ entityType: 'DEVICE', name: 'Meter A-W', type: 'meter' });
      d.addRelation(wing, m, 'Contains');
      d.setTelemetry(m, { energy: 50 }, T + 3 * HOUR);
      // a meter "Managed" (not contained) by a building does not count
      const loose = d.addEntity({ entityType: 'DEVICE', name: 'Meter Loose', type: 'meter' });
      d.addRelation(d.mustFindByName('ASSET', 'Building Beta'), loose, 'Manages');
      d.setTelemetry(loose, { energy: 999 }, T + HOUR);
      const t = await table({ viewConfigId: DAY_VIEW, rangeStartTs: T, rangeEndTs: T + 2 * DAY });
      assert.deepEqual(t.dataTable, [
        { Date: T, Building: 'Building Alpha', energy: 65 },
        { Date: T, Building: 'Building Beta', energy: 100 },
        { Date: T + DAY, Building: 'Building Alpha', energy: 7 },
      ]);
    });

    it('a range across midnight gives one row per day; the point at rangeEndTs is left out', async () => {
      const t = await table({ viewConfigId: DAY_VIEW, rangeStartTs: BASE_TIME - HOUR, rangeEndTs: BASE_TIME + 1 });
      const alpha = t.dataTable.filter((r) => r.Building === 'Building Alpha');
      // 23:00 readings (h = 1) on Dec 31, the latest values (1200 + 800) at 00:00 on Jan 1
      assert.deepEqual(alpha, [
        {
          Date: DEC31,
          Building: 'Building Alpha',
          energy: seedPoint(1200, W.A100, 1, false) + seedPoint(800, W.A200, 1, false),
        },
        { Date: BASE_TIME, Building: 'Building Alpha', energy: 2000 },
      ]);
      assert.equal(alpha[0].energy, 2001);
      const upTo = await table({ viewConfigId: DAY_VIEW, rangeStartTs: BASE_TIME - HOUR, rangeEndTs: BASE_TIME });
      assert.equal(upTo.dataTable.length, 3);
    });

    it('only one range end given: the other comes from the saved range', async () => {
      const t = await table({ viewConfigId: DAY_VIEW, rangeStartTs: BASE_TIME - HOUR });
      assert.equal(t.dataTable[0].energy, 2001);
    });

    it('filters: Building, Owner; several values; an empty array is no filter', async () => {
      const beta = await table({ viewConfigId: DAY_VIEW, filters: { Building: ['Building Beta'] } });
      assert.deepEqual(beta.dataTable, [{ Date: DEC31, Building: 'Building Beta', energy: 46803 }]);
      const two = await table({
        viewConfigId: DAY_VIEW,
        filters: { Building: ['Building Gamma', 'Building Alpha', 'Nowhere'] },
      });
      assert.deepEqual(
        two.dataTable.map((r) => r.Building),
        ['Building Alpha', 'Building Gamma'],
      );
      const owner = await table({ viewConfigId: DAY_VIEW, filters: { Owner: ['Customer A'] } });
      assert.deepEqual(
        owner.dataTable.map((r) => r.Building),
        ['Building Alpha'],
      );
      const tenantOwned = await table({ viewConfigId: DAY_VIEW, filters: { Owner: ['Tenant'] } });
      assert.deepEqual(
        tenantOwned.dataTable.map((r) => r.Building),
        ['Building Gamma'],
      );
      const meter = await table({ viewConfigId: DAY_VIEW, filters: { Device: ['Meter A-200'] } });
      assert.equal(meter.dataTable[0].energy, seedSum(800, W.A200));
      const none = await table({ viewConfigId: DAY_VIEW, filters: { Building: [] } });
      assert.equal(none.dataTable.length, 3);
      const nothing = await table({ viewConfigId: DAY_VIEW, filters: { Building: ['building alpha'] } });
      assert.deepEqual(nothing.dataTable, [], 'values match exactly');
    });

    it("a customer user sees only its customer's buildings", async () => {
      const cust = (await c.login('customer@thingsboard.org', 'customer')).token;
      const t = await table({ viewConfigId: DAY_VIEW }, cust);
      assert.deepEqual(
        t.dataTable.map((r) => r.Building),
        ['Building Alpha'],
      );
    });

    it('numericStrings: timestamps and measures as numeric strings, dimensions unchanged', async () => {
      c.a.service.setNumericStrings(true);
      const t = await table({ viewConfigId: DAY_VIEW });
      assert.deepEqual(t.dataTable[0], { Date: String(DEC31), Building: 'Building Alpha', energy: '48002' });
      assert.equal(t.dataTable[0].Date, '1767139200000');
    });

    it('reflects telemetry written after start (no stale cache)', async () => {
      const d = c.a.data;
      const before = (await table({ viewConfigId: DAY_VIEW })).dataTable[0].energy as number;
      d.setTelemetry(d.mustFindByName('DEVICE', 'Meter A-100'), { energy: 5000 }, BASE_TIME - 90 * 60_000);
      const after = (await table({ viewConfigId: DAY_VIEW })).dataTable[0].energy as number;
      assert.equal(after - before, 5000);
    });
  });

  describe('ENERGY_PER_BUILDING_PER_HOUR', () => {
    it('24 hours x 3 buildings in the default range; the hours add up to the day view', async () => {
      const t = await table({ viewConfigId: VIEW_ENERGY_PER_BUILDING_PER_HOUR });
      assert.deepEqual(t.columnLabels, ['Date', 'Building', 'energy']);
      assert.equal(t.dataTable.length, 72);
      assert.deepEqual(t.dataTable[0], { Date: DEC31, Building: 'Building Alpha', energy: 1202 + 798 });
      assert.equal(t.dataTable[0].energy, seedPoint(1200, W.A100, 24, false) + seedPoint(800, W.A200, 24, false));
      const lastAlpha = t.dataTable.filter((r) => r.Building === 'Building Alpha').at(-1);
      assert.deepEqual(lastAlpha, { Date: BASE_TIME - HOUR, Building: 'Building Alpha', energy: 2001 });
      const sums: Record<string, number> = {};
      for (const r of t.dataTable)
        sums[r.Building as string] = (sums[r.Building as string] ?? 0) + (r.energy as number);
      assert.deepEqual(sums, { 'Building Alpha': 48002, 'Building Beta': 46803, 'Building Gamma': 73201 });
      const dates = [...new Set(t.dataTable.map((r) => r.Date))];
      assert.deepEqual(
        dates,
        Array.from({ length: 24 }, (_, i) => DEC31 + i * HOUR),
        'sorted by time, then building',
      );
    });

    it('an explicit two-hour range', async () => {
      const t = await table({
        viewConfigId: VIEW_ENERGY_PER_BUILDING_PER_HOUR,
        rangeStartTs: BASE_TIME - 2 * HOUR,
        rangeEndTs: BASE_TIME,
      });
      assert.equal(t.dataTable.length, 6);
      assert.deepEqual(
        t.dataTable.slice(0, 3).map((r) => r.Date),
        [BASE_TIME - 2 * HOUR, BASE_TIME - 2 * HOUR, BASE_TIME - 2 * HOUR],
      );
      assert.equal(t.dataTable[5].Building, 'Building Gamma');
    });
  });

  describe('DEVICE_TEMPERATURE', () => {
    it('one row per device with temperature in range: avg and max, 2 decimals', async () => {
      const t = await table({ viewConfigId: VIEW_DEVICE_TEMPERATURE });
      assert.deepEqual(t.columnLabels, ['Device', 'Type', 'avg temperature', 'max temperature']);
      // 20 thermostats minus B-102 ("n/a", a string) and B-202 (no temperature)
      assert.equal(t.dataTable.length, 18);
      assert.ok(!t.dataTable.some((r) => r.Device === 'Thermo B-102' || r.Device === 'Thermo B-202'));
      const a101 = t.dataTable.find((r) => r.Device === 'Thermo A-101');
      const pts = Array.from({ length: 24 }, (_, i) => seedPoint(21.5, W.A101t, 24 - i, true));
      const avg = Math.round((pts.reduce((x, y) => x + y, 0) / 24) * 100) / 100;
      assert.deepEqual(a101, {
        Device: 'Thermo A-101',
        Type: 'thermostat',
        'avg temperature': avg,
        'max temperature': Math.max(...pts),
      });
      assert.deepEqual([a101?.['avg temperature'], a101?.['max temperature']], [21.87, 23.5]);
      assert.deepEqual(t.dataTable.map((r) => r.Device).slice(0, 3), ['Thermo A-101', 'Thermo A-102', 'Thermo A-103']);
    });

    it('a device of another type with temperature appears with its type; Type and Model filters', async () => {
      const d = c.a.data;
      const s = d.addEntity({ entityType: 'DEVICE', name: 'Air Sensor', type: 'sensor' });
      d.setTelemetry(s, { temperature: 30 }, BASE_TIME - 2 * HOUR);
      d.setTelemetry(s, { temperature: 20 }, BASE_TIME - HOUR);
      const sensors = await table({ viewConfigId: VIEW_DEVICE_TEMPERATURE, filters: { Type: ['sensor'] } });
      assert.deepEqual(sensors.dataTable, [
        { Device: 'Air Sensor', Type: 'sensor', 'avg temperature': 25, 'max temperature': 30 },
      ]);
      const th200 = await table({ viewConfigId: VIEW_DEVICE_TEMPERATURE, filters: { Model: ['TH-200'] } });
      assert.deepEqual(
        th200.dataTable.map((r) => r.Device),
        ['Thermo B-101', 'Thermo B-103', 'Thermo B-201', 'Thermo B-203', 'Thermo G-102'],
      );
    });

    it('Building filter follows Contains relations (the Lab, managed by the gateway, is not in Gamma)', async () => {
      const t = await table({ viewConfigId: VIEW_DEVICE_TEMPERATURE, filters: { Building: ['Building Gamma'] } });
      assert.deepEqual(
        t.dataTable.map((r) => r.Device),
        ['Thermo G-101', 'Thermo G-102', 'Thermo G-103', 'Thermo G-201', 'Thermo G-202', 'Thermo G-203'],
      );
    });

    it('a one-hour range has one point per device (avg = max = that reading)', async () => {
      const t = await table({
        viewConfigId: VIEW_DEVICE_TEMPERATURE,
        rangeStartTs: BASE_TIME,
        rangeEndTs: BASE_TIME + HOUR,
        filters: { Device: ['Thermo A-102', 'Thermo B-201'] },
      });
      assert.deepEqual(t.dataTable, [
        { Device: 'Thermo A-102', Type: 'thermostat', 'avg temperature': 23, 'max temperature': 23 },
        { Device: 'Thermo B-201', Type: 'thermostat', 'avg temperature': 25, 'max temperature': 25 },
      ]);
    });

    it('numericStrings makes the decimals strings too', async () => {
      c.a.service.setNumericStrings(true);
      const t = await table({ viewConfigId: VIEW_DEVICE_TEMPERATURE, filters: { Device: ['Thermo A-101'] } });
      assert.deepEqual(t.dataTable, [
        { Device: 'Thermo A-101', Type: 'thermostat', 'avg temperature': '21.87', 'max temperature': '23.5' },
      ]);
    });
  });

  describe('TOP_ALARMED_DEVICES', () => {
    it('default range: 13 alarmed devices with one alarm each, top 10 by name', async () => {
      const t = await table({ viewConfigId: VIEW_TOP_ALARMED_DEVICES });
      assert.deepEqual(t.columnLabels, ['Device', 'alarms']);
      assert.deepEqual(
        t.dataTable.map((r) => r.Device),
        [
          'Gateway 1',
          'Meter A-100',
          'Meter B-100',
          'Meter G-200',
          'Thermo A-101',
          'Thermo A-102',
          'Thermo A-201',
          'Thermo A-202',
          'Thermo B-101',
          'Thermo B-102',
        ],
      );
      assert.ok(t.dataTable.every((r) => r.alarms === 1));
    });

    it('counts alarms created in range, most first', async () => {
      const d = c.a.data;
      const g203 = d.mustFindByName('DEVICE', 'Thermo G-203');
      for (const h of [2, 3, 5])
        d.createAlarm({ originator: g203, type: 'High Temperature', createdTime: BASE_TIME - h * HOUR });
      d.createAlarm({ originator: g203, type: 'High Temperature', createdTime: BASE_TIME }); // = end: not counted
      d.createAlarm({
        originator: d.mustFindByName('DEVICE', 'Thermo A-101'),
        type: 'Device Offline',
        createdTime: BASE_TIME - 30 * 60_000,
      });
      const t = await table({ viewConfigId: VIEW_TOP_ALARMED_DEVICES });
      assert.deepEqual(t.dataTable.slice(0, 3), [
        { Device: 'Thermo G-203', alarms: 3 },
        { Device: 'Thermo A-101', alarms: 2 },
        { Device: 'Gateway 1', alarms: 1 },
      ]);
    });

    it('Severity and Alarm type filters; a wider range; alarms on assets are not counted', async () => {
      const crit = await table({ viewConfigId: VIEW_TOP_ALARMED_DEVICES, filters: { Severity: ['CRITICAL'] } });
      assert.deepEqual(
        crit.dataTable.map((r) => r.Device),
        ['Meter A-100', 'Thermo A-101', 'Thermo B-201', 'Thermo G-101'],
      );
      const power = await table({
        viewConfigId: VIEW_TOP_ALARMED_DEVICES,
        filters: { 'Alarm type': ['Power Failure'], Type: ['meter'] },
      });
      assert.deepEqual(
        power.dataTable.map((r) => r.Device),
        ['Meter A-100', 'Meter B-100', 'Meter G-200'],
      );
      const wide = await table({
        viewConfigId: VIEW_TOP_ALARMED_DEVICES,
        rangeStartTs: BASE_TIME - 50 * HOUR,
        rangeEndTs: BASE_TIME,
        filters: { Device: ['Thermo C-1', 'Thermo A-103'] },
      });
      assert.deepEqual(wide.dataTable, [
        { Device: 'Thermo A-103', alarms: 1 },
        { Device: 'Thermo C-1', alarms: 1 },
      ]);
    });

    it('a customer user counts only its own devices', async () => {
      const cust = (await c.login('customer@thingsboard.org', 'customer')).token;
      const t = await table({ viewConfigId: VIEW_TOP_ALARMED_DEVICES }, cust);
      assert.deepEqual(
        t.dataTable.map((r) => r.Device),
        ['Meter A-100', 'Thermo A-101', 'Thermo A-102', 'Thermo A-201', 'Thermo A-202'],
      );
    });
  });

  describe('addView', () => {
    it('a telemetry view (power per building, no time column) with saved filters, range and a generated id', async () => {
      const id = c.a.service.addView({
        name: 'POWER_BY_BUILDING',
        entities: (d) => d.list('DEVICE').filter((e) => e.type === 'meter'),
        dimensions: [
          {
            label: 'Building',
            value: (e, d) => (d.relationsTo(e.id)[0] ? (d.get(d.relationsTo(e.id)[0].from.id)?.name ?? null) : null),
          },
        ],
        measures: [
          { label: 'max power', key: 'power', agg: 'max' },
          { label: 'points', key: 'power', agg: 'count' },
        ],
        filters: { Floor: (e, d) => d.get(d.relationsTo(e.id)[0]?.from.id ?? '')?.name ?? null },
        defaultFilters: { Floor: ['Alpha Floor 1', 'Gamma Floor 2'] },
        defaultRange: { startTs: BASE_TIME, endTs: BASE_TIME + 1 },
      });
      assert.equal(id, viewIdFor('POWER_BY_BUILDING'));
      const t = await table({ viewConfigId: id });
      assert.deepEqual(t.columnLabels, ['Building', 'max power', 'points']);
      assert.deepEqual(t.dataTable, [
        { Building: 'Alpha Floor 1', 'max power': 1.5, points: 1 },
        { Building: 'Gamma Floor 2', 'max power': 5.5, points: 1 },
      ]);
      const other = await table({ viewConfigId: id, filters: { Floor: ['Beta Floor 2'] } });
      assert.deepEqual(
        other.dataTable,
        [{ Building: 'Beta Floor 2', 'max power': 3, points: 1 }],
        'a request filter replaces the saved one',
      );
    });

    it('a compute view with its own id and delay; a failing computation answers 500', async () => {
      const id = '11111111-2222-4333-8444-555555555555';
      c.a.service.addView({
        id,
        name: 'RANGE_ECHO',
        columns: ['start', 'end', 'who'],
        filters: ['x'],
        delayMs: 30,
        compute: (ctx) => [{ start: ctx.range.startTs, end: ctx.range.endTs, who: ctx.caller.email }],
      });
      const clock = fakeTimers(); // the view's computation waits its delay on the fake clock
      let t: Awaited<ReturnType<typeof table>>;
      try {
        const started = once(c.a.service, 'started');
        const answer = table({ viewConfigId: id });
        await started;
        let done = false;
        c.a.service.once('done', () => (done = true));
        await clock.tickAsync(29);
        assert.equal(done, false, 'still computing after 29 ms');
        await clock.tickAsync(1);
        assert.equal(done, true, 'done after its 30 ms');
        t = await answer;
      } finally {
        clock.restore();
      }
      assert.deepEqual(t.dataTable, [
        { start: DEFAULT_RANGE.startTs, end: DEFAULT_RANGE.endTs, who: 'tenant@thingsboard.org' },
      ]);
      c.a.service.addView({
        id,
        name: 'BROKEN',
        columns: ['a'],
        compute: () => {
          throw new Error('division by zero');
        },
      });
      const r = await c.report(token, { viewConfigId: id });
      assert.deepEqual(
        [r.status, r.body],
        [500, { status: 500, message: 'Report computation failed: division by zero' }],
      );
      assert.equal(c.a.service.stats.failed, 1);
      assert.equal(c.a.service.removeView(id), true);
      assert.equal((await c.report(token, { viewConfigId: id })).status, 400);
    });

    it('rejects bad specs', () => {
      const svc = c.a.service;
      assert.throws(() => svc.addView({ id: 'nope', name: 'X', columns: ['a'], compute: () => [] }), /UUID/);
      assert.throws(() => svc.addView({ name: 'X', columns: [], compute: () => [] }), /column/);
      assert.throws(
        () => svc.addView({ name: 'X', columns: ['a'], defaultFilters: { y: ['1'] }, compute: () => [] }),
        /filters/,
      );
      assert.throws(
        () => svc.addView({ name: 'X', columns: ['a'], defaultRange: { startTs: 2, endTs: 1 }, compute: () => [] }),
        /defaultRange/,
      );
    });
  });
});
