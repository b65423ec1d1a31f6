import assert from 'node:assert/strict';
import { BASE_TIME, HOUR, type SimEntity } from '../../sim/index';
import { Client, login, NOW, type HttpResult } from '../../sim/testkit';
import { TestWs, tsKey, type Msg } from '../../sim/ws-client';
import { useSimSetup } from '../support/simulator';

const T = '/api/plugins/telemetry';
const TEXT = 'text/plain;charset=UTF-8';

/** A bare-string refusal: status, text body, text/plain, no JSON error object. */
function plain(r: HttpResult, status: number, text: string): void {
  assert.equal(r.status, status, r.text);
  assert.equal(r.text, text);
  assert.equal(r.headers.get('content-type'), TEXT);
}
/** A JSON error object. */
function jsonError(r: HttpResult, status: number, errorCode: number, message?: string): void {
  assert.equal(r.status, status, r.text);
  assert.equal(r.body.errorCode, errorCode, r.text);
  if (message !== undefined) assert.equal(r.body.message, message);
}

describe('simulator: §13 telemetry and attributes', function () {
  const c = useSimSetup({}, { perTest: true });
  let probe: SimEntity;
  let P: string;
  let sysadmin: Client;

  beforeEach(async () => {
    probe = c.sim.data.addEntity({ entityType: 'DEVICE', name: 'Probe', type: 'default' });
    P = `${T}/DEVICE/${probe.id}`;
    sysadmin = await login(c.url, 'sysadmin@thingsboard.org', 'sysadmin');
  });

  const get = (path: string, client: Client = c.tenant): Promise<HttpResult> => client.request('GET', path);
  const del = (path: string, client: Client = c.tenant): Promise<HttpResult> => client.request('DELETE', path);
  const save = (body: unknown, client: Client = c.tenant, path = `${P}/timeseries/ANY`): Promise<HttpResult> =>
    client.post(path, body);
  const latest = async (keys: string, extra = ''): Promise<Msg> =>
    (await get(`${P}/values/timeseries?keys=${keys}${extra}`)).body;
  const device = (name: string): SimEntity => c.sim.data.mustFindByName('DEVICE', name);

  describe('saving telemetry', () => {
    it('the three body forms: 200 with an empty body; without ts the server time is used', async () => {
      let r = await save({ temperature: 26, on: true });
      assert.deepEqual([r.status, r.text], [200, '']);
      r = await save({ ts: BASE_TIME + 5, values: { temperature: 27 } });
      assert.equal(r.status, 200);
      r = await save([
        { ts: BASE_TIME + 10, values: { humidity: 40 } },
        { ts: BASE_TIME + 20, values: { humidity: 41 } },
        { co2: 400 },
      ]);
      assert.equal(r.status, 200);
      assert.deepEqual(
        c.sim.data.history(probe.id, 'temperature').map((p) => [p.ts, p.value]),
        [
          [BASE_TIME + 5, 27],
          [NOW, 26],
        ],
      );
      assert.deepEqual(
        c.sim.data.history(probe.id, 'humidity').map((p) => p.ts),
        [BASE_TIME + 10, BASE_TIME + 20],
      );
      assert.deepEqual(c.sim.data.latestOf(probe.id, 'on'), { ts: NOW, type: 'BOOLEAN', value: true });
      assert.equal(c.sim.data.latestOf(probe.id, 'co2')?.ts, NOW);
      assert.equal(c.sim.telemetry.storedPoints(probe.id), 6);
      assert.deepEqual(
        c.sim.telemetry.saves(probe.id).map((s) => [s.points, s.ttl]),
        [
          [2, 0],
          [1, 0],
          [3, 0],
        ],
      );
    });

    it('the ttl route takes seconds and stores like the plain one; a bad ttl is a 400 JSON', async () => {
      assert.equal((await save({ a: 1 }, c.tenant, `${P}/timeseries/ANY/3600`)).status, 200);
      assert.deepEqual(
        c.sim.telemetry.saves(probe.id).map((s) => s.ttl),
        [3600],
      );
      assert.equal(c.sim.data.latestOf(probe.id, 'a')?.value, 1);
      jsonError(
        await save({ a: 1 }, c.tenant, `${P}/timeseries/ANY/soon`),
        400,
        31,
        "Method parameter 'ttl': Failed to convert value of type 'java.lang.String' to required type " +
          '\'java.lang.Long\'; For input string: "soon"',
      );
    });

    it('value typing: integral literals LONG, a dot DOUBLE, numeric strings cast, JSON kept as sent', async () => {
      const r = await save(
        '{"l": 21, "e": 1e3, "e2": 1.5e3, "d": 21.0, "d2": 21.5, "f": 1.55e1, "s1": "007", "s2": "1.50", "s3": ' +
          '"abc", "s4": "5.", "b": false, "j": {"a": [1, 2.0]}, "big": 123456789012345678901, "prec": ' +
          '0.12345678901234567890, "neg": "-0"}',
      );
      assert.equal(r.status, 200);
      const t = (k: string): [string, unknown] => {
        const e = c.sim.data.latestOf(probe.id, k);
        return [e?.type ?? '', e?.value];
      };
      assert.deepEqual(t('l'), ['LONG', 21]);
      assert.deepEqual(t('e'), ['LONG', 1000]);
      assert.deepEqual(t('e2'), ['LONG', 1500]);
      assert.deepEqual(t('d'), ['DOUBLE', 21]);
      assert.deepEqual(t('d2'), ['DOUBLE', 21.5]);
      assert.deepEqual(t('f'), ['DOUBLE', 15.5]);
      assert.deepEqual(t('s1'), ['LONG', 7]);
      assert.deepEqual(t('s2'), ['DOUBLE', 1.5]);
      assert.deepEqual(t('s3'), ['STRING', 'abc']);
      assert.deepEqual(t('s4'), ['STRING', '5.']);
      assert.deepEqual(t('b'), ['BOOLEAN', false]);
      assert.deepEqual(t('j'), ['JSON', '{"a":[1,2.0]}']);
      assert.deepEqual(t('big'), ['STRING', '123456789012345678901']);
      assert.deepEqual(t('prec'), ['STRING', '0.12345678901234567890']);
      assert.deepEqual(t('neg'), ['LONG', 0]);
      // JavaScript's JSON.stringify(21.0) is "21": stored as a LONG
      await save({ js: 21.0 });
      assert.deepEqual(t('js'), ['LONG', 21]);
    });

    it("Gson's lenient parser: unquoted strings, single quotes, comments; {ts} without values is a key named ts", async () => {
      assert.equal((await save("{mode: eco; 'n': '12', /* c */ x => 1 # end\n}")).status, 200);
      plain(await save('{a: 1;}'), 400, 'Unable to parse time series payload: Invalid JSON body!');
      assert.deepEqual(c.sim.data.latestOf(probe.id, 'mode')?.value, 'eco');
      assert.deepEqual(c.sim.data.latestOf(probe.id, 'n')?.value, 12);
      assert.deepEqual(c.sim.data.latestOf(probe.id, 'x')?.value, 1);
      assert.equal((await save({ ts: 5 })).status, 200);
      assert.deepEqual(c.sim.data.latestOf(probe.id, 'ts'), { ts: NOW, type: 'LONG', value: 5 });
      // with ts and values, other top-level keys are ignored
      assert.equal((await save({ ts: BASE_TIME, values: { v: 1 }, other: 2 })).status, 200);
      assert.equal(c.sim.data.latestOf(probe.id, 'other'), undefined);
    });

    it('refusals are bare strings (400), never the JSON error object', async () => {
      plain(await save('{"a": '), 400, 'Unable to parse time series payload: Invalid JSON body!');
      plain(
        await save('{"a": null}'),
        400,
        "Unable to parse time series payload. Invalid JSON body: Can't parse value: null",
      );
      plain(await save('[1]'), 400, "Unable to parse time series payload. Invalid JSON body: Can't parse value: 1");
      plain(await save('"x"'), 400, 'Unable to parse time series payload. Invalid JSON body: Can\'t parse value: "x"');
      plain(
        await save({ ts: 'soon', values: { a: 1 } }),
        400,
        'Unable to parse time series payload. Invalid JSON body: For input string: "soon"',
      );
      plain(
        await save({ ts: 1, values: 5 }),
        400,
        'Unable to parse time series payload. Invalid JSON body: Not a JSON Object: 5',
      );
      plain(await save({}), 400, 'No time series data found in request body!');
      plain(await save([]), 400, 'No time series data found in request body!');
      plain(await save({ ' ': 1 }), 400, "Key can't be null or empty");
      plain(await save({ ['k'.repeat(256)]: 1 }), 400, 'Validation error: key length must be equal or less than 255');
      plain(await save({ '<b>x</b>': 1 }), 400, 'Validation error: key is malformed');
      const view = c.sim.data.findByName('ENTITY_VIEW', 'View A-101') as SimEntity;
      plain(
        await save({ a: 1 }, c.tenant, `${T}/ENTITY_VIEW/${view.id}/timeseries/ANY`),
        400,
        "Telemetry data can't be stored for entity view. Read only",
      );
      assert.equal(c.sim.telemetry.storedPoints(), 0);
      // path values: 400 JSON (EntityIdFactory), empty body: 500 JSON (Spring)
      jsonError(
        await save({ a: 1 }, c.tenant, `${T}/DEVICE/nope/timeseries/ANY`),
        400,
        31,
        'Invalid UUID string: nope',
      );
      jsonError(
        await save({ a: 1 }, c.tenant, `${T}/GADGET/${probe.id}/timeseries/ANY`),
        400,
        31,
        'No enum constant org.thingsboard.server.common.data.EntityType.GADGET',
      );
      jsonError(await c.tenant.request('POST', `${P}/timeseries/ANY`, ''), 500, 2);
    });

    it('a point older than the latest value goes to history only', async () => {
      await save({ ts: BASE_TIME + 100, values: { v: 2 } });
      await save({ ts: BASE_TIME + 50, values: { v: 1 } });
      assert.deepEqual(await latest('v', '&useStrictDataTypes=true'), { v: [{ ts: BASE_TIME + 100, value: 2 }] });
      assert.equal(c.sim.data.history(probe.id, 'v').length, 2);
    });
  });

  describe('saving attributes', () => {
    it('SERVER_SCOPE and SHARED_SCOPE on the three routes; lastUpdateTs is server time; CLIENT_SCOPE refused', async () => {
      assert.deepEqual([(await c.tenant.post(`${P}/attributes/SERVER_SCOPE`, { a: 1 })).status], [200]);
      assert.equal((await c.tenant.post(`${P}/SHARED_SCOPE`, { b: '2.50' })).status, 200);
      assert.equal((await c.tenant.post(`${T}/${probe.id}/SHARED_SCOPE`, { c: { x: [1] } })).status, 200);
      assert.deepEqual(c.sim.data.attributeOf(probe.id, 'SERVER_SCOPE', 'a'), { ts: NOW, type: 'LONG', value: 1 });
      assert.deepEqual(c.sim.data.attributeOf(probe.id, 'SHARED_SCOPE', 'b'), { ts: NOW, type: 'DOUBLE', value: 2.5 });
      assert.equal(c.sim.data.attributeOf(probe.id, 'SHARED_SCOPE', 'c')?.type, 'JSON');
      assert.equal(c.sim.telemetry.attributeWrites(probe.id), 3);
      assert.equal(c.sim.telemetry.sharedPushes(probe.id), 2, 'SHARED on a device is pushed to it');
      plain(await c.tenant.post(`${P}/attributes/CLIENT_SCOPE`, { a: 1 }), 400, 'Invalid scope: CLIENT_SCOPE');
      jsonError(await c.tenant.post(`${P}/attributes/ANY_SCOPE`, { a: 1 }), 400, 31);
      assert.match(
        (await c.tenant.post(`${P}/attributes/ANY_SCOPE`, { a: 1 })).body.message,
        /^Method parameter 'scope': Failed to convert/,
      );
    });

    it('a null value is a 500 JSON error; other refusals are bare 400 strings', async () => {
      jsonError(await c.tenant.post(`${P}/attributes/SERVER_SCOPE`, { a: null }), 500, 2, "Can't parse value: null");
      plain(await c.tenant.post(`${P}/attributes/SERVER_SCOPE`, '{"a": '), 400, 'Invalid JSON');
      plain(await c.tenant.post(`${P}/attributes/SERVER_SCOPE`, [{ a: 1 }]), 400, 'Request is not a JSON object');
      plain(await c.tenant.post(`${P}/attributes/SERVER_SCOPE`, {}), 400, 'No attributes data found in request body!');
      plain(await c.tenant.post(`${P}/attributes/SERVER_SCOPE`, { ' ': 1 }), 400, 'Key cannot be blank');
      assert.equal(c.sim.telemetry.attributeWrites(), 0);
    });

    it('SHARED_SCOPE on an asset is stored but not pushed to any device', async () => {
      const asset = c.sim.data.mustFindByName('ASSET', 'Building Alpha');
      assert.equal((await c.tenant.post(`${T}/ASSET/${asset.id}/attributes/SHARED_SCOPE`, { target: 21 })).status, 200);
      assert.equal(c.sim.data.attributeOf(asset.id, 'SHARED_SCOPE', 'target')?.value, 21);
      assert.equal(c.sim.telemetry.sharedPushes(), 0);
    });
  });

  describe('reading', () => {
    it('latest: strings by default (Java doubles), native with useStrictDataTypes; a missing key is {ts: now, value: null}', async () => {
      await save(
        '{"ts": 1000, "values": {"d": 23.0, "big": 10000000.0, "l": 5, "s": "n/a", "b": true, "j": {"x": 1.0}}}',
      );
      assert.deepEqual(await latest('d,big,l,s,b,j,nope'), {
        d: [{ ts: 1000, value: '23.0' }],
        big: [{ ts: 1000, value: '1.0E7' }],
        l: [{ ts: 1000, value: '5' }],
        s: [{ ts: 1000, value: 'n/a' }],
        b: [{ ts: 1000, value: 'true' }],
        j: [{ ts: 1000, value: '{"x":1.0}' }],
        nope: [{ ts: NOW, value: null }],
      });
      const strict = await get(`${P}/values/timeseries?keys=d,j,b,nope&useStrictDataTypes=true`);
      assert.equal(
        strict.text,
        `{"d":[{"ts":1000,"value":23.0}],"j":[{"ts":1000,"value":{"x":1.0}}],"b":[{"ts":1000,"value":true}],` +
          `"nope":[{"ts":${NOW},"value":null}]}`,
      );
      // no keys: every latest key
      assert.deepEqual(Object.keys(await latest('')), ['d', 'big', 'l', 's', 'b', 'j']);
      assert.deepEqual(Object.keys((await get(`${P}/values/timeseries`)).body), ['d', 'big', 'l', 's', 'b', 'j']);
    });

    it('keys are not trimmed; repeated key= parameters win (4.3+); a blank key is a 400 string', async () => {
      await save({ ts: 1, values: { a: 1, b: 2 } });
      assert.deepEqual(Object.keys(await latest('a, b')), ['a', ' b']);
      assert.equal((await latest('a, b'))[' b'][0].value, null);
      assert.deepEqual(Object.keys((await get(`${P}/values/timeseries?keys=a&key=b`)).body), ['b']);
      plain(await get(`${P}/values/timeseries?keys=,a`), 400, 'Incorrect key ');
    });

    it('history: [startTs, endTs), newest first, at most limit points per key, keys without points left out', async () => {
      const pts = Array.from({ length: 150 }, (_, i) => ({ ts: BASE_TIME + i * 1000, values: { a: i, b: i * 2 } }));
      await save(pts);
      const h = (q: string): Promise<HttpResult> => get(`${P}/values/timeseries?${q}`);
      let r = await h(`keys=a,b,zz&startTs=${BASE_TIME}&endTs=${BASE_TIME + 150_000}`);
      assert.deepEqual(Object.keys(r.body), ['a', 'b']);
      assert.equal(r.body.a.length, 100, 'limit 100 per key');
      assert.equal(r.body.b.length, 100);
      assert.deepEqual(r.body.a[0], { ts: BASE_TIME + 149_000, value: '149' }, 'DESC: newest first');
      r = await h(`keys=a&startTs=${BASE_TIME + 10_000}&endTs=${BASE_TIME + 20_000}&orderBy=ASC&limit=500`);
      assert.equal(r.body.a.length, 10, 'endTs excluded');
      assert.deepEqual([r.body.a[0].ts, r.body.a[9].ts], [BASE_TIME + 10_000, BASE_TIME + 19_000]);
      r = await h(
        `keys=a&startTs=${BASE_TIME}&endTs=${BASE_TIME + 150_000}&orderBy=asc&limit=3&useStrictDataTypes=true`,
      );
      assert.deepEqual(r.body.a, [
        { ts: BASE_TIME, value: 0 },
        { ts: BASE_TIME + 1000, value: 1 },
        { ts: BASE_TIME + 2000, value: 2 },
      ]);
      // the 4.3.1.2 route answers the same
      const r2 = await get(
        `${P}/values/timeseries/history?keys=a&startTs=${BASE_TIME}&endTs=${BASE_TIME + 150_000}&orderBy=asc&limit=3` +
          `&useStrictDataTypes=true`,
      );
      assert.deepEqual(r2.body, r.body);
      // no keys: {} (4.3+)
      assert.deepEqual((await h(`startTs=${BASE_TIME}&endTs=${BASE_TIME + 1000}`)).body, {});
      plain(await h(`keys=a&startTs=0&endTs=1&limit=0`), 400, 'Page size must not be less than one');
      plain(
        await h(`keys=a&startTs=0&endTs=1&orderBy=UP`),
        400,
        "Invalid value 'UP' for orders given; Has to be either 'desc' or 'asc' (case insensitive)",
      );
      jsonError(await h(`keys=a&startTs=soon&endTs=1`), 400, 31);
      jsonError(
        await get(`${P}/values/timeseries/history?keys=a&endTs=1`),
        500,
        2,
        "Required request parameter 'startTs' for method parameter type Long is not present",
      );
    });

    it('history without keys answers latest values before 4.3 (trap 1); the /history route exists from 4.3.1.2', async () => {
      await save({ ts: BASE_TIME, values: { a: 1 } });
      c.sim.setVersion('4.2.1');
      const r = await get(`${P}/values/timeseries?startTs=0&endTs=1`);
      assert.deepEqual(r.body, { a: [{ ts: BASE_TIME, value: '1' }] });
      assert.equal((await get(`${P}/values/timeseries?keys=a&startTs=0&endTs=1`)).text, '{}');
      c.sim.setVersion('4.3.1.1');
      assert.equal((await get(`${P}/values/timeseries/history?keys=a&startTs=0&endTs=1`)).status, 404);
    });

    it('aggregation: buckets from startTs stamped at their middle, the last one cut at endTs, empty ones left out, ascending', async () => {
      // 0..9 every 10 s from BASE_TIME (longs), plus a double at 95 s
      await save([
        ...Array.from({ length: 10 }, (_, i) => ({ ts: BASE_TIME + i * 10_000, values: { v: i } })),
        { ts: BASE_TIME + 95_000, values: { w: 2.5 } },
      ]);
      const agg = async (a: string, q: string, keys = 'v'): Promise<Msg> =>
        (await get(`${P}/values/timeseries?keys=${keys}&agg=${a}&${q}`)).body;
      const win = `startTs=${BASE_TIME}&endTs=${BASE_TIME + 100_000}`;
      assert.deepEqual(await agg('AVG', `${win}&interval=30000`), {
        v: [
          { ts: BASE_TIME + 15_000, value: '1.0' },
          { ts: BASE_TIME + 45_000, value: '4.0' },
          { ts: BASE_TIME + 75_000, value: '7.0' },
          { ts: BASE_TIME + 95_000, value: '9.0' },
        ],
      });
      assert.deepEqual((await agg('SUM', `${win}&interval=50000`)).v, [
        { ts: BASE_TIME + 25_000, value: '10' },
        { ts: BASE_TIME + 75_000, value: '35' },
      ]);
      assert.deepEqual((await agg('SUM', `${win}&interval=50000&useStrictDataTypes=true`, 'v,w')).w, [
        { ts: BASE_TIME + 75_000, value: 2.5 },
      ]);
      assert.deepEqual(
        (await agg('MIN', `${win}&interval=50000`)).v.map((p: Msg) => p.value),
        ['0', '5'],
      );
      assert.deepEqual(
        (await agg('MAX', `${win}&interval=50000`)).v.map((p: Msg) => p.value),
        ['4', '9'],
      );
      assert.deepEqual((await agg('COUNT', `${win}&interval=100000`)).v, [{ ts: BASE_TIME + 50_000, value: '10' }]);
      // empty buckets are left out
      const sparse = await agg('COUNT', `startTs=${BASE_TIME - 100_000}&endTs=${BASE_TIME + 20_000}&interval=10000`);
      assert.deepEqual(
        sparse.v.map((p: Msg) => p.ts),
        [BASE_TIME + 5000, BASE_TIME + 15_000],
      );
      // an agg without interval silently returns raw data (trap 3), newest first
      const raw = await agg('AVG', `${win}`);
      assert.equal(raw.v.length, 10);
      assert.equal(raw.v[0].value, '9');
    });

    it('aggregation limits: more than 700 intervals and a negative interval are 400 strings; an unknown agg a 400 JSON', async () => {
      const day = 24 * HOUR;
      plain(
        await get(`${P}/values/timeseries?keys=v&agg=AVG&interval=1000&startTs=0&endTs=701000`),
        400,
        "Incorrect TsKvQuery. Number of intervals is to high - 701. Please increase 'interval' parameter for your " +
          'query or reduce the time range of the query.',
      );
      // the count uses max(interval, 1000): 100 ms intervals over 700 s are 700 "intervals"
      assert.equal(
        (await get(`${P}/values/timeseries?keys=v&agg=AVG&interval=100&startTs=0&endTs=700000`)).status,
        200,
      );
      assert.equal(
        (await get(`${P}/values/timeseries?keys=v&agg=AVG&interval=${HOUR}&startTs=0&endTs=${29 * day}`)).status,
        200,
      );
      plain(
        await get(`${P}/values/timeseries?keys=v&agg=AVG&interval=-5&startTs=0&endTs=1000`),
        400,
        "Invalid TsKvQuery: 'interval' must be greater than 0, but got -5. Please check your query parameters and " +
          "ensure 'endTs' is greater than 'startTs' or increase 'interval'.",
      );
      jsonError(
        await get(`${P}/values/timeseries?keys=v&agg=MEAN&interval=1000&startTs=0&endTs=1000`),
        400,
        31,
        'No enum constant org.thingsboard.server.common.data.kv.Aggregation.MEAN',
      );
    });

    it('calendar intervals: MONTH buckets in the time zone, stamped at their middle', async () => {
      const jan = Date.UTC(2026, 0, 15);
      const feb = Date.UTC(2026, 1, 10);
      await save([
        { ts: jan, values: { m: 1 } },
        { ts: feb, values: { m: 2 } },
      ]);
      const start = Date.UTC(2026, 0, 1);
      const end = Date.UTC(2026, 2, 1);
      const r = await get(
        `${P}/values/timeseries?keys=m&agg=SUM&intervalType=MONTH&timeZone=UTC&startTs=${start}&endTs=${end}`,
      );
      const febStart = Date.UTC(2026, 1, 1);
      assert.deepEqual(r.body.m, [
        { ts: start + (febStart - start) / 2, value: '1' },
        { ts: febStart + (end - febStart) / 2, value: '2' },
      ]);
      // Europe/Kyiv (UTC+2 in winter): the month starts two hours earlier in UTC
      const kyivFeb = febStart - 2 * HOUR;
      const k = await get(
        `${P}/values/timeseries?keys=m&agg=COUNT&intervalType=MONTH&timeZone=Europe/Kyiv&startTs=${start}&endTs=${end}`,
      );
      assert.deepEqual(
        k.body.m.map((p: Msg) => p.ts),
        [start + (kyivFeb - start) / 2, kyivFeb + (end - 2 * HOUR - kyivFeb) / 2],
      );
      // WEEK_ISO buckets end on Mondays
      const w = await get(
        `${P}/values/timeseries?keys=m&agg=COUNT&intervalType=WEEK_ISO&timeZone=UTC` +
          `&startTs=${jan}&endTs=${jan + 2 * 24 * HOUR}`,
      );
      // 2026-01-15 is a Thursday: the first bucket ends Monday 2026-01-19, after endTs, so it is cut at endTs
      assert.deepEqual(w.body.m, [{ ts: jan + 24 * HOUR, value: '1' }]);
    });

    it('attributes per scope and merged without scope (no scope field, a key may repeat); native values', async () => {
      const a101 = device('Thermo A-101');
      const r = await get(`${T}/DEVICE/${a101.id}/values/attributes/SHARED_SCOPE?keys=targetTemperature,config,nope`);
      assert.equal(
        r.text,
        `[{"lastUpdateTs":${r.body[0].lastUpdateTs},"key":"targetTemperature","value":21.0},` +
          `{"lastUpdateTs":${r.body[1].lastUpdateTs},"key":"config","value":{"mode":"eco","interval":60}}]`,
      );
      const all = await get(`${T}/DEVICE/${a101.id}/values/attributes?keys=note`);
      assert.deepEqual(
        all.body.map((x: Msg) => x.value),
        ['client note', 'server note'],
        'CLIENT, SERVER, SHARED order',
      );
      assert.deepEqual(Object.keys(all.body[0]), ['lastUpdateTs', 'key', 'value']);
      const client = await get(`${T}/DEVICE/${a101.id}/values/attributes/CLIENT_SCOPE`);
      assert.deepEqual(client.body.map((x: Msg) => x.key).sort(), ['fw', 'note', 'serial']);
      assert.deepEqual((await get(`${T}/DEVICE/${a101.id}/keys/attributes/SHARED_SCOPE`)).body.sort(), [
        'config',
        'reportingInterval',
        'targetTemperature',
      ]);
      assert.ok(
        (await get(`${T}/DEVICE/${a101.id}/keys/attributes`)).body.filter((k: string) => k === 'note').length === 2,
      );
      assert.deepEqual((await get(`${T}/DEVICE/${a101.id}/keys/timeseries`)).body, ['temperature', 'humidity']);
    });

    it('an entity view reads the time series of the entity it shows', async () => {
      const view = c.sim.data.findByName('ENTITY_VIEW', 'View A-101') as SimEntity;
      const r = await get(`${T}/ENTITY_VIEW/${view.id}/values/timeseries?keys=temperature`);
      assert.deepEqual(r.body, { temperature: [{ ts: BASE_TIME, value: '21.5' }] });
    });
  });

  describe('deleting', () => {
    beforeEach(async () => {
      await save(Array.from({ length: 5 }, (_, i) => ({ ts: BASE_TIME + i * 1000, values: { a: i, b: i } })));
    });

    it('a range is [startTs, endTs); the latest value goes only when it is in the range', async () => {
      const r = await del(`${P}/timeseries/delete?keys=a&startTs=${BASE_TIME + 1000}&endTs=${BASE_TIME + 3000}`);
      assert.deepEqual([r.status, r.text], [200, '']);
      assert.deepEqual(
        c.sim.data.history(probe.id, 'a').map((p) => p.value),
        [0, 3, 4],
      );
      assert.equal(c.sim.data.latestOf(probe.id, 'a')?.value, 4, 'latest outside the range stays');
      await del(
        `${P}/timeseries/delete?keys=a&startTs=${BASE_TIME + 4000}&endTs=${BASE_TIME + 5000}&deleteLatest=false`,
      );
      assert.equal(c.sim.data.latestOf(probe.id, 'a')?.value, 4, 'deleteLatest=false keeps it');
      assert.deepEqual(
        c.sim.data.history(probe.id, 'a').map((p) => p.value),
        [0, 3],
      );
      await del(`${P}/timeseries/delete?keys=b&startTs=${BASE_TIME + 3000}&endTs=${BASE_TIME + 5000}`);
      assert.equal(c.sim.data.latestOf(probe.id, 'b'), undefined, 'latest in the range: removed');
      assert.deepEqual(await latest('b'), { b: [{ ts: NOW, value: null }] });
    });

    it('rewriteLatestIfDeleted: the newest point before startTs becomes the latest', async () => {
      await del(
        `${P}/timeseries/delete?keys=a` +
          `&startTs=${BASE_TIME + 3000}&endTs=${BASE_TIME + 9000}&rewriteLatestIfDeleted=true`,
      );
      assert.deepEqual(c.sim.data.latestOf(probe.id, 'a'), { ts: BASE_TIME + 2000, type: 'LONG', value: 2 });
    });

    it('deleteAllDataForKeys is [0, now): future points stay', async () => {
      await save({ ts: NOW + HOUR, values: { a: 99 } });
      await del(`${P}/timeseries/delete?keys=a,b&deleteAllDataForKeys=true`);
      assert.deepEqual(
        c.sim.data.history(probe.id, 'a').map((p) => p.value),
        [99],
      );
      assert.equal(c.sim.data.latestOf(probe.id, 'a')?.value, 99);
      assert.deepEqual(c.sim.data.history(probe.id, 'b'), []);
    });

    it('refusals: empty keys and a missing range are 400 strings', async () => {
      plain(await del(`${P}/timeseries/delete?startTs=0&endTs=1`), 400, 'Empty keys: []');
      plain(
        await del(`${P}/timeseries/delete?keys=a`),
        400,
        "When deleteAllDataForKeys is false, start and end timestamp values shouldn't be empty",
      );
      jsonError(await del(`${P}/timeseries/delete?keys=a&deleteAllDataForKeys=maybe`), 400, 31);
    });

    it('attributes: every scope, CLIENT_SCOPE included; missing keys ignored; empty keys a 400 string', async () => {
      const a101 = device('Thermo A-101');
      assert.equal((await del(`${T}/DEVICE/${a101.id}/CLIENT_SCOPE?keys=fw,nope`)).status, 200);
      assert.equal(c.sim.data.attributeOf(a101.id, 'CLIENT_SCOPE', 'fw'), undefined);
      assert.equal((await del(`${T}/${a101.id}/SHARED_SCOPE?key=config`)).status, 200);
      assert.equal(c.sim.data.attributeOf(a101.id, 'SHARED_SCOPE', 'config'), undefined);
      plain(await del(`${T}/DEVICE/${a101.id}/SERVER_SCOPE`), 400, 'Empty keys: []');
    });
  });

  describe('permissions (§13.2): bare-string 403 and 404', () => {
    it('a customer user writes and reads its own devices only (3.3+)', async () => {
      const mine = device('Thermo A-101');
      const other = device('Thermo B-101');
      assert.equal((await save({ a: 1 }, c.customer, `${T}/DEVICE/${mine.id}/timeseries/ANY`)).status, 200);
      assert.equal((await c.customer.post(`${T}/DEVICE/${mine.id}/attributes/SHARED_SCOPE`, { t: 20 })).status, 200);
      plain(
        await save({ a: 1 }, c.customer, `${T}/DEVICE/${other.id}/timeseries/ANY`),
        403,
        "You don't have permission to perform this operation!",
      );
      plain(
        await get(`${T}/DEVICE/${other.id}/values/timeseries`, c.customer),
        403,
        "You don't have permission to perform this operation!",
      );
      c.sim.setVersion('3.2.2');
      plain(
        await save({ a: 1 }, c.customer, `${T}/DEVICE/${mine.id}/timeseries/ANY`),
        403,
        "You don't have permission to perform this operation!",
      );
    });

    it('a tenant admin may not write its own tenant entity (by design); reading is fine', async () => {
      const tenant = c.sim.data.list('TENANT')[0];
      plain(
        await c.tenant.post(`${T}/TENANT/${tenant.id}/attributes/SERVER_SCOPE`, { x: 1 }),
        403,
        "You don't have permission to perform this operation!",
      );
      plain(
        await save({ x: 1 }, c.tenant, `${T}/TENANT/${tenant.id}/timeseries/ANY`),
        403,
        "You don't have permission to perform this operation!",
      );
      const r = await get(`${T}/TENANT/${tenant.id}/values/attributes/SERVER_SCOPE?keys=tempThreshold`);
      assert.deepEqual(
        r.body.map((x: Msg) => x.value),
        [25],
      );
      plain(
        await get(`${T}/TENANT/${tenant.id}/values/attributes`, c.customer),
        403,
        'Customer user is not allowed to perform this operation!',
      );
    });

    it('the sysadmin: refused on devices, may write tenant attributes', async () => {
      plain(await save({ a: 1 }, sysadmin), 403, 'System administrator is not allowed to perform this operation!');
      const tenant = c.sim.data.list('TENANT')[0];
      assert.equal((await sysadmin.post(`${T}/TENANT/${tenant.id}/attributes/SERVER_SCOPE`, { limit: 5 })).status, 200);
      assert.equal(c.sim.data.attributeOf(tenant.id, 'SERVER_SCOPE', 'limit')?.value, 5);
    });

    it('unknown entities are 404 strings; unsupported entity types a 500 JSON', async () => {
      const missing = '11111111-2222-4333-8444-555555555555';
      plain(
        await save({ a: 1 }, c.tenant, `${T}/DEVICE/${missing}/timeseries/ANY`),
        404,
        "Device with requested id wasn't found!",
      );
      plain(await get(`${T}/ASSET/${missing}/values/attributes`), 404, "Asset with requested id wasn't found!");
      plain(
        await get(`${T}/ENTITY_VIEW/${missing}/values/timeseries`),
        404,
        "Entity-view with requested id wasn't found!",
      );
      jsonError(await get(`${T}/DASHBOARD/${missing}/values/attributes`), 500, 2, 'Not Implemented!');
      jsonError(
        await get(`${T}/ALARM/${missing}/values/timeseries?keys=a&startTs=0&endTs=1`),
        500,
        2,
        'Not Implemented!',
      );
      assert.equal((await c.anon.post(`${P}/timeseries/ANY`, { a: 1 })).status, 401);
    });
  });

  describe('live subscriptions and faults', () => {
    it('a REST save reaches an ENTITY_DATA latestCmd and tsCmd; a delete pushes ts 0', async () => {
      const token = c.sim.tokensFor('tenant@thingsboard.org').token;
      const query = {
        entityFilter: { type: 'singleEntity', singleEntity: { entityType: 'DEVICE', id: probe.id } },
        pageLink: { page: 0, pageSize: 10 },
        entityFields: [],
        latestValues: [tsKey('t')],
        keyFilters: [],
      };
      const ws = await TestWs.auth(c.url, token, [
        { type: 'ENTITY_DATA', cmdId: 1, query, latestCmd: { keys: [tsKey('t')] } },
        {
          type: 'ENTITY_DATA',
          cmdId: 2,
          query,
          tsCmd: { keys: ['t'], startTs: BASE_TIME, timeWindow: 10 * HOUR, interval: 0, limit: 100, agg: 'NONE' },
        },
      ]);
      try {
        await ws.forCmd(1);
        await ws.forCmd(2);
        assert.equal((await save({ ts: BASE_TIME + 1000, values: { t: 21.5 } })).status, 200);
        const up = await ws.forCmd(1);
        assert.deepEqual(up.update[0].latest.TIME_SERIES.t, { ts: BASE_TIME + 1000, value: '21.5' });
        const ts = await ws.forCmd(2);
        assert.deepEqual(ts.update[0].timeseries.t, [{ ts: BASE_TIME + 1000, value: '21.5' }]);
        await del(`${P}/timeseries/delete?keys=t&deleteAllDataForKeys=true`);
        const gone = await ws.forCmd(1);
        assert.deepEqual(gone.update[0].latest.TIME_SERIES.t, { ts: 0, value: '' });
      } finally {
        ws.terminate();
      }
    });

    it('an attribute save and delete reach an ENTITY_DATA latestCmd on SHARED_ATTRIBUTE', async () => {
      const token = c.sim.tokensFor('tenant@thingsboard.org').token;
      const key = { type: 'SHARED_ATTRIBUTE', key: 'target' };
      const query = {
        entityFilter: { type: 'singleEntity', singleEntity: { entityType: 'DEVICE', id: probe.id } },
        pageLink: { page: 0, pageSize: 10 },
        entityFields: [],
        latestValues: [key],
        keyFilters: [],
      };
      const ws = await TestWs.auth(c.url, token, [
        { type: 'ENTITY_DATA', cmdId: 1, query, latestCmd: { keys: [key] } },
      ]);
      try {
        await ws.forCmd(1);
        assert.equal((await c.tenant.post(`${P}/attributes/SHARED_SCOPE`, { target: 21.5 })).status, 200);
        assert.deepEqual((await ws.forCmd(1)).update[0].latest.SHARED_ATTRIBUTE.target, { ts: NOW, value: '21.5' });
        assert.equal((await del(`${P}/SHARED_SCOPE?keys=target`)).status, 200);
        assert.deepEqual((await ws.forCmd(1)).update[0].latest.SHARED_ATTRIBUTE.target, { ts: 0, value: '' });
      } finally {
        ws.terminate();
      }
    });

    it("dropConnection 'after': the save is stored, the client gets no answer; a retry with the same ts adds no point", async () => {
      c.sim.faults.add({ path: `${P}/timeseries`, dropConnection: 'after' });
      const body = { ts: BASE_TIME + 7, values: { t: 1 } };
      await assert.rejects(save(body));
      assert.equal(c.sim.telemetry.storedPoints(probe.id), 1, 'stored before the drop');
      assert.equal((await save(body)).status, 200);
      assert.equal(c.sim.data.history(probe.id, 't').length, 1, 'same ts: still one point');
      assert.equal(c.sim.requests.entries().at(-2)?.status, 0);
    });

    it('dropConnection true drops before handling; 429 faults answer the JSON object', async () => {
      c.sim.faults.add({ path: `${P}/timeseries`, dropConnection: true });
      await assert.rejects(save({ t: 1 }));
      assert.equal(c.sim.telemetry.storedPoints(), 0);
      c.sim.faults.add({ path: T, status: 429 });
      jsonError(await save({ t: 1 }), 429, 33, 'Too many requests for current tenant!');
    });

    it('the /__sim telemetry stats', async () => {
      await save({ a: 1, b: 2 });
      const r = await c.anon.request('GET', `/__sim/telemetry/stats?entityId=${probe.id}`);
      assert.deepEqual(r.body, { storedPoints: 2, saves: 1, attributeWrites: 0, sharedPushes: 0 });
      await c.anon.post('/__sim/telemetry/reset-counters', {});
      assert.equal(c.sim.telemetry.storedPoints(), 0);
    });
  });
});
