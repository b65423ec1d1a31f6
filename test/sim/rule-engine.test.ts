/**
 * The simulator's rule engine REST API, as `C/RuleEngineController.java` answers: the four paths (the trailing
 * slash of the user's own), the message the rule chains get, a reply (fixed, a transformation), no reply (408 with an
 * empty body, after the timeout and not before), data that is not JSON (406), the 30 s cut (500 JSON), the plain-text
 * 403 and 404 of the access check, JSON 400s, the system administrator's dropped message, and servers before 3.8.
 */
import assert from 'node:assert/strict';
import { once } from 'node:events';
import type { RuleEngineMsg } from '../../sim/index';
import { Client, login, type HttpResult } from '../../sim/testkit';
import { useSimSetup } from '../support/simulator';

const TEXT = 'text/plain;charset=UTF-8';
const UNKNOWN = '5f3c9a10-e71b-11f0-9d7e-8b1f2c3d4e5f';

describe('simulator: rule engine REST API', function () {
  const c = useSimSetup({ ruleEngineTimers: 'manual' }, { perTest: true });
  const dev = () => c.sim.data.mustFindByName('DEVICE', 'Thermo A-101');

  /** Posts and waits until the message reached the rule chains (the answer may come later). */
  async function post(
    path: string,
    body: unknown,
    client: Client = c.tenant,
  ): Promise<{ res: Promise<HttpResult>; msg: RuleEngineMsg }> {
    const got = once(c.sim.ruleEngine.events, 'message');
    const res = client.post(path, body);
    const [msg] = (await got) as [RuleEngineMsg];
    return { res, msg };
  }

  it('POST /api/rule-engine/ (the trailing slash): the user is the originator, the demo chain answers at once', async () => {
    const { res, msg } = await post('/api/rule-engine/', { question: 'hello' });
    const r = await res;
    assert.equal(r.status, 200);
    assert.equal(r.headers.get('content-type'), 'application/json');
    const me = c.sim.auth.users.find((u) => u.email === 'tenant@thingsboard.org')!;
    assert.deepEqual(msg.originator, { entityType: 'USER', id: me.userId });
    const name = c.sim.data.get(me.userId)?.name ?? null;
    assert.deepEqual(r.body, { question: 'hello', originator: { entityType: 'USER', id: me.userId, name } });
    assert.equal(msg.type, 'REST_API_REQUEST');
    assert.equal(msg.queue, 'Main');
    assert.equal(msg.dataText, '{"question":"hello"}');
    assert.equal(msg.metadata.serviceId, 'tb-core-simulated');
    assert.match(msg.metadata.requestUUID, /^[0-9a-f-]{36}$/);
    assert.equal(Number(msg.metadata.expirationTime), msg.receivedAt + 10000);
  });

  it("POST /api/rule-engine without the slash is an unknown path: 404 in Spring's shape, nothing reaches the chains", async () => {
    const r = await c.tenant.post('/api/rule-engine', { a: 1 });
    assert.equal(r.status, 404);
    assert.equal(r.body.error, 'Not Found');
    assert.equal(r.body.path, '/api/rule-engine');
    assert.equal(r.body.errorCode, undefined);
    assert.equal(c.sim.ruleEngine.count(), 0);
  });

  it('an entity, a timeout and a queue: the message as the chains get it; an unknown queue goes to Main', async () => {
    const d = dev();
    let m = (await post(`/api/rule-engine/DEVICE/${d.id}`, [1, 2])).msg;
    assert.deepEqual([m.originator, m.queueName, m.queue], [{ entityType: 'DEVICE', id: d.id }, null, 'Main']);
    assert.deepEqual(m.data, [1, 2]);
    m = (await post(`/api/rule-engine/DEVICE/${d.id}/2500`, '"text"')).msg;
    assert.equal(Number(m.metadata.expirationTime) - m.receivedAt, 2500);
    assert.equal(m.data, 'text');
    m = (await post(`/api/rule-engine/DEVICE/${d.id}/HighPriority/3000`, 7)).msg;
    assert.deepEqual([m.queueName, m.queue], ['HighPriority', 'HighPriority']);
    m = (await post(`/api/rule-engine/DEVICE/${d.id}/NoSuchQueue/3000`, 7)).msg;
    assert.deepEqual([m.queueName, m.queue], ['NoSuchQueue', 'Main']);
  });

  it('a fixed reply, or a transformation of the message; the reply is written again as JSON', async () => {
    c.sim.ruleEngine.setChain({ mode: 'reply', reply: { ok: true } });
    assert.deepEqual((await (await post('/api/rule-engine/', 1)).res).body, { ok: true });
    c.sim.ruleEngine.setChain({
      mode: 'reply',
      reply: (m) => ({ doubled: (m.data as number) * 2, from: m.originator.entityType }),
    });
    const r = await (await post(`/api/rule-engine/DEVICE/${dev().id}`, 21)).res;
    assert.equal(r.text, '{"doubled":42,"from":"DEVICE"}');
  });

  it('no reply node: 408 with an empty body at the timeout, not before; a transformation giving undefined the same', async () => {
    c.sim.ruleEngine.setChain({ mode: 'silent' });
    const { res, msg } = await post(`/api/rule-engine/DEVICE/${dev().id}/5000`, {});
    c.sim.ruleEngine.advance(4999);
    assert.equal(msg.answered, 0, 'still waiting at 4999 ms');
    c.sim.ruleEngine.advance(1);
    const r = await res;
    assert.equal(r.status, 408);
    assert.equal(r.text, '');
    c.sim.ruleEngine.setChain({ mode: 'reply', reply: () => undefined });
    const second = await post('/api/rule-engine/', {});
    c.sim.ruleEngine.advance(10000);
    assert.equal((await second.res).status, 408, "the user's path waits the server's 10 s");
  });

  it('a reply that comes after the timeout is dropped (408); one before it answers', async () => {
    c.sim.ruleEngine.setChain({ mode: 'reply', reply: 'late', replyDelayMs: 3000 });
    const late = await post(`/api/rule-engine/DEVICE/${dev().id}/2000`, {});
    c.sim.ruleEngine.advance(5000);
    assert.equal((await late.res).status, 408);
    const early = await post(`/api/rule-engine/DEVICE/${dev().id}/4000`, {});
    c.sim.ruleEngine.advance(3000);
    const r = await early.res;
    assert.deepEqual([r.status, r.body], [200, 'late']);
  });

  it('a zero or negative timeout: 408 at once', async () => {
    c.sim.ruleEngine.setChain({ mode: 'silent' });
    assert.equal((await (await post(`/api/rule-engine/DEVICE/${dev().id}/0`, {})).res).status, 408);
    assert.equal((await (await post(`/api/rule-engine/DEVICE/${dev().id}/-5`, {})).res).status, 408);
  });

  it('data that is not JSON from the reply node: 406, empty; an empty reply: 200, empty', async () => {
    c.sim.ruleEngine.setChain({ mode: 'nonJson' });
    let r = await (await post('/api/rule-engine/', {})).res;
    assert.deepEqual([r.status, r.text], [406, '']);
    c.sim.ruleEngine.setChain({ mode: 'empty' });
    r = await (await post('/api/rule-engine/', {})).res;
    assert.deepEqual([r.status, r.text], [200, '']);
  });

  it('a timeout over the 30 s cut: 500 JSON "Request timeout" at 30 s', async () => {
    c.sim.ruleEngine.setChain({ mode: 'silent' });
    const { res } = await post(`/api/rule-engine/DEVICE/${dev().id}/45000`, {});
    c.sim.ruleEngine.advance(30000);
    const r = await res;
    assert.equal(r.status, 500);
    assert.deepEqual([r.body.message, r.body.errorCode], ['Request timeout', 2]);
  });

  it('403 and 404 are plain text; nothing reaches the chains', async () => {
    let r = await c.tenant.post(`/api/rule-engine/DEVICE/${UNKNOWN}`, {});
    assert.deepEqual([r.status, r.text], [404, "Device with requested id wasn't found!"]);
    assert.equal(r.headers.get('content-type'), TEXT);
    // a customer user and a device of the tenant's, not its customer's
    const tenants = c.sim.data.mustFindByName('DEVICE', 'Thermo G-101');
    r = await c.customer.post(`/api/rule-engine/DEVICE/${tenants.id}`, {});
    assert.deepEqual([r.status, r.text], [403, "You don't have permission to perform this operation!"]);
    assert.equal(r.headers.get('content-type'), TEXT);
    const sysadmin = await login(c.url, 'sysadmin@thingsboard.org', 'sysadmin');
    r = await sysadmin.post(`/api/rule-engine/DEVICE/${dev().id}`, {});
    assert.deepEqual([r.status, r.text], [403, 'System administrator is not allowed to perform this operation!']);
    assert.equal(c.sim.ruleEngine.count(), 0);
  });

  it('a customer user may send as its own device', async () => {
    const customerId = c.sim.seed.users.find((u) => u.email === 'customer@thingsboard.org')!.customerId;
    const own = [...c.sim.data.entitiesOfType('DEVICE')].find((e) => e.customerId === customerId)!;
    const r = await (await post(`/api/rule-engine/DEVICE/${own.id}`, { a: 1 }, c.customer)).res;
    assert.equal(r.status, 200);
  });

  it('400 JSON "Invalid request body": a body that is not JSON, an unknown type, a bad id; a timeout that is not a number', async () => {
    for (const [path, body] of [
      ['/api/rule-engine/', 'not json'],
      [`/api/rule-engine/GADGET/${dev().id}`, '{}'],
      ['/api/rule-engine/DEVICE/not-a-uuid', '{}'],
    ]) {
      const r = await c.tenant.post(path, body);
      assert.equal(r.status, 400, path);
      assert.deepEqual([r.body.message, r.body.errorCode], ['Invalid request body', 31], path);
    }
    const r = await c.tenant.post(`/api/rule-engine/DEVICE/${dev().id}/soon`, {});
    assert.equal(r.status, 400);
    assert.match(r.body.message, /Failed to convert value of type 'java.lang.String' to required type 'int'/);
    assert.equal(c.sim.ruleEngine.count(), 0);
  });

  it("the system administrator's message on its own path is dropped: 408 after the timeout", async () => {
    const sysadmin = await login(c.url, 'sysadmin@thingsboard.org', 'sysadmin');
    const { res } = await post('/api/rule-engine/', {}, sysadmin);
    c.sim.ruleEngine.advance(10000);
    assert.equal((await res).status, 408);
  });

  it("before 3.8 there is no rule engine API: 404 in Spring's shape on every path", async () => {
    c.sim.setVersion('3.7.0');
    for (const path of [
      '/api/rule-engine/',
      `/api/rule-engine/DEVICE/${dev().id}`,
      `/api/rule-engine/DEVICE/${dev().id}/5000`,
    ]) {
      const r = await c.tenant.post(path, {});
      assert.equal(r.status, 404, path);
      assert.equal(r.body.error, 'Not Found', path);
    }
    c.sim.setVersion('3.8.0');
    assert.equal((await c.tenant.post('/api/rule-engine/', {})).status, 200);
    assert.equal(c.sim.ruleEngine.count(), 1);
  });

  it('the control API sets the chain and reads the calls', async () => {
    const ctl = new Client(c.url);
    assert.equal((await ctl.post('/__sim/rule-engine/chain', { mode: 'reply', reply: { fixed: 1 } })).status, 200);
    assert.deepEqual((await c.tenant.post('/api/rule-engine/', {})).body, { fixed: 1 });
    const calls = await ctl.request('GET', '/__sim/rule-engine/calls');
    assert.equal(calls.body.count, 1);
    assert.equal(calls.body.calls[0].answered, 200);
    assert.equal((await ctl.post('/__sim/rule-engine/chain', { mode: 'nope' })).status, 400);
    await ctl.post('/__sim/rule-engine/reset', {});
    assert.equal(c.sim.ruleEngine.count(), 0);
    assert.equal(c.sim.ruleEngine.behaviour().mode, 'reply');
  });
});
