/**
 * Permissions of the tb-connection admin endpoints in a real Node-RED with adminAuth (the test helper runs
 * without it): Node-RED started embedded with this package (scripts/embedded.ts, in a child process, loading
 * the build in dist/), a connection deployed through POST /flows, and requests with no token, a "read" user's
 * token and a "*" user's token. Node-RED answers a missing permission with 401 (editor-api
 * `auth.needsPermission`), whatever the reason.
 */
import assert from 'node:assert/strict';
import { adminAuthSettings, startChildNodeRed, type ChildNodeRed } from '../support/child-node-red';
import { TENANT } from '../support/runtime';
import { useSimulator } from '../support/simulator';

describe('tb-connection admin endpoints: permissions (embedded Node-RED with adminAuth)', function () {
  this.timeout(60000);

  const sim = useSimulator();
  let child: ChildNodeRed;
  let url: string;
  const tokens: Record<string, string> = {};

  async function call(
    method: 'GET' | 'POST',
    p: string,
    who?: string,
    body?: unknown,
  ): Promise<{ status: number; text: string; json: () => Record<string, unknown> }> {
    const headers: Record<string, string> = { 'Content-Type': 'application/json' };
    if (who) headers.Authorization = `Bearer ${tokens[who]}`;
    const res = await fetch(url + p, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
    const text = await res.text();
    return { status: res.status, text, json: () => JSON.parse(text) as Record<string, unknown> };
  }

  before(async () => {
    child = await startChildNodeRed(adminAuthSettings());
    url = child.url;
    tokens.admin = await child.token('admin', 'admin-pw', '*');
    tokens.reader = await child.token('reader', 'reader-pw', 'read');
    const deploy = await fetch(`${url}/flows`, {
      method: 'POST',
      headers: {
        'Content-Type': 'application/json',
        Authorization: `Bearer ${tokens.admin}`,
        'Node-RED-Deployment-Type': 'full',
      },
      body: JSON.stringify([
        {
          id: 'c1',
          type: 'tb-connection',
          name: 'sim',
          url: sim.url,
          authMode: 'password',
          timeout: 10,
          credentials: TENANT,
        },
      ]),
    });
    assert.ok(deploy.status === 200 || deploy.status === 204, `deploy: ${deploy.status} ${await deploy.text()}`);
  });

  after(async () => {
    await child?.stop();
  });

  const GETS = [
    '/tb-connection/c1/profiles?entityType=DEVICE',
    '/tb-connection/c1/entities?entityType=DEVICE&search=meter',
    '/tb-connection/c1/keys?entityType=ASSET',
    '/tb-connection/c1/alarm-types',
    '/tb-connection/c1/api-paths',
  ];
  const TRY = { method: 'GET', path: '/api/noauth/userPasswordPolicy' };
  const PREVIEW = {
    node: 'tb-entity-count',
    query: { entityFilter: { type: 'deviceType', deviceTypes: ['thermostat'] } },
  };

  it('no token: 401 on every endpoint, nothing sent to ThingsBoard', async () => {
    sim.resetRequests();
    for (const p of GETS) assert.equal((await call('GET', p)).status, 401, p);
    assert.equal((await call('POST', '/tb-connection/c1/preview', undefined, PREVIEW)).status, 401);
    assert.equal((await call('POST', '/tb-connection/c1/test')).status, 401);
    assert.equal((await call('POST', '/tb-connection/c1/api-try', undefined, TRY)).status, 401);
    assert.equal(sim.requests.entries(100).length, 0);
  });

  it('a "read" user: the look-ups answer, preview and test are refused (401)', async () => {
    for (const p of GETS) {
      const r = await call('GET', p, 'reader');
      assert.equal(r.status, 200, `${p}: ${r.text}`);
    }
    assert.deepEqual((await call('GET', GETS[0], 'reader')).json(), {
      items: [{ name: 'default' }, { name: 'meter' }, { name: 'thermostat' }],
    });
    sim.resetRequests();
    assert.equal((await call('POST', '/tb-connection/c1/preview', 'reader', PREVIEW)).status, 401);
    assert.equal((await call('POST', '/tb-connection/c1/test', 'reader')).status, 401);
    assert.equal(
      (await call('POST', '/tb-connection/c1/api-try', 'reader', TRY)).status,
      401,
      'a try calls the server',
    );
    assert.equal(sim.requests.entries(100).length, 0);
  });

  it('a "*" user: everything answers; an unknown connection is a JSON 404', async () => {
    for (const p of GETS) assert.equal((await call('GET', p, 'admin')).status, 200, p);
    let r = await call('POST', '/tb-connection/c1/preview', 'admin', PREVIEW);
    assert.deepEqual([r.status, r.json()], [200, { payload: 20 }]);
    r = await call('POST', '/tb-connection/c1/test', 'admin');
    assert.deepEqual(
      [r.status, r.json()],
      [200, { ok: true, user: 'tenant@thingsboard.org', authority: 'TENANT_ADMIN', serverVersion: '4.3.1.3' }],
    );
    r = await call('POST', '/tb-connection/c1/api-try', 'admin', TRY);
    assert.deepEqual([r.status, r.json().ok, r.json().kind], [200, true, 'json']);
    r = await call('GET', '/tb-connection/nope/alarm-types', 'admin');
    assert.equal(r.status, 404);
    assert.equal(r.json().code, 'TB_NOT_DEPLOYED');
    for (const t of Object.values(tokens)) assert.ok(!r.text.includes(t));
  });
});
