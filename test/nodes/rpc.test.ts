/**
 * tb-rpc in the real Node-RED runtime against the simulator's §13 RPC over loopback (its timers scaled: a 10 s
 * wait takes 100 ms): two-way and one-way, the method's sources, no reply (offline, silent, unrouted, the 30 s cap),
 * a reply that is not JSON, refusals before sending (nothing sent), both error shapes, retry safety (a connection
 * lost after the RPC went out: one call and TB_RPC_UNCERTAIN; a 429: retried, one call; a kept-alive socket the
 * server closed: one call), persistent RPC (accepted at once, followed to DELIVERED / SUCCESSFUL / FAILED / EXPIRED,
 * cancel, cancel while following), redeploy while following (nothing polls after it), and bulk.
 */
import assert from 'node:assert/strict';
import type { IncomingMessage } from 'node:http';
import sinon, { type SinonFakeTimers as FakeTimers } from 'sinon';
import tbConnection from '../../src/nodes/tb-connection/index';
import tbRpc from '../../src/nodes/tb-rpc/index';
import tbTelemetry from '../../src/nodes/tb-telemetry/index';
import {
  connectionNode,
  flow,
  flowsOn,
  helper,
  inject,
  key,
  lastStatus,
  statuses,
  TENANT,
  useRuntime,
} from '../support/runtime';
import { fakeTimers, waitFor } from '../support/wait';
import { InFlight, type Rec } from './device-support';

const NODES = [tbConnection, tbRpc, tbTelemetry];
const CUSTOMER_A = { username: 'customer@thingsboard.org', password: 'customer' };
const UNKNOWN = '5f3c9a10-e71b-11f0-9d7e-8b1f2c3d4e5f';

/** The longest wait between two polls of a persistent RPC in these tests (tbConnectionRpcPollMaxMs). */
const POLL_MAX_MS = 80;

/** Is a follower waiting for its next poll: is a timer due within the longest wait between polls? */
function sleeping(clock: FakeTimers): boolean {
  const timers = (clock as unknown as { timers?: Map<number, { callAt: number }> }).timers ?? new Map();
  return [...timers.values()].some((t) => t.callAt - clock.now <= POLL_MAX_MS);
}

/**
 * Runs the followers of persistent RPCs on the fake clock until `done()`: whenever one waits for its next poll, the
 * clock moves to the end of that wait, and nowhere else; the polls themselves go over real I/O. So the polls come at
 * the same times of the clock on any machine, however long each takes.
 */
async function follow(clock: FakeTimers, done: () => boolean): Promise<void> {
  for (;;) {
    await waitFor(() => done() || sleeping(clock), 8000, 'the follower to wait for its next poll, or to end');
    if (done()) return;
    await clock.nextAsync();
  }
}

function rpc(id: string, props: Rec = {}): Rec {
  return { id, type: 'tb-rpc', connection: 'c1', wires: [['out']], ...props };
}

