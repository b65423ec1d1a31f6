/**
 * tb-api's editor endpoints in the real Node-RED runtime against the simulator: the common calls suggested for the
 * connected server's version and user, and the try of a GET before deploy (JSON, text, a file, a path that needs
 * no login, the server's refusal as an answer); a method other than GET, a path that would leave the server or still
 * holds a placeholder refused with nothing sent; an undeployed connection said so. No answer holds a token.
 */
import assert from 'node:assert/strict';
import type { Response } from 'supertest';
import tbConnection from '../../src/nodes/tb-connection/index';
import { helper, TENANT, useRuntime } from '../support/runtime';

type Rec = Record<string, unknown>;
type TestFlows = Parameters<typeof helper.load>[1];
const CUSTOMER = { username: 'customer@thingsboard.org', password: 'customer' };
const JWT_RE = /eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\./;

describe('tb-api editor endpoints: suggested calls and the try (runtime + simulator)', function () {
  const sim = useRuntime(
    {},
    {
      reset: (s) => s.resetRequests(),
      cleanup: (s) => {
        s.faults.clear();
        s.setVersion('4.3.1.3');
      },
    },
  );
  const answers: string[] = [];
  after(() => {
    assert.ok(answers.length >= 10);
    for (const text of answers) assert.ok(!JWT_RE.test(text) && !text.includes('Bearer'), `a token in ${text}`);
  });

  async function load(creds: Rec = TENANT): Promise<void> {
    const conn = { id: 'c1', type: 'tb-connection', name: 'sim', url: sim.url, authMode: 'password', timeout: 10 };
    await helper.load([tbConnection], [conn] as unknown as TestFlows, { c1: creds });
  }
  const record = (r: Response): Response => {
    answers.push(r.text);
    assert.match(String(r.headers['content-type']), /^application\/json/);
    return r;
  };
  const paths = async (id = 'c1') => record(await helper.request().get(`/tb-connection/${id}/api-paths`));
  const tryIt = async (body: Rec, id = 'c1') =>
    record(await helper.request().post(`/tb-connection/${id}/api-try`).send(body));

  it("suggests the calls of the server's version and user: the rule engine from 3.8, the audit log for a tenant", async () => {
    await load();
    const r = await paths();
    assert.equal(r.status, 200);
    assert.equal(r.body.serverVersion, '4.3.1.3');
    assert.equal(r.body.authority, 'TENANT_ADMIN');
    const list = (r.body.items as Array<{ method: string; path: string; query?: string }>).map((s) => s.path);
    assert.ok(list.includes('/api/audit/logs'));
    assert.ok(list.includes('/api/rule-engine/'));
    assert.ok(list.includes('/api/otaPackage/{{msg.otaPackageId}}/download'));

    sim.setVersion('3.7.0');
    await helper.unload();
    await load(); // a new connection: a new cache
    const old = (await paths()).body as { serverVersion: string; items: Array<{ path: string }> };
    assert.equal(old.serverVersion, '3.7.0');
    assert.ok(!old.items.some((s) => s.path === '/api/rule-engine/'), 'no rule engine before 3.8');
    assert.ok(
      old.items.some((s) => s.path === '/api/notifications'),
      'notifications since 3.5',
    );

    sim.setVersion('4.3.1.3');
    await helper.unload();
    await load(CUSTOMER);
    const customer = (await paths()).body as { authority: string; items: Array<{ path: string }> };
    assert.equal(customer.authority, 'CUSTOMER_USER');
    assert.ok(!customer.items.some((s) => s.path === '/api/audit/logs'), 'a tenant administrator only');
    assert.ok(customer.items.some((s) => s.path === '/api/customer/{{msg.customerId}}/title'));
  });

  it('tries a GET as the node sends it: JSON shown pretty, text, a file by its name, a path needing no login', async () => {
    await load();
    const json = await tryIt({ method: 'GET', path: '/api/audit/logs?pageSize=1&page=0' });
    assert.equal(json.status, 200);
    assert.deepEqual([json.body.ok, json.body.statusCode, json.body.kind], [true, 200, 'json']);
    assert.equal(JSON.parse(json.body.text).data[0].actionType, 'UPDATED');
    assert.match(json.body.text, /\n {2}"data"/, 'pretty-printed');
    assert.equal(json.body.path, '/api/audit/logs?pageSize=1&page=0');

    const a = sim.data.mustFindByName('CUSTOMER', 'Customer A');
    const text = await tryIt({ path: `/api/customer/${a.id}/title` });
    assert.deepEqual([text.body.kind, text.body.text], ['text', 'Customer A']);

    const fw = sim.generic.otaPackages()[0];
    const file = await tryIt({ path: `/api/otaPackage/${fw.id}/download` });
    assert.equal(file.body.kind, 'file');
    assert.deepEqual(file.body.file, {
      name: 'thermo-fw-1.2.bin',
      contentType: 'application/octet-stream',
      size: 4096,
    });
    assert.equal(file.body.text, undefined, "a file's bytes stay on the server side");

    const before = sim.generic.seen().length;
    const free = await tryIt({ path: '/api/noauth/userPasswordPolicy' });
    assert.equal(free.body.kind, 'json');
    assert.equal(sim.generic.seen()[before].authorization, false, 'without the token');
  });

  it("the server's refusal is the try's answer: its status and message", async () => {
    await load();
    const r = await tryIt({ path: '/api/otaPackage/00000000-0000-4000-a000-000000000001/download' });
    assert.equal(r.status, 200);
    assert.equal(r.body.ok, false);
    assert.equal(r.body.statusCode, 404);
    assert.equal(r.body.code, 'TB_NOT_FOUND');
    assert.match(r.body.message, /Ota package with id \[.*\] is not found/);
  });

  it('only a GET, only a path under /api/ with its placeholders filled: refused with the field, nothing sent', async () => {
    await load();
    await tryIt({ path: '/api/noauth/userPasswordPolicy' }); // signed in already, or not needed
    sim.resetRequests();
    const post = await tryIt({ method: 'POST', path: '/api/rule-engine/' });
    assert.deepEqual([post.status, post.body.field, post.body.code], [400, 'method', 'TB_INVALID_INPUT']);
    assert.match(post.body.message, /Only a GET is tried/);
    for (const path of ['https://evil.example.com/api/x', '//evil.example.com/api/x', '/api/../x', '/login']) {
      const r = await tryIt({ path });
      assert.deepEqual([r.status, r.body.field], [400, 'path'], path);
    }
    const bound = await tryIt({ path: '/api/device/{{msg.deviceId}}' });
    assert.match(bound.body.message, /still holds a placeholder/);
    assert.equal(sim.requests.total, 0);
  });

  it('a connection that is not deployed: 404, said so', async () => {
    await load();
    const r = await tryIt({ path: '/api/audit/logs?pageSize=1&page=0' }, 'nope');
    assert.equal(r.status, 404);
    assert.equal(r.body.code, 'TB_NOT_DEPLOYED');
    assert.equal((await paths('nope')).status, 404);
  });
});
