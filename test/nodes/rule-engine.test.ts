/**
 * tb-rule-engine in the real Node-RED runtime against the simulator's rule engine over loopback (its timers scaled: a
 * 10 s wait takes 100 ms): the connection's user (the trailing slash of its path; its id for a queue or a timeout),
 * an entity (from the message, picked by name, a message property, a bare id and its type), the data (msg.payload or
 * fixed), queue and timeout (fixed, from the message, a placeholder), the reply, no reply (its own code, the sentence,
 * the message kept), a reply that is not JSON, the plain-text 403 and 404, a server before 3.8, never sent twice (a
 * connection lost after it went out, a 429, a 503), a list with bounded concurrency, and bad input (nothing sent).
 */
import assert from 'node:assert/strict';
import tbConnection from '../../src/nodes/tb-connection/index';
import tbRuleEngine from '../../src/nodes/tb-rule-engine/index';
import { flowsOn, key, lastStatus, statuses, useRuntime, warningsOf, type Rec } from '../support/runtime';
import { InFlight } from './device-support';

const NODES = [tbConnection, tbRuleEngine];
const CUSTOMER_A = { username: 'customer@thingsboard.org', password: 'customer' };
const UNKNOWN = '5f3c9a10-e71b-11f0-9d7e-8b1f2c3d4e5f';

function rule(id: string, props: Rec = {}): Rec {
  return { id, type: 'tb-rule-engine', connection: 'c1', wires: [['out']], ...props };
}

