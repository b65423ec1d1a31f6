import assert from 'node:assert/strict';
import { once } from 'node:events';
import { BASE_TIME, TENANT_API_KEY, dbl } from '../../sim/index';
import { nameQuery, TestWs, tsKey, wsSetup, type WsCtx } from '../../sim/ws-client';
import { fakeTimers, waitFor } from '../support/wait';

const COUNT_DEVICES = {
  type: 'ENTITY_COUNT',
  cmdId: 2,
  query: { entityFilter: { type: 'entityType', entityType: 'DEVICE' } },
};

describe('simulator ws: handshake and session', function () {
  let c: WsCtx;
  afterEach(async () => {
    await c.stop();
  });

  describe('authCmd', () => {
    beforeEach(async () => {
      c = await wsSetup();
    });

    it('token auth with cmds riding along; no acknowledgement for the auth itself', async () => {
      const ws = await c.connect([COUNT_DEVICES]);
      const m = await ws.next();
      assert.deepEqual(m, { cmdId: 2, errorCode: 0, errorMsg: null, count: 28, cmdUpdateType: 'COUNT_DATA' });
      const only = await c.connect();
      assert.deepEqual(await only.probe(), [], 'an authCmd alone produces no reply');
      assert.equal(only.messages.length, 1, 'only the probe reply');
    });

    it('bad tokens close 1007 with the reason; no message is sent first', async () => {
      const bad = await TestWs.auth(c.url, 'not-a-jwt');
      assert.deepEqual(await bad.closed, { code: 1007, reason: 'Invalid JWT token: ' });
      assert.equal(bad.messages.length, 0);
      const t = c.token();
      const forged = await TestWs.auth(c.url, `${t.slice(0, -4)}AAAA`);
      assert.equal((await forged.closed).code, 1007);
      const empty = await TestWs.auth(c.url, '');
      assert.deepEqual(await empty.closed, { code: 1007, reason: 'Token is invalid' });
      const token = c.token();
      c.clock.now += 9001_000; // past the 9000 s lifetime
      const expired = await TestWs.auth(c.url, token);
      assert.deepEqual(await expired.closed, { code: 1007, reason: 'JWT Token expired' });
    });

    it('first message without authCmd: 1008 "Auth cmd is missing"; unparseable first message: 1007', async () => {
      const a = await TestWs.open(c.url);
      a.cmds(COUNT_DEVICES);
      assert.deepEqual(await a.closed, { code: 1008, reason: 'Auth cmd is missing' });
      const b = await TestWs.open(c.url);
      b.send('{"authCmd":');
      assert.equal((await b.closed).code, 1007);
      const d = await TestWs.open(c.url);
      d.send({ authCmd: { cmdId: 0, token: c.token() }, cmds: [{ ...COUNT_DEVICES, bogus: true }] });
      const closed = await d.closed;
      assert.equal(closed.code, 1007, 'an unknown field before auth closes the session');
      assert.match(closed.reason, /^Unrecognized field "bogus"/);
    });

    it('the session does not expire with the JWT; a later authCmd is ignored', async () => {
      c.sim.setTokenLifetime(60);
      const ws = await c.connect([
        {
          type: 'ENTITY_DATA',
          cmdId: 1,
          query: nameQuery('Thermo A-101'),
          latestCmd: { keys: [tsKey('temperature')] },
        },
      ]);
      await ws.forCmd(1);
      c.clock.now += 3600_000;
      ws.send({ authCmd: { cmdId: 1, token: 'garbage' } });
      c.sim.data.setTelemetry(c.sim.data.mustFindByName('DEVICE', 'Thermo A-101'), { temperature: 30 }, c.clock.now);
      const u = await ws.forCmd(1);
      assert.equal(u.update[0].latest.TIME_SERIES.temperature.value, '30');
      assert.equal(ws.isClosed, false);
    });

    it('auth timeout closes 1008 without a reason', async () => {
      await c.stop();
      c = await wsSetup({ wsAuthTimeoutMs: 30 });
      const ws = await TestWs.open(c.url);
      assert.deepEqual(await ws.closed, { code: 1008, reason: '' });
    });
  });

  describe('API keys and ?token=', () => {
    it('4.3.x: authCmd.apiKey is an unknown field (1007); 4.4: it authenticates', async () => {
      c = await wsSetup();
      const old = await TestWs.open(c.url);
      old.send({ authCmd: { cmdId: 0, apiKey: TENANT_API_KEY } });
      const closed = await old.closed;
      assert.equal(closed.code, 1007);
      assert.match(closed.reason, /Unrecognized field "apiKey"/);
      c.sim.setVersion('4.4.0');
      const ok = await TestWs.open(c.url);
      ok.send({ authCmd: { cmdId: 0, apiKey: TENANT_API_KEY }, cmds: [COUNT_DEVICES] });
      assert.equal((await ok.forCmd(2)).count, 28);
      const bad = await TestWs.open(c.url);
      bad.send({ authCmd: { cmdId: 0, apiKey: 'tb_nope' } });
      assert.deepEqual(await bad.closed, { code: 1007, reason: 'User not found for the provided API key' });
      ok.close();
    });

    it('wsApiKeyAuth overrides the version gate', async () => {
      c = await wsSetup({ wsApiKeyAuth: true });
      const ws = await TestWs.open(c.url);
      ws.send({ authCmd: { cmdId: 0, apiKey: TENANT_API_KEY }, cmds: [COUNT_DEVICES] });
      assert.equal((await ws.forCmd(2)).cmdUpdateType, 'COUNT_DATA');
      ws.close();
    });

    it('?token= authenticates at connect time; an expired one closes 1011', async () => {
      c = await wsSetup();
      const ws = await TestWs.open(c.url, `/api/ws?token=${c.token()}`);
      ws.cmds(COUNT_DEVICES);
      assert.equal((await ws.forCmd(2)).count, 28);
      const token = c.token();
      c.clock.now += 9001_000;
      const late = await TestWs.open(c.url, `/api/ws?token=${token}`);
      assert.deepEqual(await late.closed, { code: 1011, reason: 'JWT Token expired' });
      ws.close();
    });
  });

  describe('paths, frames and limits', () => {
    it('unknown /api/ws/<type> closes 1007; other paths are not upgraded', async () => {
      c = await wsSetup();
      const ws = await TestWs.open(c.url, '/api/ws/whatever');
      assert.deepEqual(await ws.closed, { code: 1007, reason: 'Unknown session type' });
      await assert.rejects(TestWs.open(c.url, '/api/other'), /HTTP 404/);
    });

    it('a frame over 32768 bytes closes 1009', async () => {
      c = await wsSetup();
      const ws = await c.connect();
      ws.send({
        cmds: [
          {
            ...COUNT_DEVICES,
            query: { entityFilter: { type: 'entityType', entityType: 'DEVICE' }, pad: 'x'.repeat(33_000) },
          },
        ],
      });
      assert.equal((await ws.closed).code, 1009);
    });

    it('binary frames close 1003', async () => {
      c = await wsSetup();
      const ws = await c.connect();
      ws.ws.send(Buffer.from('{}'), { binary: true });
      assert.equal((await ws.closed).code, 1003);
    });

    it('session limit: the session over the limit closes 1008', async () => {
      c = await wsSetup();
      c.sim.ws.sessionLimit(1);
      const first = await c.connect();
      await first.probe();
      const second = await c.connect([COUNT_DEVICES]);
      assert.deepEqual(await second.closed, { code: 1008, reason: 'Max tenant sessions limit reached!' });
      assert.equal(second.messages.length, 0, 'its commands did not run');
      assert.deepEqual(await first.probe(), []);
      c.sim.ws.sessionLimit(null);
      const third = await c.connect([COUNT_DEVICES]);
      assert.equal((await third.forCmd(2)).count, 28);
    });

    it('latestCmd for a cmdId that never had a query closes the session with 1012', async () => {
      c = await wsSetup();
      const ws = await c.connect([{ type: 'ENTITY_DATA', cmdId: 7, latestCmd: { keys: [tsKey('temperature')] } }]);
      assert.deepEqual(await ws.closed, { code: 1012, reason: '' });
    });

    it('an incoming message over wsMaxMessageBytes (32 KiB) closes 1009; one just under it is handled', async () => {
      c = await wsSetup();
      const pad = (n: number) => ({
        type: 'ENTITY_COUNT',
        cmdId: 1,
        query: { entityFilter: { type: 'entityList', entityType: 'DEVICE', entityList: ['x'.repeat(n)] } },
      });
      const frame = (n: number) => JSON.stringify({ authCmd: { cmdId: 0, token: c.token() }, cmds: [pad(n)] });
      const base = frame(0).length;
      const fits = await TestWs.open(c.url, '/api/ws');
      c.clients.push(fits);
      fits.ws.send(frame(32768 - base));
      const answer = await fits.forCmd(1);
      assert.ok(answer.cmdId === 1 || answer.subscriptionId === 1, 'a 32768-byte message is handled');
      assert.equal(fits.isClosed, false);
      const big = await TestWs.open(c.url, '/api/ws');
      c.clients.push(big);
      big.ws.send(frame(32769 - base));
      assert.equal((await big.closed).code, 1009);
    });

    it('closeOnCommand: a matching command closes its session with the code; other sessions and commands are untouched', async () => {
      c = await wsSetup();
      const fault = c.sim.ws.closeOnCommand({ match: (cmd) => cmd.cmdId === 9, code: 1011, reason: 'boom' });
      const good = await c.connect([COUNT_DEVICES]);
      assert.equal((await good.forCmd(2)).count, 28);
      const bad = await c.connect([{ ...COUNT_DEVICES, cmdId: 9 }]);
      assert.deepEqual(await bad.closed, { code: 1011, reason: 'boom' });
      assert.equal(fault.hits, 1);
      fault.remove();
      const again = await c.connect([{ ...COUNT_DEVICES, cmdId: 9 }]);
      assert.equal((await again.forCmd(9)).count, 28);
      assert.equal(good.isClosed, false);
    });

    it('no pong for wsPongTimeoutMs closes 4500; a client that answers pings stays', async () => {
      c = await wsSetup({ wsPingIntervalMs: 25, wsPongTimeoutMs: 200 });
      const alive = await c.connect();
      const deaf = await TestWs.open(c.url, '/api/ws', { autoPong: false });
      c.clients.push(deaf);
      deaf.send({ authCmd: { cmdId: 0, token: c.token() } });
      await once(alive.ws, 'ping');
      assert.deepEqual(await deaf.closed, { code: 4500, reason: '' });
      await once(alive.ws, 'ping');
      assert.equal(alive.isClosed, false);
      assert.deepEqual(await alive.probe(), []);
    });

    it('outbound queue over wsMaxQueue closes 1008 "Max pending updates limit reached!"', async () => {
      c = await wsSetup({ wsMaxQueue: 5 });
      const ws = await c.connect([
        {
          type: 'ENTITY_DATA',
          cmdId: 1,
          query: nameQuery('Thermo A-101'),
          latestCmd: { keys: [tsKey('temperature')] },
        },
      ]);
      await ws.forCmd(1);
      c.sim.ws.delayMs(60_000); // nothing leaves: the messages stay pending
      const dev = c.sim.data.mustFindByName('DEVICE', 'Thermo A-101');
      for (let i = 1; i <= 6; i++) c.sim.data.setTelemetry(dev, { temperature: i }, BASE_TIME + i * 1000);
      assert.deepEqual(await ws.closed, { code: 1008, reason: 'Max pending updates limit reached!' });
    });

    it('update rate limit: one "Too many updates!" notice, then drops; the session stays', async () => {
      c = await wsSetup({ wsUpdatesRateLimit: '3:3600' });
      const ws = await c.connect([
        {
          type: 'ENTITY_DATA',
          cmdId: 1,
          query: nameQuery('Thermo A-101'),
          latestCmd: { keys: [tsKey('temperature')] },
        },
      ]);
      await ws.forCmd(1);
      const dev = c.sim.data.mustFindByName('DEVICE', 'Thermo A-101');
      for (let i = 1; i <= 4; i++) c.sim.data.setTelemetry(dev, { temperature: dbl(i) }, BASE_TIME + i * 1000);
      const notice = await ws.next((m) => m.errorCode === 34);
      assert.deepEqual(notice, { subscriptionId: 1, errorCode: 34, errorMsg: 'Too many updates!' });
      assert.deepEqual(
        ws.messages.slice(1, 3).map((m) => m.update[0].latest.TIME_SERIES.temperature.value),
        ['1.0', '2.0'],
      );
      const sent = c.sim.ws.messagesSent();
      c.sim.data.setTelemetry(dev, { temperature: 99 }, BASE_TIME + 99_000);
      assert.equal(c.sim.ws.messagesSent(), sent, 'dropped, and no second notice');
      assert.equal(ws.isClosed, false);
    });
  });

  describe('test hooks', () => {
    beforeEach(async () => {
      c = await wsSetup();
    });

    it('connections, dropAll (abrupt 1006 by default, or a code)', async () => {
      const a = await c.connect();
      const b = await c.connect();
      await a.probe();
      await b.probe();
      const pending = await TestWs.open(c.url);
      c.clients.push(pending);
      assert.deepEqual(c.sim.ws.connections(), { open: 3, authenticated: 2, total: 3 });
      assert.equal(c.sim.ws.dropAll(), 3);
      assert.equal((await a.closed).code, 1006);
      assert.equal((await pending.closed).code, 1006);
      const d = await c.connect();
      await d.probe();
      c.sim.ws.dropAll(1001, 'bye');
      assert.deepEqual(await d.closed, { code: 1001, reason: 'bye' });
      assert.equal(c.sim.ws.connections().total, 4);
      assert.equal(c.sim.ws.connections().open, 0);
    });

    it('restart on the same port keeps the data; clients reconnect', async () => {
      const ws = await c.connect();
      await ws.probe();
      const dev = c.sim.data.mustFindByName('DEVICE', 'Thermo A-101');
      c.sim.data.setTelemetry(dev, { temperature: 42 }, BASE_TIME + 5000);
      const url = c.sim.url;
      await c.sim.stop();
      assert.equal((await ws.closed).code, 1006);
      assert.equal(await c.sim.start(), url);
      const again = await c.connect([{ type: 'ENTITY_DATA', cmdId: 1, query: nameQuery('Thermo A-101') }]);
      const m = await again.forCmd(1);
      assert.deepEqual(m.data.data[0].latest.TIME_SERIES.temperature, { ts: BASE_TIME + 5000, value: '42' });
    });

    it('refuseAuth closes the next authentications with 1007 (1011 for ?token=)', async () => {
      c.sim.ws.refuseAuth(true);
      const a = await c.connect();
      assert.deepEqual(await a.closed, { code: 1007, reason: 'Token is outdated' });
      const b = await TestWs.open(c.url, `/api/ws?token=${c.token()}`);
      assert.deepEqual(await b.closed, { code: 1011, reason: 'Token is outdated' });
      c.sim.ws.refuseAuth(false);
      const ok = await c.connect([COUNT_DEVICES]);
      assert.equal((await ok.forCmd(2)).count, 28);
    });

    it('pauseFrames: no pongs, nothing sent, commands wait; resume delivers everything in order', async () => {
      const ws = await c.connect([
        {
          type: 'ENTITY_DATA',
          cmdId: 1,
          query: nameQuery('Thermo A-101'),
          latestCmd: { keys: [tsKey('temperature')] },
        },
      ]);
      await ws.forCmd(1);
      let pongs = 0;
      ws.ws.on('pong', () => pongs++);
      c.sim.ws.pauseFrames(true);
      const held = once(c.sim.ws.events, 'held');
      ws.ws.ping();
      ws.cmds(COUNT_DEVICES);
      await held; // the ping came before the command: it was not answered
      c.sim.data.setTelemetry(
        c.sim.data.mustFindByName('DEVICE', 'Thermo A-101'),
        { temperature: 31 },
        BASE_TIME + 1000,
      );
      const before = c.sim.ws.messagesSent();
      assert.equal(c.sim.ws.sessionList()[0].pending, 1);
      c.sim.ws.pauseFrames(false);
      const update = await ws.forCmd(1);
      assert.equal(update.update[0].latest.TIME_SERIES.temperature.value, '31');
      assert.equal((await ws.forCmd(2)).count, 28);
      assert.equal(pongs, 0, 'the ping sent while paused was never answered');
      assert.equal(c.sim.ws.messagesSent(), before + 2);
      ws.ws.ping();
      await once(ws.ws, 'pong');
    });

    it('delayMs delays every message; sendRaw reaches every session', async () => {
      const ws = await c.connect();
      await ws.probe();
      const clock = fakeTimers(); // the session holds its messages on the fake clock
      try {
        c.sim.ws.delayMs(80);
        const sent = c.sim.ws.messagesSent();
        const answer = ws.forCmd(2);
        ws.cmds(COUNT_DEVICES);
        await waitFor(() => c.sim.ws.sessionList()[0].pending === 1, 5000, 'the answer held');
        await clock.tickAsync(79);
        assert.equal(c.sim.ws.messagesSent(), sent, 'not sent after 79 ms');
        await clock.tickAsync(1);
        assert.equal(c.sim.ws.messagesSent(), sent + 1, 'sent after 80 ms');
        await answer;
      } finally {
        clock.restore();
      }
      c.sim.ws.delayMs(0);
      const other = await c.connect();
      await other.probe();
      assert.equal(c.sim.ws.sendRaw('{"not":"a ThingsBoard message"'), 2);
      assert.deepEqual(await other.next(), { $raw: '{"not":"a ThingsBoard message"' });
      assert.deepEqual(await ws.next(), { $raw: '{"not":"a ThingsBoard message"' });
    });

    it('commandsReceived and messagesSent', async () => {
      c.sim.ws.resetStats();
      const ws = await c.connect([COUNT_DEVICES, { type: 'ALARM_STATUS_UNSUBSCRIBE', cmdId: 2 }]);
      await ws.forCmd(2);
      await ws.probe();
      const log = c.sim.ws.commandsReceived();
      assert.deepEqual(
        log.map((e) => [e.type, e.cmdId]),
        [
          ['ENTITY_COUNT', 2],
          ['ALARM_STATUS_UNSUBSCRIBE', 2],
          ['ENTITY_DATA', 900001],
        ],
      );
      assert.deepEqual(log[0].cmd, COUNT_DEVICES);
      assert.equal(c.sim.ws.messagesSent(), 2);
      assert.equal(c.sim.ws.commandsReceived(1).length, 1);
    });

    it('the /__sim/ws HTTP hooks', async () => {
      const ws = await c.connect();
      await ws.probe();
      const get = async (p: string): Promise<unknown> => (await fetch(c.url + p)).json();
      const post = async (p: string, body: unknown): Promise<{ status: number; body: unknown }> => {
        const r = await fetch(c.url + p, {
          method: 'POST',
          body: JSON.stringify(body),
          headers: { 'Content-Type': 'application/json' },
        });
        return { status: r.status, body: await r.json() };
      };
      assert.deepEqual(await get('/__sim/ws/connections'), { open: 1, authenticated: 1, total: 1 });
      assert.equal(((await get('/__sim/ws/commands')) as unknown[]).length, 1);
      assert.deepEqual(await post('/__sim/ws/raw', { text: 'hello' }), { status: 200, body: { sessions: 1 } });
      assert.deepEqual(await ws.next(), { $raw: 'hello' });
      assert.equal((await post('/__sim/ws/options', { dynamicRefreshMs: 1234 })).status, 200);
      assert.equal(c.sim.ws.opts.dynamicRefreshMs, 1234);
      assert.equal((await post('/__sim/ws/raw', {})).status, 400);
      assert.equal((await fetch(`${c.url}/__sim/ws/nope`)).status, 404);
      assert.deepEqual(await post('/__sim/ws/drop', { code: 4000 }), { status: 200, body: { closed: 1 } });
      assert.equal((await ws.closed).code, 4000);
    });
  });
});
