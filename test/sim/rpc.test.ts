import assert from 'node:assert/strict';
import { once } from 'node:events';
import http from 'node:http';
import type { SimEntity } from '../../sim/index';
import { Client, login, NOW, setup, type HttpResult } from '../../sim/testkit';
import { useSimSetup } from '../support/simulator';
import { fakeTimers } from '../support/wait';

const TEXT = 'text/plain;charset=UTF-8';

// test code inspects arbitrary JSON shapes
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Msg = any;

interface Call {
  res: Promise<HttpResult>;
  rpcId: string;
  /** whether the server has answered it (its 'answered' event) */
  answered(): boolean;
}

describe('simulator: §13 RPC', function () {
  const c = useSimSetup({ rpcTimers: 'manual' }, { perTest: true });
  let dev: SimEntity;
  let sysadmin: Client;

  beforeEach(async () => {
    dev = c.sim.data.mustFindByName('DEVICE', 'Thermo G-101'); // tenant-owned
    sysadmin = await login(c.url, 'sysadmin@thingsboard.org', 'sysadmin');
  });

  /** Sends an RPC and waits until the server took it (its 'request' event); the answer may come later. */
  async function call(
    mode: 'oneway' | 'twoway',
    body: unknown,
    opts: { v1?: boolean; client?: Client; device?: string } = {},
  ): Promise<Call> {
    const got = once(c.sim.rpc.events, 'request');
    const res = (opts.client ?? c.tenant).post(
      `${opts.v1 ? '/api/plugins/rpc' : '/api/rpc'}/${mode}/${opts.device ?? dev.id}`,
      body,
    );
    const [ev] = (await got) as [{ rpcId: string }];
    // The server answers inside advance(), synchronously: its event says so before any I/O.
    let answered = false;
    const onAnswer = (a: { rpcId: string }) => {
      if (a.rpcId !== ev.rpcId) return;
      answered = true;
      c.sim.rpc.events.off('answered', onAnswer);
    };
    c.sim.rpc.events.on('answered', onAnswer);
    return { res, rpcId: ev.rpcId, answered: () => answered };
  }
  const status = (id: string): unknown => c.sim.rpc.get(id)?.status;
  const statuses = (): { rpcId: string; status: string }[] => {
    const seen: { rpcId: string; status: string }[] = [];
    c.sim.rpc.events.on('status', (e: { rpcId: string; status: string }) => seen.push(e));
    return seen;
  };

  describe('lightweight RPC', () => {
    it('a connected device: one-way 200 empty at once, two-way 200 with its JSON reply (echo by default)', async () => {
      const one = await call('oneway', { method: 'setGpio', params: { pin: 7, value: 1 } });
      assert.deepEqual([(await one.res).status, (await one.res).text], [200, '']);
      const two = await call('twoway', { method: 'getTemp', params: { unit: 'C' } });
      const r = await two.res;
      assert.deepEqual([r.status, r.body], [200, { method: 'getTemp', params: { unit: 'C' } }]);
      assert.equal(c.sim.rpc.deliveredCount(dev.id), 2);
      assert.deepEqual(
        c.sim.rpc.calls(dev.id).map((x) => [x.method, x.params, x.oneway, x.persistent, x.deliveredAt, x.attempts]),
        [
          ['setGpio', { pin: 7, value: 1 }, true, false, NOW, 1],
          ['getTemp', { unit: 'C' }, false, false, NOW, 1],
        ],
      );
      assert.equal(c.sim.rpc.requestCount(), 2);
    });

    it('a scripted reply after a delay; a reply function sees the call', async () => {
      c.sim.rpc.setDevice(dev.id, { mode: 'answer', reply: (x) => ({ got: x.method, n: 21.5 }), replyDelayMs: 2000 });
      const two = await call('twoway', { method: 'read' });
      c.sim.rpc.advance(1999);
      assert.equal(two.answered(), false);
      c.sim.rpc.advance(1);
      assert.deepEqual((await two.res).body, { got: 'read', n: 21.5 });
      c.sim.rpc.setDevice(dev.id, { mode: 'answer', reply: 'ok' });
      const str = await call('twoway', { method: 'read' });
      assert.equal((await str.res).text, '"ok"');
    });

    it('a silent device: two-way waits the default 10 s, then 504 (v2) / 408 (v1), empty', async () => {
      c.sim.rpc.setDevice(dev.id, { mode: 'silent' });
      const two = await call('twoway', { method: 'm' });
      c.sim.rpc.advance(9999);
      assert.equal(two.answered(), false);
      c.sim.rpc.advance(1);
      assert.deepEqual([(await two.res).status, (await two.res).text], [504, '']);
      const v1 = await call('twoway', { method: 'm' }, { v1: true });
      c.sim.rpc.advance(10_000);
      assert.equal((await v1.res).status, 408);
      const one = await call('oneway', { method: 'm' });
      assert.equal((await one.res).status, 200, 'one-way: handed to the transport');
    });

    it('timeout is raised to 5000 when below; expirationTime wins and is not floored', async () => {
      c.sim.rpc.setDevice(dev.id, { mode: 'silent' });
      const low = await call('twoway', { method: 'm', timeout: 1000 });
      c.sim.rpc.advance(4999);
      assert.equal(low.answered(), false);
      c.sim.rpc.advance(1);
      assert.equal((await low.res).status, 504);
      const exp = await call('twoway', { method: 'm', timeout: 20_000, expirationTime: NOW + 2000 });
      c.sim.rpc.advance(2000);
      assert.equal((await exp.res).status, 504);
      // a timeout in the query string is ignored (body only): the default 10 s applies
      const q = c.tenant.post(`/api/rpc/twoway/${dev.id}?timeout=1000`, { method: 'm' });
      await once(c.sim.rpc.events, 'request');
      let answered = false;
      c.sim.rpc.events.once('answered', () => (answered = true));
      c.sim.rpc.advance(5000);
      assert.equal(answered, false, 'not at the 5 s floor of a 1 s timeout');
      c.sim.rpc.advance(5000);
      assert.equal((await q).status, 504);
    });

    it('an offline device is not refused quickly: the whole window, then 504 (v2) / 409 (v1), also one-way', async () => {
      c.sim.rpc.setDevice(dev.id, { mode: 'offline' });
      const one = await call('oneway', { method: 'm' });
      const v1 = await call('oneway', { method: 'm' }, { v1: true });
      c.sim.rpc.advance(9999);
      assert.equal(one.answered() || v1.answered(), false);
      c.sim.rpc.advance(1);
      assert.deepEqual([(await one.res).status, (await v1.res).status], [504, 409]);
      assert.equal(c.sim.rpc.deliveredCount(dev.id), 0);
      // "Spare Sensor" is offline in the seed
      const spare = c.sim.data.mustFindByName('DEVICE', 'Spare Sensor');
      assert.equal(c.sim.rpc.device(spare.id).mode, 'offline');
    });

    it('a device that comes online within the window gets the pending RPCs', async () => {
      c.sim.rpc.setDevice(dev.id, { mode: 'offline' });
      const two = await call('twoway', { method: 'late', params: 1 });
      const one = await call('oneway', { method: 'late1' });
      c.sim.rpc.advance(3000);
      c.sim.rpc.setDevice(dev.id, { mode: 'answer', reply: { up: true } });
      assert.deepEqual((await two.res).body, { up: true });
      assert.equal((await one.res).status, 200);
      assert.deepEqual(
        c.sim.rpc.calls(dev.id).map((x) => x.method),
        ['late', 'late1'],
      );
    });

    it('replies: not JSON or a device error → 406 empty; an empty reply → 200 empty', async () => {
      c.sim.rpc.setDevice(dev.id, { mode: 'nonJson', text: 'ok' });
      let r = await (await call('twoway', { method: 'm' })).res;
      assert.deepEqual([r.status, r.text], [406, '']);
      c.sim.rpc.setDevice(dev.id, { mode: 'error', text: 'busy' });
      assert.equal((await (await call('twoway', { method: 'm' })).res).status, 406);
      c.sim.rpc.setDevice(dev.id, { mode: 'empty' });
      r = await (await call('twoway', { method: 'm' })).res;
      assert.deepEqual([r.status, r.text], [200, '']);
    });

    it('a rule chain without "rpc call request": nothing reaches the device, 504 after expiry + 1 s', async () => {
      c.sim.rpc.setDevice(dev.id, { mode: 'unrouted' });
      const one = await call('oneway', { method: 'm' });
      c.sim.rpc.advance(10_000);
      assert.equal(one.answered(), false);
      c.sim.rpc.advance(1000);
      assert.equal((await one.res).status, 504);
      assert.equal(c.sim.rpc.deliveredCount(), 0);
    });

    it('every wait is capped at 30 s: then a 500 JSON "Request timeout"', async () => {
      c.sim.rpc.setDevice(dev.id, { mode: 'silent' });
      const two = await call('twoway', { method: 'm', timeout: 60_000 });
      c.sim.rpc.advance(29_999);
      assert.equal(two.answered(), false);
      c.sim.rpc.advance(1);
      const r = await two.res;
      assert.deepEqual([r.status, r.body.message, r.body.errorCode], [500, 'Request timeout', 2]);
    });

    it('an expirationTime already past: 504 after 1 s; persistent: stored EXPIRED and no rpcId', async () => {
      const past = await call('twoway', { method: 'm', expirationTime: NOW - 1 });
      c.sim.rpc.advance(1000);
      assert.equal((await past.res).status, 504);
      const p = await call('twoway', { method: 'm', expirationTime: Math.floor(NOW / 1000), persistent: true });
      c.sim.rpc.advance(1000);
      const r = await p.res;
      assert.deepEqual([r.status, r.text], [504, '']);
      assert.equal(status(p.rpcId), 'EXPIRED');
      assert.equal(c.sim.rpc.deliveredCount(), 0);
    });

    it('request errors: JSON 400 / 500 where the controller throws, bare strings from the access check', async () => {
      const post = (path: string, body: unknown, client = c.tenant): Promise<HttpResult> => client.post(path, body);
      let r = await post(`/api/rpc/twoway/${dev.id}`, '{"method":');
      assert.deepEqual([r.status, r.body.errorCode, r.body.message], [400, 31, 'Invalid request body']);
      r = await post(`/api/rpc/twoway/${dev.id}`, { params: 1 });
      assert.deepEqual([r.status, r.body.errorCode], [500, 2], 'no method: NPE, 500');
      assert.match(r.body.message, /JsonNode\.asText\(\)/);
      assert.equal((await post(`/api/rpc/twoway/${dev.id}`, [{ method: 'm' }])).status, 500, 'array body');
      r = await post(`/api/rpc/twoway/${dev.id}`, { method: 'm', requestUUID: 'nope' });
      assert.deepEqual([r.status, r.body.message], [400, 'Invalid request body']);
      r = await post('/api/rpc/twoway/nope', { method: 'm' });
      assert.deepEqual([r.status, r.body.errorCode, r.body.message], [400, 31, 'Invalid UUID string: nope']);
      r = await post('/api/rpc/twoway/11111111-2222-4333-8444-555555555555', { method: 'm' });
      assert.deepEqual(
        [r.status, r.text, r.headers.get('content-type')],
        [404, "Device with requested id wasn't found!", TEXT],
      );
      const other = c.sim.data.mustFindByName('DEVICE', 'Thermo B-101');
      r = await post(`/api/rpc/oneway/${other.id}`, { method: 'm' }, c.customer);
      assert.deepEqual([r.status, r.text], [403, "You don't have permission to perform this operation!"]);
      r = await post(`/api/rpc/oneway/${dev.id}`, { method: 'm' }, sysadmin);
      assert.deepEqual([r.status, r.text], [403, 'System administrator is not allowed to perform this operation!']);
      assert.equal(c.sim.rpc.requestCount(), 0);
      // a customer user may command its own devices
      const mine = c.sim.data.mustFindByName('DEVICE', 'Thermo A-101');
      assert.equal((await post(`/api/rpc/oneway/${mine.id}`, { method: 'm' }, c.customer)).status, 200);
    });

    it('requestUUID becomes the RPC id', async () => {
      const id = '0a1b2c3d-0000-4000-8000-000000000001';
      const r = await call('twoway', { method: 'm', requestUUID: id, persistent: true });
      assert.equal(r.rpcId, id);
      assert.deepEqual((await r.res).body, { rpcId: id });
    });
  });

  describe('persistent RPC', () => {
    it('answers {"rpcId"} at once; QUEUED → SENT → DELIVERED → SUCCESSFUL with the reply; the Rpc JSON', async () => {
      const seen = statuses();
      c.sim.rpc.setDevice(dev.id, { mode: 'answer', reply: { t: 21 }, ackDelayMs: 100, replyDelayMs: 200 });
      const p = await call('twoway', {
        method: 'setGpio',
        params: { pin: 7 },
        persistent: true,
        timeout: 60_000,
        retries: 3,
        additionalInfo: { by: 'node-red' },
      });
      const r = await p.res;
      assert.deepEqual([r.status, r.body], [200, { rpcId: p.rpcId }]);
      assert.equal(status(p.rpcId), 'SENT');
      c.sim.rpc.advance(100);
      assert.equal(status(p.rpcId), 'DELIVERED');
      c.sim.rpc.advance(200);
      assert.deepEqual(
        seen.map((x) => x.status),
        ['QUEUED', 'SENT', 'DELIVERED', 'SUCCESSFUL'],
      );
      const g = await c.tenant.request('GET', `/api/rpc/persistent/${p.rpcId}`);
      assert.equal(g.status, 200);
      const tenantId = c.sim.data.tenantId;
      assert.deepEqual(g.body, {
        id: { entityType: 'RPC', id: p.rpcId },
        createdTime: NOW,
        tenantId: { entityType: 'TENANT', id: tenantId },
        deviceId: { entityType: 'DEVICE', id: dev.id },
        expirationTime: NOW + 60_000,
        request: {
          id: p.rpcId,
          tenantId: { entityType: 'TENANT', id: tenantId },
          deviceId: { entityType: 'DEVICE', id: dev.id },
          oneway: false,
          expirationTime: NOW + 60_000,
          body: { method: 'setGpio', params: '{"pin":7}' },
          persisted: true,
          retries: 3,
        },
        response: { t: 21 },
        status: 'SUCCESSFUL',
        additionalInfo: { by: 'node-red' },
      });
      // the HTTP caller never saw the reply
      assert.deepEqual(r.body, { rpcId: p.rpcId });
    });

    it('one-way ends at DELIVERED (qos 0 skips SENT), never SUCCESSFUL', async () => {
      const seen = statuses();
      c.sim.rpc.setDevice(dev.id, { mode: 'answer', qos: 0 });
      const p = await call('oneway', { method: 'm', persistent: true });
      assert.equal((await p.res).status, 200);
      c.sim.rpc.advance(60_000);
      assert.deepEqual(
        seen.map((x) => x.status),
        ['QUEUED', 'DELIVERED'],
      );
    });

    it('offline: QUEUED, then EXPIRED after the default 10 s window (trap 18); a long expirationTime waits for the device', async () => {
      c.sim.rpc.setDevice(dev.id, { mode: 'offline' });
      const short = await call('oneway', { method: 'm', persistent: true });
      assert.deepEqual((await short.res).body, { rpcId: short.rpcId });
      assert.equal(status(short.rpcId), 'QUEUED');
      const long = await call('twoway', { method: 'later', persistent: true, expirationTime: NOW + 86_400_000 });
      c.sim.rpc.advance(10_000);
      assert.equal(status(short.rpcId), 'EXPIRED');
      assert.equal(status(long.rpcId), 'QUEUED');
      c.sim.rpc.setDevice(dev.id, { mode: 'answer' });
      assert.equal(status(long.rpcId), 'SUCCESSFUL');
      assert.deepEqual(c.sim.rpc.get(long.rpcId)?.response, { method: 'later', params: null });
    });

    it('a silent device: DELIVERED, then EXPIRED', async () => {
      c.sim.rpc.setDevice(dev.id, { mode: 'silent' });
      const p = await call('twoway', { method: 'm', persistent: true, timeout: 20_000 });
      await p.res;
      assert.equal(status(p.rpcId), 'DELIVERED');
      c.sim.rpc.advance(20_000);
      assert.equal(status(p.rpcId), 'EXPIRED');
    });

    it('a device error: FAILED with {"error"}; a non-JSON reply is stored as {"error"} and SUCCESSFUL', async () => {
      c.sim.rpc.setDevice(dev.id, { mode: 'error', text: 'busy' });
      const f = await call('twoway', { method: 'm', persistent: true });
      await f.res;
      assert.deepEqual([status(f.rpcId), c.sim.rpc.get(f.rpcId)?.response], ['FAILED', { error: 'busy' }]);
      c.sim.rpc.setDevice(dev.id, { mode: 'nonJson', text: 'ok' });
      const n = await call('twoway', { method: 'm', persistent: true });
      await n.res;
      assert.deepEqual([status(n.rpcId), c.sim.rpc.get(n.rpcId)?.response], ['SUCCESSFUL', { error: 'ok' }]);
    });

    it('delivery timeouts: TIMEOUT per retry, then FAILED; retries are capped at 5', async () => {
      const seen = statuses();
      c.sim.rpc.setDevice(dev.id, { mode: 'noAck', ackTimeoutMs: 1000 });
      const p = await call('oneway', { method: 'm', persistent: true, retries: 2, timeout: 60_000 });
      await p.res;
      c.sim.rpc.advance(3000);
      assert.deepEqual(
        seen.filter((x) => x.rpcId === p.rpcId).map((x) => x.status),
        ['QUEUED', 'SENT', 'TIMEOUT', 'TIMEOUT', 'FAILED'],
      );
      assert.deepEqual(c.sim.rpc.get(p.rpcId)?.response, {
        error: 'There was a Timeout and all retry attempts have been exhausted. Retry attempts set: 2',
      });
      assert.deepEqual([c.sim.rpc.deliveredCount(dev.id), c.sim.rpc.calls(dev.id)[0].attempts], [1, 3]);
      const capped = await call('oneway', { method: 'm', persistent: true, retries: 9, timeout: 60_000 });
      await capped.res;
      c.sim.rpc.advance(10_000);
      assert.match(String((c.sim.rpc.get(capped.rpcId)?.response as Msg).error), /Retry attempts set: 5$/);
    });

    it('DELETE (tenant admin only): 200 empty, then 404 JSON; the pending copy is dropped', async () => {
      c.sim.rpc.setDevice(dev.id, { mode: 'offline' });
      const p = await call('oneway', { method: 'm', persistent: true, timeout: 60_000 });
      await p.res;
      let r = await c.customer.request('DELETE', `/api/rpc/persistent/${p.rpcId}`);
      assert.deepEqual([r.status, r.body.errorCode], [403, 20]);
      r = await c.tenant.request('DELETE', `/api/rpc/persistent/${p.rpcId}`);
      assert.deepEqual([r.status, r.text], [200, '']);
      r = await c.tenant.request('GET', `/api/rpc/persistent/${p.rpcId}`);
      assert.deepEqual(
        [r.status, r.body.errorCode, r.body.message],
        [404, 32, `Rpc with id [${p.rpcId}] is not found`],
      );
      c.sim.rpc.setDevice(dev.id, { mode: 'answer' });
      assert.equal(c.sim.rpc.deliveredCount(dev.id), 0, 'deleted before delivery: never delivered');
    });

    it('GET permissions: a customer user may read any RPC of the tenant; the sysadmin gets a 403 JSON', async () => {
      const p = await call('oneway', { method: 'm', persistent: true });
      await p.res;
      assert.equal((await c.customer.request('GET', `/api/rpc/persistent/${p.rpcId}`)).status, 200);
      const r = await sysadmin.request('GET', `/api/rpc/persistent/${p.rpcId}`);
      assert.deepEqual([r.status, r.body.errorCode], [403, 20]);
      assert.deepEqual(
        (await c.tenant.request('GET', '/api/rpc/persistent/nope')).body.message,
        'Invalid UUID string: nope',
      );
    });

    it('the list of a device: PageData, rpcStatus filter, DELETED refused with a 500', async () => {
      for (let i = 0; i < 3; i++) await (await call('oneway', { method: `m${i}`, persistent: true })).res;
      c.sim.rpc.setDevice(dev.id, { mode: 'offline' });
      await (
        await call('oneway', { method: 'q', persistent: true })
      ).res;
      const list = (q: string): Promise<HttpResult> =>
        c.tenant.request('GET', `/api/rpc/persistent/device/${dev.id}?${q}`);
      let r = await list('pageSize=2&page=0');
      assert.deepEqual([r.body.totalElements, r.body.totalPages, r.body.hasNext, r.body.data.length], [4, 2, true, 2]);
      r = await list('pageSize=10&page=0&rpcStatus=QUEUED');
      assert.deepEqual(
        r.body.data.map((x: Msg) => x.request.body.method),
        ['q'],
      );
      r = await list('pageSize=10&page=0&sortProperty=createdTime&sortOrder=DESC');
      assert.equal(r.body.data.length, 4);
      r = await list('pageSize=10&page=0&rpcStatus=DELETED');
      assert.deepEqual([r.status, r.body.errorCode], [500, 2]);
      r = await list('page=0');
      assert.deepEqual(
        [r.status, r.body.message],
        [500, "Required request parameter 'pageSize' for method parameter type int is not present"],
      );
    });
  });

  describe('hooks', () => {
    it("dropConnection 'after': the RPC reaches the device once, the client gets an error", async () => {
      c.sim.faults.add({ path: '/api/rpc/', dropConnection: 'after' });
      await assert.rejects(c.tenant.post(`/api/rpc/oneway/${dev.id}`, { method: 'reboot' }));
      assert.equal(c.sim.rpc.deliveredCount(dev.id), 1);
      assert.equal(c.sim.requests.entries().at(-1)?.status, 0);
      c.sim.faults.add({ path: '/api/rpc/', dropConnection: true });
      await assert.rejects(c.tenant.post(`/api/rpc/oneway/${dev.id}`, { method: 'reboot' }));
      assert.equal(c.sim.rpc.deliveredCount(dev.id), 1, 'dropped before handling: not delivered');
    });

    it('closeIdleConnections closes a kept-alive socket', async () => {
      const agent = new http.Agent({ keepAlive: true });
      try {
        const free = once(agent, 'free');
        const socket = await new Promise<import('node:net').Socket>((resolve, reject) => {
          const req = http.get(`${c.url}/__sim/health`, { agent }, (res) => {
            res.resume();
            res.on('end', () => resolve(req.socket as import('node:net').Socket));
          });
          req.on('error', reject);
        });
        const closed = once(socket, 'close');
        await free; // kept alive: back in the agent's pool, idle
        c.sim.closeIdleConnections();
        await closed;
      } finally {
        agent.destroy();
      }
    });

    it('versions: before 3.3 /api/rpc is unknown and v1 ignores persistent', async () => {
      c.sim.setVersion('3.2.2');
      assert.equal((await c.tenant.post(`/api/rpc/oneway/${dev.id}`, { method: 'm' })).status, 404);
      const r = await c.tenant.post(`/api/plugins/rpc/twoway/${dev.id}`, { method: 'm', persistent: true });
      assert.deepEqual(r.body, { method: 'm', params: null });
    });

    it('the /__sim/rpc control API', async () => {
      let r = await c.anon.post('/__sim/rpc/device', { deviceId: dev.id, mode: 'silent' });
      assert.equal(r.status, 200);
      assert.equal(c.sim.rpc.device(dev.id).mode, 'silent');
      const two = await call('twoway', { method: 'm' });
      r = await c.anon.post('/__sim/rpc/advance', { ms: 10_000 });
      assert.equal(r.body.ran >= 1, true);
      assert.equal((await two.res).status, 504);
      r = await c.anon.request('GET', `/__sim/rpc/calls?deviceId=${dev.id}`);
      assert.deepEqual([r.body.delivered, r.body.requests, r.body.calls[0].method], [1, 1, 'm']);
      assert.equal((await c.anon.post('/__sim/rpc/device', { deviceId: dev.id, mode: 'loud' })).status, 400);
      await c.anon.post('/__sim/rpc/reset', {});
      assert.equal(c.sim.rpc.device(dev.id).mode, 'answer');
      const p = await call('oneway', { method: 'm', persistent: true });
      await p.res;
      assert.equal((await c.anon.request('GET', `/__sim/rpc/persistent/${p.rpcId}`)).body.status, 'DELIVERED');
      r = await c.anon.post('/__sim/rpc/timers', { mode: 'real', scale: 0.5 });
      assert.deepEqual(r.body, { ok: true, mode: 'real', scale: 0.5 });
    });
  });
});

