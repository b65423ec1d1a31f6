import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  AnalyticsService,
  attachAnalytics,
  DEMO_VIEW_ID,
  startAnalyticsServer,
  VIEW_ENERGY_PER_BUILDING_PER_DAY,
  VIEW_IDS,
} from '../../sim/analytics';
import { jwtPayload, setupAnalytics, toRes, type ACtx } from '../../sim/analytics/testkit';
import { BASE_TIME, Dataset } from '../../sim/dataset';
import { Simulator } from '../../sim/index';
import { seedDataset } from '../../sim/seed';
import { fakeTimers } from '../support/wait';

const REPORT = { viewConfigId: VIEW_ENERGY_PER_BUILDING_PER_DAY };

describe('simulator: analytics service (auth and protocol)', function () {
  let c: ACtx;
  afterEach(async () => {
    await c?.a.stop(); // idempotent
  });

  describe('login and refresh', () => {
    beforeEach(async () => {
      c = await setupAnalytics({ tokenLifetimeSec: 60 });
    });

    it('logs in with the platform users and answers a JWT pair with exp', async () => {
      const r = await c.post('publicApi/auth/login', { username: 'tenant@thingsboard.org', password: 'tenant' });
      assert.equal(r.status, 200);
      assert.deepEqual(Object.keys(r.body).sort(), ['refreshToken', 'token']);
      const p = jwtPayload(r.body.token as string);
      assert.equal(p.sub, 'tenant@thingsboard.org');
      assert.deepEqual(p.scopes, ['TENANT_ADMIN']);
      assert.equal(p.iat, Math.floor(c.clock.now / 1000));
      assert.equal((p.exp as number) - (p.iat as number), 60);
      assert.deepEqual(jwtPayload(r.body.refreshToken as string).scopes, ['REFRESH_TOKEN']);
      const cust = await c.post('publicApi/auth/login', { username: 'customer@thingsboard.org', password: 'customer' });
      assert.deepEqual(jwtPayload(cust.body.token as string).scopes, ['CUSTOMER_USER']);
    });

    it('default token lifetime is 2.5 h', async () => {
      await c.a.stop();
      c = await setupAnalytics();
      const p = jwtPayload((await c.login()).token);
      assert.equal((p.exp as number) - (p.iat as number), 9000);
    });

    it('wrong password, unknown user, disabled and sysadmin accounts get 401 JSON', async () => {
      const bad = await c.post('publicApi/auth/login', { username: 'tenant@thingsboard.org', password: 'nope' });
      assert.equal(bad.status, 401);
      assert.deepEqual(bad.body, { status: 401, message: 'Invalid username or password' });
      assert.equal(bad.headers.get('content-type'), 'application/json');
      const unknown = await c.post('publicApi/auth/login', { username: 'who@x.org', password: 'tenant' });
      assert.deepEqual(unknown.body, { status: 401, message: 'Invalid username or password' });
      const blank = await c.post('publicApi/auth/login', {});
      assert.equal(blank.status, 401);
      const disabled = await c.post('publicApi/auth/login', {
        username: 'disabled@thingsboard.org',
        password: 'disabled',
      });
      assert.deepEqual([disabled.status, disabled.body.message], [401, 'User account is not active']);
      const sys = await c.post('publicApi/auth/login', { username: 'sysadmin@thingsboard.org', password: 'sysadmin' });
      assert.equal(sys.status, 401);
    });

    it('login needs a JSON body: 415 without the content type, 400 for malformed JSON', async () => {
      const text = await c.post(
        'publicApi/auth/login',
        JSON.stringify({ username: 'tenant@thingsboard.org', password: 'tenant' }),
        { 'Content-Type': 'text/plain' },
      );
      assert.equal(text.status, 415);
      assert.match(text.body.message as string, /text\/plain/);
      const broken = await c.post('publicApi/auth/login', '{"username":');
      assert.equal(broken.status, 400);
    });

    it('refresh (default on) answers a new pair; the new token works; wrong tokens are 401', async () => {
      const first = await c.login();
      const access = await c.post('publicApi/auth/token', { refreshToken: first.token });
      assert.deepEqual(
        access.body,
        { status: 401, message: 'Invalid refresh token' },
        'an access token is no refresh token',
      );
      c.clock.now += 30_000;
      const r = await c.post('publicApi/auth/token', { refreshToken: first.refreshToken });
      assert.equal(r.status, 200);
      assert.notEqual(r.body.token, first.token);
      assert.equal(jwtPayload(r.body.token as string).exp, Math.floor(c.clock.now / 1000) + 60);
      c.clock.now += 45_000; // the first token has expired, the refreshed one has not
      assert.equal((await c.report(first.token, REPORT)).status, 401);
      assert.equal((await c.report(r.body.token as string, REPORT)).status, 200);
      assert.equal((await c.post('publicApi/auth/token', { refreshToken: 'x.y.z' })).status, 401);
      assert.equal((await c.post('publicApi/auth/token', {})).status, 401);
    });

    it('revokeRefreshTokens rejects old refresh tokens; a refresh token is not an access token', async () => {
      const p = await c.login();
      assert.equal((await c.report(p.refreshToken, REPORT)).status, 401);
      c.a.service.revokeRefreshTokens();
      assert.equal((await c.post('publicApi/auth/token', { refreshToken: p.refreshToken })).status, 401);
      const fresh = await c.login();
      assert.equal((await c.post('publicApi/auth/token', { refreshToken: fresh.refreshToken })).status, 200);
    });

    it('refresh: false makes the refresh path an unknown path (404); login still works', async () => {
      await c.a.stop();
      c = await setupAnalytics({ refresh: false });
      const p = await c.login();
      const r = await c.post('publicApi/auth/token', { refreshToken: p.refreshToken });
      assert.equal(r.status, 404);
      assert.deepEqual(
        [r.body.status, r.body.error, r.body.path],
        [404, 'Not Found', '/apiTrendz/publicApi/auth/token'],
      );
      c.a.service.setRefreshEnabled(true);
      assert.equal((await c.post('publicApi/auth/token', { refreshToken: p.refreshToken })).status, 200);
    });
  });

  describe('tokens on buildReport', () => {
    beforeEach(async () => {
      c = await setupAnalytics({ tokenLifetimeSec: 60 });
    });

    it('an access token expires after its lifetime (fake clock)', async () => {
      const { token } = await c.login();
      c.clock.now += 59_000;
      assert.equal((await c.report(token, REPORT)).status, 200);
      c.clock.now += 1_000;
      const r = await c.report(token, REPORT);
      assert.equal(r.status, 401);
      assert.deepEqual(r.body, { status: 401, message: 'Token has expired' });
    });

    it('setTokenLifetime applies to tokens issued afterwards', async () => {
      c.a.service.setTokenLifetime(5);
      const { token } = await c.login();
      c.clock.now += 5_000;
      assert.equal((await c.report(token, REPORT)).status, 401);
    });

    it('missing, malformed, foreign and non-Bearer tokens are 401; Authorization works as a fallback', async () => {
      const { token } = await c.login();
      const none = await c.post('publicApi/buildReport', REPORT);
      assert.equal(none.status, 401);
      assert.match(none.body.message as string, /no token/);
      assert.equal((await c.report('abc', REPORT)).status, 401);
      assert.equal(
        (await c.post('publicApi/buildReport', REPORT, { 'X-Authorization': token })).status,
        401,
        'no Bearer prefix',
      );
      const other = await startAnalyticsServer({ jwtSecret: 'another-secret', now: () => c.clock.now });
      try {
        const foreign = (
          await toRes(
            await fetch(`${other.baseUrl}publicApi/auth/login`, {
              method: 'POST',
              headers: { 'Content-Type': 'application/json' },
              body: JSON.stringify({ username: 'tenant@thingsboard.org', password: 'tenant' }),
            }),
          )
        ).body.token as string;
        assert.equal((await c.report(foreign, REPORT)).status, 401);
      } finally {
        await other.stop();
      }
      assert.equal((await c.post('publicApi/buildReport', REPORT, { Authorization: `Bearer ${token}` })).status, 200);
    });

    it('expireAllTokens: every token issued so far is rejected, new logins work', async () => {
      const a = await c.login();
      const b = await c.login('customer@thingsboard.org', 'customer');
      c.a.service.expireAllTokens();
      assert.equal((await c.report(a.token, REPORT)).status, 401);
      assert.equal((await c.report(b.token, REPORT)).status, 401);
      const fresh = await c.login();
      assert.equal((await c.report(fresh.token, REPORT)).status, 200);
      const refreshed = await c.post('publicApi/auth/token', { refreshToken: a.refreshToken });
      assert.equal((await c.report(refreshed.body.token as string, REPORT)).status, 200);
    });

    it('authErrorStatus 403 answers 403 for missing, invalid and expired tokens (not for bad logins)', async () => {
      await c.a.stop();
      c = await setupAnalytics({ tokenLifetimeSec: 60, authErrorStatus: 403 });
      const { token } = await c.login();
      assert.equal((await c.post('publicApi/buildReport', REPORT)).status, 403);
      assert.equal((await c.report('garbage', REPORT)).status, 403);
      c.clock.now += 61_000;
      const r = await c.report(token, REPORT);
      assert.deepEqual([r.status, r.body], [403, { status: 403, message: 'Token has expired' }]);
      assert.equal(
        (await c.post('publicApi/auth/login', { username: 'tenant@thingsboard.org', password: 'x' })).status,
        401,
      );
      c.a.service.setAuthErrorStatus(401);
      assert.equal((await c.report(token, REPORT)).status, 401);
    });
  });

  describe('request validation', () => {
    let token: string;
    beforeEach(async () => {
      c = await setupAnalytics();
      token = (await c.login()).token;
    });

    it('415 without Content-Type: application/json (after authentication)', async () => {
      const text = await c.report(token, JSON.stringify(REPORT), { 'Content-Type': 'text/plain;charset=UTF-8' });
      assert.equal(text.status, 415);
      assert.deepEqual(text.body, { status: 415, message: "Content-Type 'text/plain;charset=UTF-8' is not supported" });
      const none = await toRes(
        await fetch(`${c.a.baseUrl}publicApi/buildReport`, {
          method: 'POST',
          headers: { 'X-Authorization': `Bearer ${token}` },
          body: Buffer.from(JSON.stringify(REPORT)),
        }),
      );
      assert.equal(none.status, 415);
      assert.equal(
        (await c.post('publicApi/buildReport', JSON.stringify(REPORT), { 'Content-Type': 'text/plain' })).status,
        401,
        'auth first',
      );
      assert.equal((await c.report(token, REPORT, { 'Content-Type': 'application/json;charset=UTF-8' })).status, 200);
    });

    it('400 for a missing, malformed or unknown viewConfigId, with a JSON message', async () => {
      assert.deepEqual((await c.report(token, {})).body, { status: 400, message: 'viewConfigId is required' });
      const unknown = await c.report(token, { viewConfigId: '00000000-0000-4000-8000-000000000000' });
      assert.deepEqual(
        [unknown.status, unknown.body.message],
        [400, 'View config not found: 00000000-0000-4000-8000-000000000000'],
      );
      assert.equal((await c.report(token, { viewConfigId: 'energy' })).body.message, 'View config not found: energy');
      assert.equal((await c.report(token, '{"viewConfigId":')).status, 400);
      assert.equal((await c.report(token, [REPORT])).status, 400);
      const upper = await c.report(token, { viewConfigId: VIEW_ENERGY_PER_BUILDING_PER_DAY.toUpperCase() });
      assert.equal(upper.status, 200, 'UUIDs are case-insensitive');
    });

    it('400 for an invalid range (start >= end, non-numeric)', async () => {
      const eq = await c.report(token, { ...REPORT, rangeStartTs: BASE_TIME, rangeEndTs: BASE_TIME });
      assert.deepEqual(
        [eq.status, eq.body.message],
        [400, `Invalid range: rangeStartTs (${BASE_TIME}) must be before rangeEndTs (${BASE_TIME})`],
      );
      assert.equal(
        (await c.report(token, { ...REPORT, rangeStartTs: BASE_TIME + 1, rangeEndTs: BASE_TIME })).status,
        400,
      );
      assert.equal(
        (await c.report(token, { ...REPORT, rangeStartTs: 'yesterday', rangeEndTs: BASE_TIME })).status,
        400,
      );
      assert.equal((await c.report(token, { ...REPORT, rangeStartTs: 1.5, rangeEndTs: BASE_TIME })).status, 400);
      const strings = await c.report(token, {
        ...REPORT,
        rangeStartTs: String(BASE_TIME - 3600_000),
        rangeEndTs: String(BASE_TIME),
      });
      assert.equal(strings.status, 200, 'numeric strings are accepted (Jackson coercion)');
    });

    it('400 for filters that are not an object of arrays or name no filter of the view', async () => {
      const unknown = await c.report(token, { ...REPORT, filters: { Floor: ['Alpha Floor 1'] } });
      assert.equal(unknown.status, 400);
      assert.equal(
        unknown.body.message,
        'Unknown filter "Floor" for view ENERGY_PER_BUILDING_PER_DAY; its filters: Building, Owner, Device',
      );
      assert.equal((await c.report(token, { ...REPORT, filters: ['Building'] })).status, 400);
      assert.equal((await c.report(token, { ...REPORT, filters: { Building: 'Building Beta' } })).status, 400);
      assert.equal((await c.report(token, { ...REPORT, filters: { Building: [{}] } })).status, 400);
      assert.equal((await c.report(token, { ...REPORT, filters: null })).status, 200);
    });

    it('unknown paths answer a Spring 404, wrong methods 405, "//" a firewall 400', async () => {
      const nf = await c.post('publicApi/nothing', {});
      assert.deepEqual([nf.status, nf.body.error, nf.body.path], [404, 'Not Found', '/apiTrendz/publicApi/nothing']);
      const get = await toRes(await fetch(`${c.a.baseUrl}publicApi/buildReport`));
      assert.deepEqual([get.status, get.body.error], [405, 'Method Not Allowed']);
      const dbl = await toRes(
        await fetch(`${c.a.url}/apiTrendz//publicApi/buildReport`, {
          method: 'POST',
          headers: { 'Content-Type': 'application/json', 'X-Authorization': `Bearer ${token}` },
          body: JSON.stringify(REPORT),
        }),
      );
      assert.equal(dbl.status, 400);
      assert.match(dbl.body.message as string, /"\/\/"/);
      const outside = await toRes(await fetch(`${c.a.url}/api/auth/login`, { method: 'POST' }));
      assert.equal(outside.status, 404);
    });
  });

  describe('fault injection and the request log', () => {
    let token: string;
    beforeEach(async () => {
      c = await setupAnalytics();
      token = (await c.login()).token;
    });

    it('a 500 with a JSON message, once by default, path relative to the base', async () => {
      const id = c.a.service.faults.add({
        path: 'publicApi/buildReport',
        status: 500,
        body: { message: 'Report computation failed' },
      });
      assert.equal(typeof id, 'number');
      const r = await c.report(token, REPORT);
      assert.deepEqual([r.status, r.body], [500, { message: 'Report computation failed' }]);
      assert.equal((await c.report(token, REPORT)).status, 200);
    });

    it('plain-text bodies, default bodies, times, method filter, Retry-After, malformed, dropped connection', async () => {
      const svc = c.a.service;
      svc.addFault({ path: 'publicApi/buildReport', status: 503, body: 'Service is restarting' });
      const text = await c.report(token, REPORT);
      assert.deepEqual(
        [text.status, text.text, text.headers.get('content-type')],
        [503, 'Service is restarting', 'text/plain;charset=UTF-8'],
      );
      svc.addFault({ path: /buildReport$/, status: 500, times: 2 });
      assert.deepEqual((await c.report(token, REPORT)).body, { status: 500, message: 'Report computation failed' });
      assert.equal((await c.report(token, REPORT)).status, 500);
      assert.equal((await c.report(token, REPORT)).status, 200);
      svc.addFault({ path: 'publicApi/buildReport', method: 'GET', status: 418 });
      assert.equal((await c.report(token, REPORT)).status, 200, 'method does not match');
      svc.faults.clear();
      svc.addFault({ path: 'publicApi/buildReport', status: 429, retryAfter: 3 });
      const busy = await c.report(token, REPORT);
      assert.deepEqual([busy.status, busy.headers.get('retry-after')], [429, '3']);
      svc.addFault({ path: 'publicApi/buildReport', malformed: true });
      const bad = await c.report(token, REPORT);
      assert.equal(bad.status, 200);
      assert.equal(bad.body, undefined, 'not JSON');
      svc.addFault({ path: 'publicApi/auth/login', dropConnection: true });
      await assert.rejects(c.post('publicApi/auth/login', { username: 'tenant@thingsboard.org', password: 'tenant' }));
      assert.equal(
        (await c.post('publicApi/auth/login', { username: 'tenant@thingsboard.org', password: 'tenant' })).status,
        200,
      );
      assert.equal(svc.faults.size, 0);
    });

    it('a fault with only delayMs makes the report slow (it holds a worker) and then answers it', async () => {
      const svc = c.a.service;
      svc.addFault({ path: 'publicApi/buildReport', delayMs: 60 });
      const clock = fakeTimers(); // the report's worker holds it on the fake clock
      try {
        const pending = c.report(token, REPORT);
        await new Promise<void>((resolve) => svc.once('started', () => resolve()));
        assert.equal(svc.stats.running, 1);
        let done = false;
        svc.once('done', () => (done = true));
        await clock.tickAsync(59);
        assert.deepEqual([done, svc.stats.running], [false, 1], 'still computing after 59 ms');
        await clock.tickAsync(1);
        assert.equal(done, true, 'done after 60 ms');
        const r = await pending;
        assert.equal(r.status, 200);
      } finally {
        clock.restore();
      }
      assert.equal(svc.stats.running, 0);
    });

    it('a slow report makes a client timeout; the abandoned request leaves inFlight', async () => {
      const svc = c.a.service;
      svc.addFault({ path: 'publicApi/buildReport', delayMs: 300 });
      svc.addFault({ path: 'publicApi/buildReport', delayMs: 300 });
      const gone = new Promise<void>((resolve) => svc.once('aborted', () => resolve()));
      const aborted = fetch(`${c.a.baseUrl}publicApi/buildReport`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', 'X-Authorization': `Bearer ${token}` },
        body: JSON.stringify(REPORT),
        signal: AbortSignal.timeout(50),
      });
      await assert.rejects(aborted, (e: Error) => e.name === 'TimeoutError');
      await gone;
      assert.equal(svc.inFlight, 0);
      assert.equal(svc.stats.running, 1, 'the report still holds its worker');
      assert.equal(svc.requests.entries().at(-1)?.status, 0);
    });

    it('counts requests by path and logs their statuses', async () => {
      const svc = c.a.service;
      svc.resetRequests();
      await c.report(token, REPORT);
      await c.report(token, {});
      await c.post('publicApi/auth/login', { username: 'tenant@thingsboard.org', password: 'x' });
      assert.equal(svc.countRequests('publicApi/buildReport'), 2);
      assert.equal(svc.countRequests('/apiTrendz/publicApi/auth/'), 1);
      assert.equal(svc.countRequests(/buildReport/, 'GET'), 0);
      assert.deepEqual(svc.requests.countsByPath(), {
        'POST /apiTrendz/publicApi/buildReport': 2,
        'POST /apiTrendz/publicApi/auth/login': 1,
      });
      assert.deepEqual(
        svc.requests.entries().map((e) => e.status),
        [200, 400, 401],
      );
      assert.equal(svc.requests.entries()[0].time, c.clock.now);
    });
  });

  describe('mounting and control routes', () => {
    it('attachAnalytics routes the base path and /__sim/analytics to the service, the rest to the server', async () => {
      const data = new Dataset(() => BASE_TIME);
      const { users } = seedDataset(data);
      const platform: Server = createServer((req, res) => {
        req.resume();
        res.writeHead(200, { 'Content-Type': 'text/plain' });
        res.end(`platform ${req.url}`);
      });
      await new Promise<void>((resolve) => platform.listen(0, '127.0.0.1', resolve));
      const url = `http://127.0.0.1:${(platform.address() as AddressInfo).port}`;
      try {
        const svc = new AnalyticsService({ data, users, now: () => BASE_TIME });
        const detach = attachAnalytics(platform, svc);
        const login = await fetch(`${url}/apiTrendz/publicApi/auth/login`, {
          method: 'POST',
          headers: { 'Content-Type': 'application/json' },
          body: JSON.stringify({ username: 'tenant@thingsboard.org', password: 'tenant' }),
        });
        assert.equal(login.status, 200);
        assert.equal(await (await fetch(`${url}/api/auth/user`)).text(), 'platform /api/auth/user');
        assert.equal(await (await fetch(`${url}/apiTrendzX`)).text(), 'platform /apiTrendzX');
        const stats = (await toRes(await fetch(`${url}/__sim/analytics/stats`))).body;
        assert.equal(stats.settings.basePath, '/apiTrendz/');
        assert.equal(await (await fetch(`${url}/__sim/health`)).text(), 'platform /__sim/health');
        detach();
        assert.equal(
          await (await fetch(`${url}/apiTrendz/publicApi/auth/login`, { method: 'POST' })).text(),
          'platform /apiTrendz/publicApi/auth/login',
        );
        assert.equal(svc.handle({ url: '/api/x', method: 'GET' } as never, {} as never), false);
      } finally {
        platform.closeAllConnections();
        await new Promise<void>((resolve) => platform.close(() => resolve()));
      }
    });

    it('mounted on the Simulator: analyticsUrl = <sim url>/apiTrendz/, same dataset, platform API untouched', async () => {
      const sim = new Simulator({ now: () => BASE_TIME });
      const url = await sim.start();
      const svc = new AnalyticsService({ data: sim.data, users: sim.seed.users, now: () => sim.now() });
      try {
        attachAnalytics(sim.httpServer as Server, svc);
        const json = { 'Content-Type': 'application/json' };
        const creds = JSON.stringify({ username: 'customer@thingsboard.org', password: 'customer' });
        const a = await toRes(
          await fetch(`${url}/apiTrendz/publicApi/auth/login`, { method: 'POST', headers: json, body: creds }),
        );
        assert.equal(a.status, 200);
        const p = await toRes(await fetch(`${url}/api/auth/login`, { method: 'POST', headers: json, body: creds }));
        assert.equal(p.status, 200);
        assert.notEqual(p.body.token, a.body.token);
        sim.data.setTelemetry(sim.data.mustFindByName('DEVICE', 'Meter A-100'), { energy: 1 }, BASE_TIME - 1000);
        const r = await toRes(
          await fetch(`${url}/apiTrendz/publicApi/buildReport`, {
            method: 'POST',
            headers: { ...json, 'X-Authorization': `Bearer ${a.body.token as string}` },
            body: JSON.stringify(REPORT),
          }),
        );
        assert.deepEqual(r.body.dataTable, [
          { Date: BASE_TIME - 86_400_000, Building: 'Building Alpha', energy: 48003 },
        ]);
        const platformWithAnalyticsToken = await fetch(`${url}/api/auth/user`, {
          headers: { 'X-Authorization': `Bearer ${a.body.token as string}` },
        });
        assert.equal(platformWithAnalyticsToken.status, 401, 'separate token secrets');
        assert.equal(sim.countRequests('/apiTrendz'), 0, 'analytics requests are in svc.requests, not sim.requests');
        assert.equal(svc.countRequests('publicApi/'), 2);
      } finally {
        svc.shutdown();
        await sim.stop();
      }
    });

    it('/__sim/analytics: stats, settings, views, faults, requests, token expiry', async () => {
      c = await setupAnalytics();
      const { token } = await c.login();
      const ctl = async (method: string, path: string, body?: unknown): Promise<ReturnType<typeof toRes>> =>
        toRes(
          await fetch(`${c.a.url}/__sim/analytics${path}`, {
            method,
            headers: { 'Content-Type': 'application/json' },
            body: body === undefined ? undefined : JSON.stringify(body),
          }),
        );
      const views = (await ctl('GET', '/views')).body as Array<{ id: string; name: string; columns: string[] }>;
      assert.deepEqual(
        views.map((v) => v.id),
        Object.values(VIEW_IDS),
      );
      assert.ok(views.some((v) => v.id === DEMO_VIEW_ID && v.columns.join() === 'Date,Building,energy'));
      const s = (
        await ctl('POST', '/settings', {
          numericStrings: true,
          reportDelayMs: 5,
          retryAfterSec: 2,
          queueCapacity: 3,
          concurrency: 4,
        })
      ).body;
      assert.deepEqual(
        [s.numericStrings, s.reportDelayMs, s.retryAfterSec, s.queueCapacity, s.concurrency],
        [true, 5, 2, 3, 4],
      );
      const r = await c.report(token, REPORT);
      assert.equal(typeof r.body.dataTable[0].energy, 'string');
      const f = (await ctl('POST', '/faults', { pathRegex: 'buildReport$', status: 502, times: null })).body;
      assert.equal((await c.report(token, REPORT)).status, 502);
      assert.equal((await c.report(token, REPORT)).status, 502);
      assert.deepEqual((await ctl('DELETE', `/faults/${f.id as number}`)).body, { removed: true });
      assert.equal((await c.report(token, REPORT)).status, 200);
      assert.equal((await ctl('GET', '/requests/count?prefix=publicApi/buildReport')).body.count, 4);
      const stats = (await ctl('GET', '/stats')).body;
      assert.deepEqual([stats.completed, stats.maxConcurrentSeen, stats.inFlight], [2, 1, 0]);
      await ctl('POST', '/tokens/expire');
      assert.equal((await c.report(token, REPORT)).status, 401);
      assert.equal((await ctl('GET', '/nothing')).status, 404);
      assert.equal((await ctl('POST', '/faults', 'x')).status, 400);
    });
  });
});
