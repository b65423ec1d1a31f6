import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import path from 'node:path';
import { Simulator } from '../../sim/index';
import { ALL_DEVICES, Client } from '../../sim/testkit';
import { useSimSetup } from '../support/simulator';
import { fakeTimers } from '../support/wait';

const COUNT = '/api/entitiesQuery/count';
const BODY = { entityFilter: ALL_DEVICES };

describe('simulator: test hooks', function () {
  const c = useSimSetup({}, { perTest: true });

  describe('faults', () => {
    it('429 with Retry-After, once by default', async () => {
      c.sim.faults.add({ path: '/api/entitiesQuery', status: 429, retryAfter: 2 });
      const r = await c.tenant.post(COUNT, BODY);
      assert.equal(r.status, 429);
      assert.equal(r.headers.get('retry-after'), '2');
      assert.deepEqual([r.body.errorCode, r.body.message], [33, 'Too many requests for current tenant!']);
      assert.equal((await c.tenant.post(COUNT, BODY)).status, 200);
      assert.equal(c.sim.faults.size, 0);
    });
    it('times, custom body, method and RegExp matching, order', async () => {
      c.sim.faults.add({ path: /count$/, method: 'post', status: 500, times: 2 });
      c.sim.faults.add({ path: '/api/entitiesQuery/count', status: 503, body: { custom: true } });
      c.sim.faults.add({ path: '/api/alarmsQuery', method: 'GET', status: 418 });
      assert.equal((await c.tenant.post(COUNT, BODY)).body.errorCode, 2);
      assert.equal((await c.tenant.post(COUNT, BODY)).status, 500);
      const third = await c.tenant.post(COUNT, BODY);
      assert.deepEqual([third.status, third.body], [503, { custom: true }]);
      assert.equal((await c.tenant.post('/api/alarmsQuery/count', {})).status, 200, 'method does not match');
      c.sim.faults.clear();
      assert.equal(c.sim.faults.size, 0);
    });
    it('malformed body', async () => {
      c.sim.faults.add({ path: '/api/entitiesQuery/find', malformed: true });
      const r = await c.tenant.post('/api/entitiesQuery/find', {});
      assert.equal(r.status, 200);
      assert.equal(r.headers.get('content-type'), 'application/json');
      assert.equal(r.body, undefined, 'not parseable');
      assert.throws(() => JSON.parse(r.text));
    });
    it('huge body: a JSON object of exactly bodyBytes bytes', async () => {
      c.sim.faults.add({ path: '/api/entitiesQuery/find', bodyBytes: 3 * 1024 * 1024 + 5 });
      const r = await c.tenant.post('/api/entitiesQuery/find', {});
      assert.equal(r.status, 200);
      assert.equal(r.headers.get('content-type'), 'application/json');
      assert.equal(Buffer.byteLength(r.text), 3 * 1024 * 1024 + 5);
      assert.equal((r.body as { filler: string }).filler.length, 3 * 1024 * 1024 + 5 - 13);
      assert.equal(
        (await c.tenant.post('/api/entitiesQuery/find', {})).status,
        400,
        'once: then handled normally (an empty query is a bad request)',
      );
    });
    it('huge body, chunked: the same bytes without a Content-Length', async () => {
      c.sim.faults.add({ path: '/api/entitiesQuery/find', bodyBytes: 2 * 1024 * 1024 + 7, chunked: true });
      const r = await c.tenant.post('/api/entitiesQuery/find', {});
      assert.equal(r.status, 200);
      assert.equal(r.headers.get('content-length'), null);
      assert.equal(r.headers.get('transfer-encoding'), 'chunked');
      assert.equal(Buffer.byteLength(r.text), 2 * 1024 * 1024 + 7);
    });
    it('dropped connection', async () => {
      c.sim.faults.add({ path: COUNT, dropConnection: true });
      await assert.rejects(c.tenant.post(COUNT, BODY));
      assert.equal((await c.tenant.post(COUNT, BODY)).status, 200);
      assert.equal(c.sim.requests.entries().at(-2)?.status, 0);
    });
    it('delay, then normal handling; latency option', async () => {
      // The server's timers run on the fake clock (installed before a request arrives): it holds each answer for
      // exactly its delay, and the test moves the clock up to it.
      const clock = fakeTimers();
      try {
        /** Sends a count and checks that the server answers it after `ms` of the clock, not before. */
        const heldFor = async (ms: number, what: string): Promise<string> => {
          // The request is read: the server's own 'end' listener (added first) has set its timer.
          const read = new Promise<ServerResponse>((resolve) =>
            c.sim.httpServer!.once('request', (req: IncomingMessage, res: ServerResponse) =>
              req.on('end', () => resolve(res)),
            ),
          );
          const answer = c.tenant.post(COUNT, BODY);
          const res = await read;
          await clock.tickAsync(ms - 1);
          assert.equal(res.writableEnded, false, `${what}: no answer after ${ms - 1} ms`);
          await clock.tickAsync(1);
          assert.equal(res.writableEnded, true, `${what}: the answer after ${ms} ms`);
          return (await answer).text;
        };
        c.sim.faults.add({ path: COUNT, delayMs: 60 });
        assert.equal(await heldFor(60, 'delayed'), '28');
        c.sim.setLatency(40);
        await heldFor(40, 'latency applied');
        c.sim.setLatency(0);
      } finally {
        clock.restore();
      }
    });
    it('a fault that is only a status answers the default error body', async () => {
      c.sim.faults.add({ status: 401, times: Infinity, path: '/api/entitiesQuery' });
      for (let i = 0; i < 3; i++) assert.equal((await c.tenant.post(COUNT, BODY)).body.errorCode, 11);
      assert.equal(c.sim.faults.list()[0].hits, 3);
    });
  });

  describe('request log', () => {
    it('counts by prefix / RegExp / method; bounded ring; reset', async () => {
      c.sim.resetRequests();
      for (let i = 0; i < 3; i++) await c.tenant.post(COUNT, BODY);
      await c.tenant.post('/api/alarmsQuery/count', {});
      assert.equal(c.sim.countRequests('/api/entitiesQuery'), 3);
      assert.equal(c.sim.countRequests('/api/'), 4);
      assert.equal(c.sim.countRequests(/Query\/count$/), 4);
      assert.equal(c.sim.countRequests('/api/', 'GET'), 0);
      const e = c.sim.requests.entries();
      assert.equal(e.length, 4);
      assert.deepEqual([e[0].method, e[0].path, e[0].status, e[0].time], ['POST', COUNT, 200, c.clock.now]);
      c.sim.resetRequests();
      assert.equal(c.sim.countRequests('/'), 0);
      assert.equal(c.sim.requests.entries().length, 0);
    });
    it('the ring keeps the last N', async () => {
      const sim = new Simulator({ requestLogSize: 3 });
      await sim.start();
      try {
        const cl = new Client(sim.url);
        for (let i = 0; i < 5; i++) await cl.post(`/api/x${i}`, {});
        assert.deepEqual(
          sim.requests.entries().map((x) => x.path),
          ['/api/x2', '/api/x3', '/api/x4'],
        );
        assert.equal(sim.countRequests('/api/x'), 5);
      } finally {
        await sim.stop();
      }
    });
  });

  describe('/__sim control API', () => {
    it('health, faults, request counts, tokens, clock', async () => {
      const ctl = new Client(c.url);
      await ctl.post('/__sim/requests/reset');
      const h = await ctl.request('GET', '/__sim/health');
      assert.deepEqual([h.status, h.body.ok, h.body.url], [200, true, c.url]);
      const f = await ctl.post('/__sim/faults', { pathRegex: 'count$', status: 429, retryAfter: 1 });
      assert.equal(typeof f.body.id, 'number');
      assert.equal((await c.tenant.post(COUNT, BODY)).status, 429);
      const n = await ctl.request('GET', `/__sim/requests/count?prefix=${encodeURIComponent(COUNT)}`);
      assert.equal(n.body.count, 1);
      assert.equal((await ctl.request('GET', '/__sim/requests?limit=5')).body.entries.length, 1);
      await ctl.post('/__sim/tokens/expire');
      assert.equal((await c.tenant.post(COUNT, BODY)).body.errorCode, 11);
      await ctl.post('/__sim/requests/reset');
      assert.equal((await ctl.request('GET', '/__sim/requests/count?prefix=/')).body.count, 0);
      const clock = await ctl.post('/__sim/clock', { now: 5 });
      assert.equal(clock.body.now, 5);
      assert.equal(c.sim.now(), 5);
      assert.equal((await ctl.request('GET', '/__sim/nope')).status, 404);
    });
    it('data mutations over HTTP', async () => {
      const ctl = new Client(c.url);
      const dev = c.sim.data.mustFindByName('DEVICE', 'Thermo Lab');
      await ctl.post('/__sim/telemetry', {
        entityId: { entityType: 'DEVICE', id: dev.id },
        values: { temperature: { $double: 40 } },
        ts: c.clock.now,
      });
      assert.deepEqual(c.sim.data.latestOf(dev.id, 'temperature'), { ts: c.clock.now, type: 'DOUBLE', value: 40 });
      await ctl.post('/__sim/attributes', { entityId: dev.id, scope: 'SHARED_SCOPE', values: { mode: 'cool' } });
      assert.equal(c.sim.data.attributeOf(dev.id, 'SHARED_SCOPE', 'mode')?.value, 'cool');
      // a huge value without a request that large; the history of a key
      await ctl.post('/__sim/attributes', {
        entityId: dev.id,
        scope: 'SERVER_SCOPE',
        filler: { key: 'blob', bytes: 100000 },
      });
      assert.equal(c.sim.data.attributeOf(dev.id, 'SERVER_SCOPE', 'blob')?.value, 'x'.repeat(100000));
      assert.deepEqual((await ctl.request('GET', `/__sim/telemetry?entityId=${dev.id}&key=temperature`)).body.at(-1), {
        ts: c.clock.now,
        value: 40,
      });
      const created = await ctl.post('/__sim/alarms', { originator: dev.id, type: 'Overheat', severity: 'MAJOR' });
      assert.equal(created.body.status, 'ACTIVE_UNACK');
      const acked = await ctl.post(`/__sim/alarms/${created.body.id.id}/ack`);
      assert.equal(acked.body.status, 'ACTIVE_ACK');
      const ent = await ctl.post('/__sim/entities', { entityType: 'DEVICE', name: 'New One', type: 'thermostat' });
      assert.equal(ent.body.name, 'New One');
      assert.equal((await ctl.request('GET', '/__sim/entities?type=DEVICE&name=New%20One')).body.length, 1);
      assert.equal((await ctl.request('DELETE', `/__sim/entities/${ent.body.id.id}`)).status, 200);
      const users = await ctl.request('GET', '/__sim/users');
      assert.ok(users.body.users.some((u: { email: string }) => u.email === 'tenant@thingsboard.org'));
      assert.equal((await ctl.post('/__sim/telemetry', { entityId: 'nope', values: {} })).status, 400);
    });

    it('changes over time: POST /__sim/schedule makes each step after its delay; a bad step schedules nothing', async () => {
      const ctl = new Client(c.url);
      const dev = c.sim.data.mustFindByName('DEVICE', 'Thermo Lab');
      const alarm = c.sim.data.createAlarm({ originator: dev.id, type: 'Scheduled' });
      const bad = await ctl.post('/__sim/schedule', {
        steps: [
          { afterMs: 10, telemetry: { entityId: dev.id, values: { temperature: 1 } } },
          { afterMs: 10, alarm: { id: alarm.id, action: 'close' } },
        ],
      });
      assert.equal(bad.status, 400);
      assert.match(bad.body.error, /steps\[1\]\.alarm\.action must be 'ack' or 'clear'/);
      // The steps' timers run on the fake clock, installed before they are scheduled.
      const clock = fakeTimers();
      try {
        const r = await ctl.post('/__sim/schedule', {
          steps: [
            { afterMs: 20, telemetry: { entityId: dev.id, values: { temperature: 30.5 }, ts: c.clock.now + 1 } },
            { afterMs: 40, attributes: { entityId: dev.id, scope: 'SERVER_SCOPE', values: { active: true } } },
            { afterMs: 60, alarm: { id: alarm.id, action: 'ack' } },
            { afterMs: 60000, telemetry: { entityId: dev.id, values: { temperature: 99 } } },
          ],
        });
        assert.deepEqual(r.body, { scheduled: 4 });
        assert.notEqual(c.sim.data.latestOf(dev.id, 'temperature')?.value, 30.5, 'not at once');
        await clock.tickAsync(60);
        assert.equal(c.sim.data.latestOf(dev.id, 'temperature')?.value, 30.5);
        assert.equal(c.sim.data.attributeOf(dev.id, 'SERVER_SCOPE', 'active')?.value, true);
        assert.equal(c.sim.data.getAlarm(alarm.id)?.acknowledged, true);
        assert.deepEqual((await ctl.request('GET', '/__sim/schedule')).body, { pending: 1 });
        assert.deepEqual((await ctl.request('DELETE', '/__sim/schedule')).body, { cancelled: 1 });
      } finally {
        clock.restore();
      }
    });
  });

  describe('lifecycle', () => {
    it('stop closes keep-alive sockets at once', async () => {
      const sim = new Simulator();
      const url = await sim.start();
      assert.match(url, /^http:\/\/127\.0\.0\.1:\d+$/);
      assert.equal(sim.url, url);
      assert.ok(sim.port > 0);
      // A kept-alive socket that nothing but stop() closes: the agent keeps its free sockets without a timeout,
      // and the server's keep-alive timeout is off. Were stop() to wait for idle sockets to go, it would never end.
      sim.httpServer!.keepAliveTimeout = 0;
      const agent = new http.Agent({ keepAlive: true });
      try {
        const free = once(agent, 'free');
        const socket = await new Promise<Socket>((resolve, reject) => {
          const req = http.get(`${url}/__sim/health`, { agent }, (res) => {
            res.resume();
            res.on('end', () => resolve(req.socket as Socket));
          });
          req.on('error', reject);
        });
        await free; // kept alive, idle in the agent's pool
        const closed = once(socket, 'close');
        await sim.stop();
        await closed;
      } finally {
        agent.destroy();
      }
      await assert.rejects(fetch(`${url}/__sim/health`));
      await sim.stop(); // idempotent
    });
    it('CLI prints its URL and exits on SIGTERM', async function () {
      this.timeout(20000);
      const cli = path.join(__dirname, '..', '..', 'sim', 'cli.ts');
      const child = spawn(process.execPath, ['--import', 'tsx', cli, '--port', '0', '--extra-devices', '10'], {
        stdio: ['pipe', 'pipe', 'pipe'],
      });
      const line = await new Promise<string>((resolve, reject) => {
        let buf = '';
        child.stdout.on('data', (d: Buffer) => {
          buf += d.toString();
          if (buf.includes('\n')) resolve(buf.split('\n')[0]);
        });
        child.on('exit', (code) => reject(new Error(`exited ${code}`)));
      });
      const { url } = JSON.parse(line) as { url: string };
      const cl = new Client(url);
      const r = await cl.post('/api/auth/login', { username: 'tenant@thingsboard.org', password: 'tenant' });
      const n = await new Client(url, { 'X-Authorization': `Bearer ${r.body.token as string}` }).post(COUNT, {
        entityFilter: { type: 'deviceType', deviceTypes: ['bench'] },
      });
      assert.equal(n.text, '10');
      const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
      child.kill('SIGTERM');
      assert.equal(await exited, 0);
    });
  });
});