describe('simulator: §13 RPC on real timers', function () {
  it('a time scale makes the server windows short; stop() cancels pending timers', async () => {
    const c = await setup({ rpcTimeScale: 0.002 });
    try {
      const dev = c.sim.data.mustFindByName('DEVICE', 'Thermo G-101');
      c.sim.rpc.setDevice(dev.id, { mode: 'silent' });
      const clock = fakeTimers();
      try {
        const taken = once(c.sim.rpc.events, 'request');
        const answered = once(c.sim.rpc.events, 'answered');
        const res = c.tenant.post(`/api/rpc/twoway/${dev.id}`, { method: 'm' });
        await taken;
        let over = false;
        void answered.then(() => (over = true));
        await clock.tickAsync(19);
        assert.equal(over, false, 'still waiting after 19 ms');
        await clock.tickAsync(1);
        assert.equal(over, true, 'the 10 s window took 20 ms');
        assert.equal((await res).status, 504);
      } finally {
        clock.restore();
      }
      void c.tenant.post(`/api/rpc/twoway/${dev.id}`, { method: 'm', timeout: 25_000 }).catch(() => undefined);
      await once(c.sim.rpc.events, 'request');
      assert.ok(c.sim.rpc.pendingTimers() > 0);
    } finally {
      await c.sim.stop();
    }
    assert.equal(c.sim.rpc.pendingTimers(), 0);
  });
});