describe('tb-rpc (runtime + simulator)', function () {
  // The real clock (RPC expirations are epoch ms), timers 100 times faster.
  const sim = useRuntime(
    { rpcTimeScale: 0.01 },
    {
      settings: {
        tbConnectionRetryInitialMs: 5,
        tbConnectionRetryMaxMs: 20,
        tbConnectionRpcPollInitialMs: 20,
        tbConnectionRpcPollMaxMs: 80,
        tbConnectionRpcExpiryGraceMs: 300,
      },
      reset: (s) => {
        s.resetRequests();
        s.rpc.resetCounters();
        s.rpc.resetDevices();
      },
      cleanup: (s) => {
        s.faults.clear();
        s.setLatency(0);
        s.rpc.setTimers({ mode: 'real', scale: 0.01 });
      },
    },
  );
  const { load, results } = flowsOn(sim, NODES);
  const dev = (name: string) => sim.data.mustFindByName('DEVICE', name);
  const last = lastStatus;
  const posted = () => sim.countRequests('/api/rpc/', 'POST');

  describe('lightweight', () => {
    it("two-way: the device's reply in msg.payload, msg.rpc = {method, params, status: SUCCESSFUL}; params from msg.payload", async () => {
      await load([rpc('r')]);
      const d = dev('Thermo A-101');
      sim.rpc.setDevice(d.id, { mode: 'answer', reply: (call) => ({ got: call.params, at: 'device' }) });
      const out = await results.ok('r', {
        entity: { entityType: 'DEVICE', id: d.id },
        method: 'setGpio',
        payload: { pin: 7, value: 1 },
        chatId: 3,
      });
      assert.deepEqual(out.payload, { got: { pin: 7, value: 1 }, at: 'device' });
      assert.deepEqual(out.rpc, { method: 'setGpio', params: { pin: 7, value: 1 }, status: 'SUCCESSFUL' });
      assert.equal(out.chatId, 3);
      const calls = sim.rpc.calls(d.id);
      assert.equal(calls.length, 1);
      assert.deepEqual([calls[0].method, calls[0].oneway, calls[0].persistent], ['setGpio', false, false]);
      assert.deepEqual(last('r'), { fill: 'green', shape: 'dot', text: key('rpcReplied') });
    });

    it('one-way: msg.rpc.status SENT, and msg.payload says what was sent; params left out when undefined', async () => {
      await load([rpc('r', { mode: 'oneway', methodType: 'str', method: 'reboot' })]);
      const d = dev('Thermo A-102');
      const out = await results.ok('r', { topic: d.id });
      assert.deepEqual(out.rpc, { method: 'reboot', status: 'SENT' });
      assert.deepEqual(out.payload, { method: 'reboot', status: 'SENT' });
      assert.notEqual(out.payload, out.rpc, 'its own object: setting msg.payload.status leaves msg.rpc as it was');
      assert.equal(sim.rpc.calls(d.id)[0].params, null);
      assert.deepEqual(last('r'), { fill: 'green', shape: 'dot', text: key('rpcSent') });
    });

    it('the method: msg.method, else msg.topic (then the entity comes from msg.entity), a fixed one, or msg.<prop>', async () => {
      await load([
        rpc('r'),
        rpc('fixed', { methodType: 'str', method: 'getState' }),
        rpc('prop', { methodType: 'msg', method: 'cmd.name' }),
      ]);
      const d = dev('Thermo A-103');
      assert.equal(((await results.ok('r', { entity: d.id, topic: 'getTemp' })).payload as Rec).method, 'getTemp');
      assert.equal(
        ((await results.ok('r', { entity: d.id, topic: 'x', method: 'getHum' })).payload as Rec).method,
        'getHum',
      );
      assert.equal(
        ((await results.ok('fixed', { entity: d.id, method: 'ignored' })).payload as Rec).method,
        'getState',
      );
      assert.equal(
        ((await results.ok('prop', { entity: d.id, cmd: { name: 'blink' } })).payload as Rec).method,
        'blink',
      );
    });

    it('no reply in time: offline, silent, or a rule chain without "rpc call request" → TB_RPC_NO_REPLY naming the three causes', async () => {
      await load([rpc('r', { timeout: 5000 })]);
      const cases: Array<[string, 'offline' | 'silent' | 'unrouted']> = [
        ['Thermo B-101', 'offline'],
        ['Thermo B-102', 'silent'],
        ['Thermo B-103', 'unrouted'],
      ];
      for (const [name, mode] of cases) {
        const d = dev(name);
        sim.rpc.setDevice(d.id, { mode });
        const { error, msg } = await results.fails(
          'r',
          { entity: d.id, method: 'ping' },
          'TB_RPC_NO_REPLY',
          /^TbApiError: Check that the device is online.*: DEVICE .* did not answer the RPC "ping" within 5 s \(HTTP 504\)/,
        );
        assert.match(
          error.message as string,
          /online, subscribed to RPC, and that its rule chain has an "rpc call request" node:/,
        );
        // The device, as the next node (a Catch's retry) reads it whatever its type for a bare id.
        assert.deepEqual(msg.entity, { entityType: 'DEVICE', id: d.id });
      }
      assert.deepEqual(last('r'), { fill: 'red', shape: 'ring', text: key('rpcNoReply') });
    });

    it('a reply that is not JSON → TB_RPC_BAD_REPLY; an empty reply is null', async () => {
      await load([rpc('r')]);
      const d = dev('Thermo G-101');
      sim.rpc.setDevice(d.id, { mode: 'nonJson', text: 'ok' });
      await results.fails(
        'r',
        { entity: d.id, method: 'ping' },
        'TB_RPC_BAD_REPLY',
        /not JSON \(HTTP 406\).*"ok" in quotes/,
      );
      assert.deepEqual(last('r'), { fill: 'red', shape: 'ring', text: key('rpcBadReply') });
      sim.rpc.setDevice(d.id, { mode: 'empty' });
      assert.equal((await results.ok('r', { entity: d.id, method: 'ping' })).payload, null);
    });

    it('the server\'s 30 s cap (500 "Request timeout", a JSON error) is no reply too', async () => {
      await load([rpc('r')]);
      sim.faults.add({
        path: '/api/rpc/',
        status: 500,
        body: { status: 500, message: 'Request timeout', errorCode: 2, timestamp: Date.now() },
      });
      await results.fails(
        'r',
        { entity: dev('Thermo G-102').id, method: 'ping' },
        'TB_RPC_NO_REPLY',
        /HTTP 500, errorCode 2: Request timeout/,
      );
    });

    it('refused before sending: not a device, a wait over 29 s, no method, a bad action or entity; nothing sent', async () => {
      await load([rpc('r'), rpc('long', { timeout: '30s' })]);
      const d = dev('Thermo A-101');
      const alpha = sim.data.mustFindByName('ASSET', 'Building Alpha');
      await results.fails(
        'r',
        { entity: { entityType: 'ASSET', id: alpha.id }, method: 'x' },
        'TB_INVALID_INPUT',
        /msg\.entity\.entityType is ASSET: RPC goes to devices only/,
      );
      await results.fails(
        'r',
        { entity: [d.id, { id: alpha.id, entityType: 'ASSET' }], method: 'x' },
        'TB_INVALID_INPUT',
        /msg\.entity\[1\]\.entityType is ASSET/,
      );
      await results.fails(
        'long',
        { entity: d.id, method: 'x' },
        'TB_INVALID_INPUT',
        /timeout is 30 s: make it 29 s or less, or tick Persistent/,
      );
      await results.fails(
        'r',
        { entity: d.id, method: 'x', timeout: 60000 },
        'TB_INVALID_INPUT',
        /msg\.timeout is 1 min/,
      );
      await results.fails(
        'r',
        { entity: d.id },
        'TB_INVALID_INPUT',
        /: Set the method in the node, or send its name in msg\.method/,
      );
      await results.fails('r', { topic: 'x' }, 'TB_INVALID_INPUT', /Set the query node's Output to msg\.entity/);
      await results.fails(
        'r',
        { entity: d.id, method: 'x', action: 'stop' },
        'TB_INVALID_INPUT',
        /msg\.action must be "cancel"/,
      );
      await results.fails('r', { action: 'cancel', rpc: {} }, 'TB_INVALID_INPUT', /msg\.rpc\.id must be the id/);
      await results.fails(
        'r',
        { entity: d.id, method: 'x', mode: 'both' },
        'TB_INVALID_INPUT',
        /msg\.mode must be one of oneway, twoway/,
      );
      assert.equal(sim.countRequests('/api/rpc'), 0, 'nothing was sent');
      assert.equal(sim.rpc.requestCount(), 0);
      assert.deepEqual(last('r'), { fill: 'red', shape: 'ring', text: key('invalidInput') });
    });

    it("bare-string 404 and 403 give the server's words", async () => {
      await load([rpc('r')], CUSTOMER_A);
      await results.fails(
        'r',
        { entity: UNKNOWN, method: 'x' },
        'TB_NOT_FOUND',
        /was not found: the RPC "x" was not sent.*Device with requested id wasn't found!/,
      );
      await results.fails(
        'r',
        { entity: dev('Thermo B-101').id, method: 'x' },
        'TB_PERMISSION',
        /did not allow .* to send the RPC "x".*You don't have permission to perform this operation!/,
      );
      assert.equal(sim.rpc.deliveredCount(), 0);
    });
  });

  describe('an RPC is never sent twice', () => {
    it('the connection lost after the RPC went out: one call reached the device, the error is TB_RPC_UNCERTAIN, no resend', async () => {
      await load([rpc('r')]);
      const d = dev('Thermo A-201');
      sim.faults.add({ path: '/api/rpc/', dropConnection: 'after' });
      const { error } = await results.fails(
        'r',
        { entity: d.id, method: 'openValve' },
        'TB_RPC_UNCERTAIN',
        /may or may not have run it, so it was not sent again/,
      );
      assert.ok(error);
      assert.equal(posted(), 1, 'one request');
      assert.equal(sim.rpc.deliveredCount(d.id), 1, 'the device got it once');
      assert.deepEqual(last('r'), { fill: 'red', shape: 'ring', text: key('rpcUncertain') });
    });

    it('a persistent RPC stored before the connection was lost: uncertain too, stored once', async () => {
      await load([rpc('r', { persistent: true, waitFor: 'accepted' })]);
      const d = dev('Thermo A-202');
      sim.rpc.setDevice(d.id, { mode: 'offline' });
      sim.faults.add({ path: '/api/rpc/', dropConnection: 'after' });
      await results.fails('r', { entity: d.id, method: 'openValve' }, 'TB_RPC_UNCERTAIN');
      assert.equal(sim.rpc.requestCount(d.id), 1);
      assert.equal(posted(), 1);
    });

    it('a 429 means the server did not take it: retried, one call', async () => {
      await load([rpc('r')]);
      const d = dev('Thermo A-203');
      sim.faults.add({ path: '/api/rpc/', status: 429, times: 2 });
      await results.ok('r', { entity: d.id, method: 'ping' });
      assert.equal(posted(), 3);
      assert.equal(sim.rpc.deliveredCount(d.id), 1);
      assert.ok(statuses('r').some((s) => s.fill === 'yellow' && s.text === key('retrying')));
    });

    it('a kept-alive socket the server just closed does not swallow (or repeat) an RPC: it goes out on its own connection', async () => {
      await load([
        rpc('r'),
        { id: 'read', type: 'tb-telemetry', connection: 'c1', operation: 'latest', wires: [['out']] },
      ]);
      const d = dev('Thermo G-103');
      for (let i = 0; i < 3; i++) {
        await results.ok('read', { entity: d.id }); // a kept-alive socket in the pool
        sim.closeIdleConnections(); // the server closes it
        await results.ok('r', { entity: d.id, method: `ping${i}` });
      }
      assert.equal(posted(), 3);
      assert.equal(sim.rpc.deliveredCount(d.id), 3, 'each RPC once');
    });
  });

  describe('persistent', () => {
    it('waitFor accepted: output at once with msg.rpc = {id, method, status: QUEUED}, kept for an offline device for a day by default', async () => {
      await load([rpc('r', { persistent: true, waitFor: 'accepted' })]);
      const d = dev('Spare Sensor');
      const clock = sinon.useFakeTimers({ now: Date.now(), toFake: ['Date'] }); // the node's now stands still
      let out: Rec;
      try {
        out = await results.ok('r', { entity: d.id, method: 'setConfig', payload: { a: 1 } });
      } finally {
        clock.restore();
      }
      const r = out.rpc as Rec;
      assert.equal(r.status, 'QUEUED');
      assert.equal(r.method, 'setConfig');
      const stored = sim.rpc.get(r.id as string)!;
      assert.equal(stored.status, 'QUEUED');
      assert.equal(stored.expirationTime, clock.now + 86400000, 'a one-day expiration');
      assert.deepEqual(last('r'), { fill: 'green', shape: 'ring', text: key('rpcQueued') });
    });

    it("retries and additionalInfo are sent as set; the node's settings win, those left empty read the message", async () => {
      await load([
        rpc('r', { persistent: true, waitFor: 'accepted', retries: '2', additionalInfo: '{"by":"node-red"}' }),
        rpc('e', { persistent: true, waitFor: 'accepted', additionalInfo: '' }),
      ]);
      const d = dev('Spare Sensor');
      const clock = sinon.useFakeTimers({ now: Date.now(), toFake: ['Date'] }); // the node's now stands still
      let out: Rec;
      try {
        out = await results.ok('r', {
          entity: d.id,
          method: 'm',
          additionalInfo: { by: 'flow' },
          expiration: '1h',
        });
      } finally {
        clock.restore();
      }
      const stored = sim.rpc.get((out.rpc as Rec).id as string)!;
      assert.deepEqual(stored.additionalInfo, { by: 'node-red' }, "the node's");
      const fromMsg = await results.ok('e', { entity: d.id, method: 'm', additionalInfo: { by: 'flow' } });
      assert.deepEqual(
        sim.rpc.get((fromMsg.rpc as Rec).id as string)!.additionalInfo,
        { by: 'flow' },
        "left empty: the message's",
      );
      assert.equal((stored.request as Rec).retries, 2);
      assert.equal(stored.expirationTime, clock.now + 3600000, 'msg.expiration: an hour from the message');
    });

    it('followed to SUCCESSFUL: the state in the status, the reply in msg.payload', async () => {
      await load([rpc('r', { persistent: true })]);
      const d = dev('Thermo C-1');
      sim.rpc.setDevice(d.id, { mode: 'answer', reply: { done: true }, ackDelayMs: 3000, replyDelayMs: 3000 });
      const out = await results.ok('r', { entity: d.id, method: 'calibrate' });
      assert.deepEqual(out.payload, { done: true });
      const r = out.rpc as Rec;
      assert.deepEqual([r.method, r.status], ['calibrate', 'SUCCESSFUL']);
      assert.equal(sim.rpc.get(r.id as string)!.status, 'SUCCESSFUL');
      assert.ok(
        statuses('r').some((s) => s.fill === 'blue' && s.text === key('rpcState')),
        'the state while following',
      );
      assert.ok(sim.countRequests('/api/rpc/persistent/', 'GET') >= 2);
      assert.deepEqual(last('r'), { fill: 'green', shape: 'dot', text: key('rpcReplied') });
    });

    it('one-way: followed to DELIVERED', async () => {
      await load([rpc('r', { persistent: true, mode: 'oneway' })]);
      const d = dev('Thermo Lab');
      sim.rpc.setDevice(d.id, { mode: 'answer', ackDelayMs: 3000 });
      const out = await results.ok('r', { entity: d.id, method: 'reboot' });
      assert.deepEqual([(out.rpc as Rec).status, out.payload], ['DELIVERED', out.rpc]);
      assert.deepEqual(last('r'), { fill: 'green', shape: 'dot', text: key('rpcDelivered') });
    });

    it("FAILED → TB_RPC_FAILED with msg.rpc and the device's reason", async () => {
      await load([rpc('r', { persistent: true })]);
      const d = dev('Meter A-100');
      sim.rpc.setDevice(d.id, { mode: 'error', text: 'valve stuck', replyDelayMs: 2000 });
      const { msg } = await results.fails(
        'r',
        { entity: d.id, method: 'openValve' },
        'TB_RPC_FAILED',
        /ended FAILED: valve stuck/,
      );
      const r = msg.rpc as Rec;
      assert.deepEqual([r.status, r.method, (r.response as Rec).error], ['FAILED', 'openValve', 'valve stuck']);
      assert.deepEqual(last('r'), { fill: 'red', shape: 'ring', text: key('rpcFailed') });
    });

    it('a delivery that is never acknowledged: TIMEOUT per retry, then FAILED', async () => {
      await load([rpc('r', { persistent: true, retries: '1' })]);
      const d = dev('Meter A-200');
      sim.rpc.setDevice(d.id, { mode: 'noAck', ackTimeoutMs: 2000 });
      await results.fails(
        'r',
        { entity: d.id, method: 'm' },
        'TB_RPC_FAILED',
        /all retry attempts have been exhausted/,
      );
    });

    it('EXPIRED → TB_RPC_EXPIRED with msg.rpc', async () => {
      await load([rpc('r', { persistent: true, expiration: '3s' })]);
      const d = dev('Spare Sensor');
      const { msg } = await results.fails(
        'r',
        { entity: d.id, method: 'm' },
        'TB_RPC_EXPIRED',
        /ended EXPIRED: it did not complete before its expiration/,
      );
      assert.equal((msg.rpc as Rec).status, 'EXPIRED');
      assert.equal(sim.rpc.get((msg.rpc as Rec).id as string)!.status, 'EXPIRED');
      assert.deepEqual(last('r'), { fill: 'red', shape: 'ring', text: key('rpcExpired') });
    });

    it('never polled past its expiration: still QUEUED then (the server never marked it) counts as expired', async () => {
      await load([rpc('r', { persistent: true, expiration: '1s' })]);
      sim.rpc.setTimers({ mode: 'manual' }); // nothing happens on the server's side
      const d = dev('Spare Sensor');
      const clock = fakeTimers();
      try {
        const start = clock.now;
        // When each poll went out, on the follower's clock (it moves only between polls, see follow()).
        const pollTimes: number[] = [];
        const onRequest = (req: IncomingMessage) => {
          if (req.method === 'GET' && req.url?.startsWith('/api/rpc/persistent/')) pollTimes.push(clock.now - start);
        };
        sim.httpServer!.on('request', onRequest);
        let ended = false;
        const failed = results.fails(
          'r',
          { entity: d.id, method: 'm' },
          'TB_RPC_EXPIRED',
          /was still QUEUED at its expiration/,
        );
        void failed.then(
          () => (ended = true),
          () => (ended = true),
        );
        await follow(clock, () => ended);
        await failed;
        sim.httpServer!.off('request', onRequest);
        // Its expiration (1 s) plus the grace (300 ms): given up then, not before, not after.
        assert.equal(clock.now - start, 1300);
        assert.ok(pollTimes.length >= 2 && Math.max(...pollTimes) <= 1300, `polls at ${pollTimes.join(', ')} ms`);
        assert.equal(clock.countTimers(), 0, 'no poll after: nothing left scheduled');
      } finally {
        clock.restore();
      }
    });

    it('cancel: msg.action "cancel" with msg.rpc.id deletes it; a customer user may not; an unknown id is not found', async () => {
      await load([rpc('r', { persistent: true, waitFor: 'accepted' })]);
      const d = dev('Spare Sensor');
      const queued = await results.ok('r', { entity: d.id, method: 'm' });
      const id = (queued.rpc as Rec).id as string;
      const out = await results.ok('r', { action: 'cancel', rpc: queued.rpc });
      assert.deepEqual(out.rpc, { id, status: 'DELETED' });
      assert.equal(sim.rpc.get(id), undefined);
      assert.deepEqual(last('r'), { fill: 'green', shape: 'dot', text: key('rpcCancelled') });
      await results.fails('r', { action: 'cancel', rpc: { id } }, 'TB_NOT_FOUND', /was not found.*Rpc with id \[/);
    });

    it("cancel by a customer user: refused (tenant administrators only), with the server's JSON words", async () => {
      await load([rpc('r', { persistent: true, waitFor: 'accepted' })], CUSTOMER_A);
      const d = dev('Thermo A-101');
      sim.rpc.setDevice(d.id, { mode: 'offline' });
      const queued = await results.ok('r', { entity: d.id, method: 'm' });
      await results.fails(
        'r',
        { action: 'cancel', rpc: queued.rpc },
        'TB_PERMISSION',
        /only a tenant administrator may delete an RPC.*HTTP 403, errorCode 20/,
      );
    });

    it('cancel while following: the cancel is confirmed, and the followed message ends at once as deleted', async () => {
      await load([rpc('r', { persistent: true })]);
      sim.setLatency(0);
      const d = dev('Spare Sensor');
      const idP = new Promise<string>((resolve) =>
        sim.rpc.events.once('request', (ev: { rpcId: string }) => resolve(ev.rpcId)),
      );
      inject('r', { entity: d.id, method: 'm', tag: 'followed' });
      const id = await idP;
      await waitFor(() => statuses('r').some((s) => s.text === key('rpcState')));
      inject('r', { action: 'cancel', rpc: { id }, tag: 'cancel' });
      const first = await results.next();
      assert.deepEqual(first.out?.rpc, { id, status: 'DELETED' });
      const second = await results.next(2000);
      assert.ok(second.error, 'the followed message ends in error');
      assert.match(second.error!.message as string, /was deleted \(cancelled\) before it reached a final state/);
      assert.deepEqual(second.msg!.rpc, { id, method: 'm', status: 'DELETED' });
      assert.equal(second.msg!.tag, 'followed');
    });

    it('redeploy while following: the followed RPC is dropped cleanly, nothing polls after close', async () => {
      await load([rpc('r', { persistent: true })]);
      sim.rpc.setTimers({ mode: 'manual' }); // nothing happens on the server's side: the clock's timers are the node's
      const d = dev('Spare Sensor');
      const polls = () => sim.countRequests('/api/rpc/persistent/', 'GET');
      const clock = fakeTimers();
      try {
        inject('r', { entity: d.id, method: 'm' });
        // two polls, and the follower waiting for its third
        await follow(clock, () => polls() >= 2 && sleeping(clock));
        // redeploy without the node ("modified nodes"): it closes
        await helper.setFlows(flow(connectionNode(sim.url)) as never, 'nodes', { c1: TENANT } as never);
        assert.equal(clock.countTimers(), 0, 'no poll after close: its wait ended with it, nothing left scheduled');
      } finally {
        clock.restore();
      }
      assert.equal(polls(), 2);
      assert.equal(results.pending, 0, 'no output, no error');
      assert.equal(posted(), 1);
    });
  });

  describe('bulk', () => {
    it('one RPC per device, results in input order, at most 4 at once; an offline device is a partial failure', async () => {
      await load([rpc('r', { timeout: 5000 })]);
      const meters = sim.data.devices().filter((d) => d.type === 'meter');
      sim.rpc.setDevice(meters[2].id, { mode: 'offline' });
      for (const m of meters) if (m !== meters[2]) sim.rpc.setDevice(m.id, { mode: 'answer', replyDelayMs: 2000 });
      const flight = new InFlight(sim, '/api/rpc/');
      let out;
      try {
        out = await results.ok('r', { entity: meters.map((m) => m.id), method: 'read', payload: { reg: 1 } });
      } finally {
        flight.stop();
      }
      assert.ok(flight.peak <= 4 && flight.peak >= 2, `peak ${flight.peak}`);
      const res = out.payload as Array<{ entity: Rec; ok: boolean; payload?: Rec; rpc?: Rec; error?: Rec }>;
      assert.deepEqual(
        res.map((r) => r.entity.id),
        meters.map((m) => m.id),
      );
      assert.deepEqual(
        res.map((r) => r.ok),
        meters.map((_, i) => i !== 2),
      );
      assert.equal(res[2].error!.code, 'TB_RPC_NO_REPLY');
      assert.deepEqual(res[0].rpc, { method: 'read', params: { reg: 1 }, status: 'SUCCESSFUL' });
      assert.deepEqual(res[0].payload, { method: 'read', params: { reg: 1 } });
      assert.equal(out.failed, 1);
      assert.deepEqual(last('r'), { fill: 'yellow', shape: 'dot', text: key('bulkPartial') });
    });

    it('persistent, followed: every RPC is sent first, then followed; each ends in its own state', async () => {
      await load([rpc('r', { persistent: true, concurrency: 2 })]);
      const list = ['Thermo A-101', 'Thermo A-102', 'Thermo A-103', 'Thermo A-201'].map(dev);
      for (const d of list)
        sim.rpc.setDevice(d.id, { mode: 'answer', reply: { n: d.name }, ackDelayMs: 2000, replyDelayMs: 2000 });
      sim.rpc.setDevice(list[3].id, { mode: 'error', text: 'no', replyDelayMs: 2000 });
      const flight = new InFlight(sim, '/api/rpc/');
      let out;
      try {
        out = await results.ok('r', { entity: list.map((d) => d.id), method: 'm' });
      } finally {
        flight.stop();
      }
      assert.ok(flight.peak <= 2, `peak ${flight.peak}`);
      const res = out.payload as Array<{ ok: boolean; payload?: Rec; rpc?: Rec; error?: Rec }>;
      assert.deepEqual(
        res.map((r) => r.ok),
        [true, true, true, false],
      );
      assert.deepEqual(
        res.slice(0, 3).map((r) => r.payload),
        list.slice(0, 3).map((d) => ({ n: d.name })),
      );
      assert.equal(res[3].error!.code, 'TB_RPC_FAILED');
      assert.equal(res[3].rpc!.status, 'FAILED', 'msg.rpc of a failure is in its result');
      assert.equal(posted(), 4);
    });

    it('persistent to 20 devices, followed: every one ends, and no listener-leak warning', async () => {
      const warnings: string[] = [];
      const onWarning = (w: Error) => warnings.push(`${w.name}: ${w.message}`);
      process.on('warning', onWarning);
      try {
        await load([rpc('r', { persistent: true, concurrency: 20 })]);
        const list = sim.data
          .devices()
          .filter((e) => e.type === 'thermostat')
          .slice(0, 20);
        assert.equal(list.length, 20);
        for (const d of list)
          sim.rpc.setDevice(d.id, { mode: 'answer', reply: { ok: 1 }, ackDelayMs: 1500, replyDelayMs: 1500 });
        const out = await results.ok('r', { entity: list.map((d) => d.id), method: 'm' });
        assert.equal((out.payload as Array<{ ok: boolean }>).filter((r) => r.ok).length, 20);
        await new Promise((r) => setImmediate(r)); // process warnings are emitted on the next tick
        assert.deepEqual(
          warnings.filter((w) => /MaxListeners/.test(w)),
          [],
        );
      } finally {
        process.off('warning', onWarning);
      }
    });
  });
});