describe('tb-rule-engine (runtime + simulator)', function () {
  const sim = useRuntime(
    { ruleEngineTimeScale: 0.01 },
    {
      settings: { tbConnectionRetryInitialMs: 5, tbConnectionRetryMaxMs: 20 },
      reset: (s) => {
        s.resetRequests();
        s.ruleEngine.resetCounters();
        s.ruleEngine.resetChain();
      },
      cleanup: (s) => {
        s.faults.clear();
        s.setVersion('4.3.1.3');
      },
    },
  );
  const { load, results } = flowsOn(sim, NODES);
  const dev = (name: string) => sim.data.mustFindByName('DEVICE', name);
  const paths = () =>
    sim.requests
      .entries()
      .filter((e) => e.path.startsWith('/api/rule-engine'))
      .map((e) => e.path);
  const tenantId = () => sim.auth.users.find((u) => u.email === 'tenant@thingsboard.org')!.userId;

  describe('as the connection’s user', () => {
    it('POST /api/rule-engine/ with its trailing slash: msg.payload in, the reply out, the message kept', async () => {
      await load([rule('r')]);
      sim.ruleEngine.setChain({ mode: 'reply', reply: (m) => ({ got: m.data, from: m.originator.entityType }) });
      const out = await results.ok('r', { payload: { question: 'status' }, chatId: 7 });
      assert.deepEqual(out.payload, { got: { question: 'status' }, from: 'USER' });
      assert.deepEqual(out.ruleEngine, { originator: 'user', queue: null, timeout: null });
      assert.equal(out.chatId, 7);
      assert.equal(out.entity, undefined, 'no entity named');
      assert.deepEqual(paths(), ['/api/rule-engine/']);
      assert.deepEqual(sim.ruleEngine.calls()[0].originator, { entityType: 'USER', id: tenantId() });
      assert.deepEqual(lastStatus('r'), { fill: 'green', shape: 'dot', text: key('rpcReplied') });
    });

    it('text, numbers and lists go in as JSON; an empty reply is null', async () => {
      await load([rule('r')]);
      sim.ruleEngine.setChain({ mode: 'reply', reply: (m) => m.data as never });
      assert.equal((await results.ok('r', { payload: 'hello' })).payload, 'hello');
      assert.equal(sim.ruleEngine.calls()[0].dataText, '"hello"');
      assert.deepEqual((await results.ok('r', { payload: [1, 2] })).payload, [1, 2]);
      assert.equal((await results.ok('r', { payload: 0 })).payload, 0);
      sim.ruleEngine.setChain({ mode: 'empty' });
      assert.equal((await results.ok('r', { payload: {} })).payload, null);
    });

    it("a queue or a timeout: the user's own id in the path (looked up once), as USER", async () => {
      await load([rule('r', { queue: 'HighPriority', timeout: '5s' })]);
      await results.ok('r', { payload: {} });
      await results.ok('r', { payload: {} });
      assert.deepEqual(paths(), [
        `/api/rule-engine/USER/${tenantId()}/HighPriority/5000`,
        `/api/rule-engine/USER/${tenantId()}/HighPriority/5000`,
      ]);
      assert.equal(sim.countRequests('/api/auth/user', 'GET'), 1);
      const m = sim.ruleEngine.calls()[0];
      assert.deepEqual([m.originator.entityType, m.queue], ['USER', 'HighPriority']);
    });

    it('msg.entity is not the originator: it is left as it came, with a warning said once', async () => {
      await load([rule('r')]);
      const d = dev('Thermo A-101');
      const out = await results.ok('r', { payload: {}, entity: d.id });
      await results.ok('r', { payload: {}, entity: d.id });
      assert.equal(out.entity, d.id);
      assert.equal(sim.ruleEngine.calls()[0].originator.entityType, 'USER');
      assert.equal(warningsOf('r').filter((w) => /msg\.entity is ignored: Originator is/.test(w)).length, 1);
    });
  });

  describe('as an entity', () => {
    it('from msg.entity, msg.topic, picked by name, a message property; msg.entity says what it acted on', async () => {
      const d = dev('Thermo A-102');
      await load([
        rule('r', { originator: 'entity' }),
        rule('picked', {
          originator: 'entity',
          targetType: 'json',
          target: JSON.stringify({ entityType: 'DEVICE', id: d.id, name: 'Thermo A-102' }),
        }),
        rule('prop', { originator: 'entity', targetType: 'msg', target: 'req.device' }),
      ]);
      let out = await results.ok('r', { payload: { a: 1 }, entity: { entityType: 'DEVICE', id: d.id } });
      assert.deepEqual(out.payload, { a: 1, originator: { entityType: 'DEVICE', id: d.id, name: 'Thermo A-102' } });
      assert.deepEqual(out.ruleEngine, {
        originator: { entityType: 'DEVICE', id: d.id },
        queue: null,
        timeout: null,
      });
      out = await results.ok('r', { payload: { a: 2 }, topic: d.id });
      assert.deepEqual(out.entity, { entityType: 'DEVICE', id: d.id });
      await results.ok('picked', { payload: { a: 3 }, entity: 'ignored' });
      await results.ok('prop', { payload: { a: 4 }, req: { device: { entityType: 'DEVICE', id: d.id } } });
      assert.deepEqual(paths(), Array(4).fill(`/api/rule-engine/DEVICE/${d.id}`));
      assert.deepEqual(
        sim.ruleEngine.calls().map((m) => m.data),
        [{ a: 1 }, { a: 2 }, { a: 3 }, { a: 4 }],
      );
    });

    it('a bare id is typed by "Id is a"; an entity type the rule engine does not take is refused', async () => {
      const alpha = sim.data.mustFindByName('ASSET', 'Building Alpha');
      await load([rule('r', { originator: 'entity', targetEntityType: 'ASSET' })]);
      await results.ok('r', { payload: {}, entity: alpha.id });
      assert.deepEqual(paths(), [`/api/rule-engine/ASSET/${alpha.id}`]);
      await results.fails(
        'r',
        { payload: {}, entity: { entityType: 'DASHBOARD', id: UNKNOWN } },
        'TB_INVALID_INPUT',
        /msg\.entity\.entityType is DASHBOARD: a rule engine message's originator must be one of DEVICE, ASSET/,
      );
      assert.equal(paths().length, 1);
    });

    it('a fixed body: msg.payload is ignored, and a list of entities in msg.payload is read as the entities', async () => {
      const a = dev('Thermo B-201');
      const b = dev('Thermo B-202');
      await load([rule('r', { originator: 'entity', bodyFrom: 'json', body: '{"ask": "state"}', concurrency: 1 })]);
      const out = await results.ok('r', {
        payload: [
          { entityType: 'DEVICE', id: a.id, name: 'Thermo B-201' },
          { entityType: 'DEVICE', id: b.id, name: 'Thermo B-202' },
        ],
      });
      const list = out.payload as Rec[];
      assert.equal(list.length, 2);
      assert.deepEqual(
        list.map((r) => [r.ok, (r.payload as Rec).ask, ((r.payload as Rec).originator as Rec).name]),
        [
          [true, 'state', 'Thermo B-201'],
          [true, 'state', 'Thermo B-202'],
        ],
      );
      assert.deepEqual(
        sim.ruleEngine.calls().map((m) => m.dataText),
        ['{"ask":"state"}', '{"ask":"state"}'],
      );
    });
  });

  describe('queue and timeout', () => {
    it('fixed, from msg.queue / msg.timeout when empty, or from a placeholder', async () => {
      const d = dev('Thermo G-102');
      await load([
        rule('r', { originator: 'entity' }),
        rule('bound', { originator: 'entity', queue: '{{msg.route.queue}}', timeout: '{{msg.route.wait}}' }),
      ]);
      await results.ok('r', { payload: {}, entity: d.id, queue: 'HighPriority', timeout: '3s' });
      await results.ok('r', { payload: {}, entity: d.id, timeout: 2500 });
      await results.ok('bound', { payload: {}, entity: d.id, route: { queue: 'SequentialByOriginator', wait: '4s' } });
      assert.deepEqual(paths(), [
        `/api/rule-engine/DEVICE/${d.id}/HighPriority/3000`,
        `/api/rule-engine/DEVICE/${d.id}/2500`,
        `/api/rule-engine/DEVICE/${d.id}/SequentialByOriginator/4000`,
      ]);
      assert.deepEqual(
        sim.ruleEngine.calls().map((m) => m.queue),
        ['HighPriority', 'Main', 'SequentialByOriginator'],
      );
    });

    it('a queue fixed in the node wins over msg.queue, with a warning; an unknown queue goes to Main', async () => {
      const d = dev('Thermo G-103');
      await load([rule('r', { originator: 'entity', queue: 'Nightly' })]);
      const out = await results.ok('r', { payload: {}, entity: d.id, queue: 'HighPriority' });
      assert.deepEqual(out.ruleEngine, {
        originator: { entityType: 'DEVICE', id: d.id },
        queue: 'Nightly',
        timeout: null,
      });
      assert.deepEqual(paths(), [`/api/rule-engine/DEVICE/${d.id}/Nightly/10000`]);
      assert.equal(sim.ruleEngine.calls()[0].queue, 'Main');
      assert.ok(warningsOf('r').some((w) => /msg\.queue is ignored/.test(w)));
    });
  });

  describe('what the server answers', () => {
    it('no reply (408): TB_RULE_NO_REPLY says what is missing, and the message is kept', async () => {
      await load([rule('r', { originator: 'entity', timeout: '2s' })]);
      const d = dev('Thermo A-103');
      sim.ruleEngine.setChain({ mode: 'silent' });
      const { msg, error } = await results.fails(
        'r',
        { payload: { a: 1 }, entity: d.id, chatId: 9 },
        'TB_RULE_NO_REPLY',
        /^TbApiError: Add a "rest call reply" node where the rule chain of the device's profile \(else the root rule chain\) handles "REST API request" messages, and keep the message's metadata \(serviceId, requestUUID\) on the way: nothing answered the message from DEVICE .* within 2 s \(HTTP 408\)/,
      );
      assert.ok(error);
      assert.deepEqual([msg.chatId, msg.payload], [9, { a: 1 }], 'the message as it came');
      assert.deepEqual(msg.entity, { entityType: 'DEVICE', id: d.id });
      assert.equal(sim.ruleEngine.calls()[0].answered, 408);
      assert.deepEqual(lastStatus('r'), { fill: 'red', shape: 'ring', text: key('rpcNoReply') });
    });

    it("the user's no reply names the root rule chain and the server's own wait", async () => {
      await load([rule('r')]);
      sim.ruleEngine.setChain({ mode: 'silent' });
      await results.fails(
        'r',
        { payload: {} },
        'TB_RULE_NO_REPLY',
        /where the tenant's root rule chain handles .* from the connection's user within the server's timeout \(10 s unless changed\) \(HTTP 408\)/,
      );
    });

    it('the server\'s 30 s cut (500 "Request timeout") is no reply too', async () => {
      await load([rule('r')]);
      sim.faults.add({
        path: '/api/rule-engine/',
        status: 500,
        body: { status: 500, message: 'Request timeout', errorCode: 2, timestamp: Date.now() },
      });
      await results.fails('r', { payload: {} }, 'TB_RULE_NO_REPLY', /HTTP 500, errorCode 2: Request timeout/);
    });

    it('a reply that is not JSON (406): TB_RULE_BAD_REPLY', async () => {
      await load([rule('r')]);
      sim.ruleEngine.setChain({ mode: 'nonJson' });
      await results.fails(
        'r',
        { payload: {} },
        'TB_RULE_BAD_REPLY',
        /^TbApiError: Make the rule chain reply with JSON.*\(HTTP 406\)/,
      );
      assert.deepEqual(lastStatus('r'), { fill: 'red', shape: 'ring', text: key('rpcBadReply') });
    });

    it("plain-text 404 and 403 give the server's words", async () => {
      await load([rule('r', { originator: 'entity' })], CUSTOMER_A);
      await results.fails(
        'r',
        { payload: {}, entity: UNKNOWN },
        'TB_NOT_FOUND',
        /DEVICE 5f3c9a10-.* was not found: the message was not sent to the rule engine .*Device with requested id wasn't found!/,
      );
      assert.deepEqual(lastStatus('r'), { fill: 'red', shape: 'ring', text: key('notFound') });
      await results.fails(
        'r',
        { payload: {}, entity: dev('Thermo G-101').id },
        'TB_PERMISSION',
        /did not allow this connection's user to send a message to the rule engine as DEVICE .*You don't have permission to perform this operation!/,
      );
      assert.equal(sim.ruleEngine.count(), 0);
    });

    it('a server before 3.8: TB_SERVER_TOO_OLD, naming its version', async () => {
      sim.setVersion('3.7.2');
      await load([rule('r')]);
      await results.fails(
        'r',
        { payload: {} },
        'TB_SERVER_TOO_OLD',
        /^TbApiError: Use ThingsBoard 3\.8 or newer for the rule engine node: This ThingsBoard server \(3\.7\.2\) has no rule engine API/,
      );
      assert.deepEqual(lastStatus('r'), { fill: 'red', shape: 'dot', text: key('serverTooOld') });
    });
  });

  describe('never sent twice', () => {
    it('the connection lost after it went out: handled once, TB_RULE_UNCERTAIN, no resend', async () => {
      await load([rule('r')]);
      sim.faults.add({ path: '/api/rule-engine/', dropConnection: 'after' });
      await results.fails(
        'r',
        { payload: { open: 'valve' } },
        'TB_RULE_UNCERTAIN',
        /may or may not have been handled; it was not sent again/,
      );
      assert.equal(paths().length, 1, 'one request');
      assert.equal(sim.ruleEngine.count(), 1, 'the rule chains got it once');
      assert.deepEqual(lastStatus('r'), { fill: 'red', shape: 'ring', text: key('ruleUncertain') });
    });

    it('a 429 means the server did not take it: retried, handled once', async () => {
      await load([rule('r')]);
      sim.faults.add({ path: '/api/rule-engine/', status: 429, times: 2 });
      await results.ok('r', { payload: {} });
      assert.equal(paths().length, 3);
      assert.equal(sim.ruleEngine.count(), 1);
      assert.ok(statuses('r').some((s) => s.fill === 'yellow' && s.text === key('retrying')));
    });

    it('a 503 is not resent', async () => {
      await load([rule('r')]);
      sim.faults.add({ path: '/api/rule-engine/', status: 503, times: 3 });
      await results.fails('r', { payload: {} }, 'TB_UNAVAILABLE', /not sent again/);
      assert.equal(paths().length, 1);
    });
  });

  it('a list of entities: one result each, in order, at most "In parallel" at once; a partial failure is yellow', async () => {
    await load([rule('r', { originator: 'entity', concurrency: 2 })]);
    sim.ruleEngine.setChain({ mode: 'reply', reply: (m) => ({ n: (m.data as Rec).n }), replyDelayMs: 2000 });
    const names = ['Thermo A-201', 'Thermo A-202', 'Thermo A-203', 'Thermo B-101', 'Thermo B-102'];
    const list = [
      ...names.map((n) => ({ entityType: 'DEVICE', id: dev(n).id })),
      { entityType: 'DEVICE', id: UNKNOWN },
    ];
    const flight = new InFlight(sim, '/api/rule-engine/');
    let out: Rec;
    try {
      out = await results.ok('r', { payload: { n: 1 }, entity: list });
    } finally {
      flight.stop();
    }
    const res = out.payload as Rec[];
    assert.deepEqual(
      res.map((r) => [(r.entity as Rec).id, r.ok]),
      list.map((e, i) => [e.id, i < 5]),
    );
    assert.deepEqual(res[0].payload, { n: 1 });
    assert.equal((res[5].error as Rec).code, 'TB_NOT_FOUND');
    assert.equal(out.failed, 1);
    assert.equal(flight.peak, 2, 'two at a time');
    assert.equal(sim.ruleEngine.count(), 5);
    assert.deepEqual(lastStatus('r'), { fill: 'yellow', shape: 'dot', text: key('bulkPartial') });
  });

  it('bad input is refused before sending: no data, a timeout that is not a duration or over 29 s, a bad queue, no entity', async () => {
    await load([rule('r'), rule('ent', { originator: 'entity' })]);
    await results.fails('r', {}, 'TB_INVALID_INPUT', /^TbInputError: Send the data in msg\.payload, or set Body/);
    await results.fails(
      'r',
      { payload: {}, timeout: 'soon' },
      'TB_INVALID_INPUT',
      /msg\.timeout must be a duration such as 30s/,
    );
    await results.fails(
      'r',
      { payload: {}, timeout: '45s' },
      'TB_INVALID_INPUT',
      /msg\.timeout is 45 s: make it 29 s or less \(ThingsBoard cuts every wait at 30 s/,
    );
    await results.fails('r', { payload: {}, queue: 'a/b' }, 'TB_INVALID_INPUT', /msg\.queue must be a queue's name/);
    await results.fails('ent', { payload: {} }, 'TB_INVALID_INPUT', /Set the query node's Output to msg\.entity/);
    const cyclic: Rec = {};
    cyclic.self = cyclic;
    await results.fails('r', { payload: cyclic }, 'TB_INVALID_INPUT', /msg\.payload cannot be sent as JSON/);
    assert.equal(paths().length, 0, 'nothing was sent');
    assert.deepEqual(lastStatus('r'), { fill: 'red', shape: 'ring', text: key('invalidInput') });
  });

  it('fixed data that is not JSON: a config error at deploy, each message refused, nothing sent', async () => {
    await load([rule('r', { bodyFrom: 'json', body: '{nope' })]);
    assert.deepEqual(statuses('r')[0], { fill: 'red', shape: 'dot', text: key('configError') });
    await results.fails('r', { payload: {} }, 'TB_CONFIG', /body is not valid JSON/);
    assert.equal(paths().length, 0);
  });

  it('as the user, a leftover entity setting is no problem of the node', async () => {
    await load([rule('r', { targetType: 'json', target: '{broken' })]);
    await results.ok('r', { payload: {} });
  });
});
