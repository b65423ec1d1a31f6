/**
 * Tokens across redeploys: a connection redeployed with the same address and credentials keeps its tokens (no
 * new login); changed credentials, a refused token and a deleted connection do not reuse them. In the test
 * helper's runtime (each load/unload is a full start/stop of the nodes) and in a real Node-RED process
 * redeployed through its admin API.
 */
import assert from 'node:assert/strict';
import tbConnection from '../../src/nodes/tb-connection/index';
import tbEntityCount from '../../src/nodes/tb-entity-count/index';
import { tokenCacheSize } from '../../src/platform/token-cache';
import { startChildNodeRed, type ChildNodeRed } from '../support/child-node-red';
import { assertCode, connectionNode, flow, helper, inject, message, TENANT, useRuntime } from '../support/runtime';
import { replaceSimulator, useSimulator } from '../support/simulator';
import { waitFor } from '../support/wait';

type Rec = Record<string, unknown>;
const NODES = [tbConnection, tbEntityCount];
const COUNT = { entityFilter: { type: 'deviceType', deviceTypes: ['thermostat'] } };
const CUSTOMER = { username: 'customer@thingsboard.org', password: 'customer' };

describe("redeploys keep the connection's tokens (runtime + simulator)", function () {
  const sim = useRuntime({}, { perTest: true });

  const counter = {
    id: 'n',
    type: 'tb-entity-count',
    connection: 'c1',
    queryType: 'msg',
    query: 'payload',
    wires: [['out']],
  };
  async function deployAndCount(creds: Rec, url = sim.url): Promise<Rec> {
    await helper.load(NODES, flow(connectionNode(url), counter), { c1: creds });
    const out = message('out');
    inject('n', { payload: COUNT });
    const got = await out;
    await helper.unload();
    return got;
  }

  it('20 redeploys with the same address and credentials: one login, every query answered', async () => {
    for (let i = 0; i < 20; i++) assert.equal((await deployAndCount(TENANT)).payload, 20);
    assert.equal(sim.countRequests('/api/auth/login'), 1);
    assert.equal(sim.countRequests('/api/auth/token'), 0);
  });

  it("changed credentials log in again, and the old user's tokens are not reused when they come back", async () => {
    assert.equal((await deployAndCount(TENANT)).payload, 20);
    const seen = (await deployAndCount(CUSTOMER)).payload as number;
    assert.ok(seen < 20, `the customer sees only its own thermostats (${seen})`);
    assert.equal(sim.countRequests('/api/auth/login'), 2);
    assert.equal((await deployAndCount(TENANT)).payload, 20);
    assert.equal(sim.countRequests('/api/auth/login'), 3, 'one entry per connection: the tenant logs in again');
  });

  it('a wrong password is refused, and the tokens of the right one are gone with it', async () => {
    await deployAndCount(TENANT);
    await helper.load(NODES, flow(connectionNode(sim.url), counter), { c1: { ...TENANT, password: 'wrong' } });
    const caught = message('caught');
    inject('n', { payload: COUNT });
    assertCode((await caught).error as Rec, 'TB_AUTH_FAILED');
    await helper.unload();
    assert.equal(tokenCacheSize(), 0);
    await deployAndCount(TENANT);
    assert.equal(sim.countRequests('/api/auth/login'), 3);
  });

  it('a kept token the server no longer knows (restarted with other keys): one fresh login, no error', async () => {
    await deployAndCount(TENANT);
    const port = Number(new URL(sim.url).port);
    await replaceSimulator(sim, {
      port,
      jwtSecret: 'another-secret-another-secret-another-secret-another-secret-0123',
    });
    assert.equal((await deployAndCount(TENANT)).payload, 20);
    assert.equal(sim.countRequests('/api/auth/login'), 1);
  });

  it('an expired kept token is refreshed, not replaced by a login', async () => {
    await deployAndCount(TENANT);
    sim.expireAllTokens();
    assert.equal((await deployAndCount(TENANT)).payload, 20);
    assert.equal(sim.countRequests('/api/auth/login'), 1);
    assert.equal(sim.countRequests('/api/auth/token'), 1);
  });

  it('a deleted connection forgets its tokens', async () => {
    await helper.load(NODES, flow(connectionNode(sim.url), counter), { c1: TENANT });
    const out = message('out');
    inject('n', { payload: COUNT });
    await out;
    assert.equal(tokenCacheSize(), 1);
    // a deploy without the connection: Node-RED closes it with removed = true
    await helper.setFlows(flow(counter) as never, 'full');
    assert.equal(tokenCacheSize(), 0);
  });
});

describe('redeploys through the admin API of a real Node-RED process', function () {
  this.timeout(60000);
  const sim = useSimulator();
  let child: ChildNodeRed;

  before(async () => {
    child = await startChildNodeRed({});
  });
  after(async () => {
    await child?.stop();
  });

  it('10 full deploys of a live flow: one login, and each deploy subscribes again', async () => {
    const flows = (withCredentials: boolean) => [
      { id: 't1', type: 'tab', label: 'redeploy' },
      {
        id: 'c1',
        type: 'tb-connection',
        name: 'sim',
        url: sim.url,
        authMode: 'password',
        timeout: 10,
        ...(withCredentials ? { credentials: TENANT } : {}),
      },
      {
        id: 's1',
        type: 'tb-subscribe',
        z: 't1',
        x: 100,
        y: 100,
        connection: 'c1',
        kind: 'entityCount',
        queryType: 'json',
        query: JSON.stringify(COUNT),
        format: 'flat',
        wires: [],
      },
    ];
    for (let i = 0; i < 10; i++) {
      const sessions = sim.ws.connections().authenticated;
      const total = sim.ws.connections().total;
      const res = await fetch(`${child.url}/flows`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', 'Node-RED-Deployment-Type': 'full' },
        body: JSON.stringify(flows(i === 0)), // like the editor: credentials only when they were typed
      });
      assert.ok(res.status === 200 || res.status === 204, `deploy ${i}: ${res.status}`);
      await waitFor(
        () => sim.ws.connections().total > total && sim.ws.connections().authenticated >= Math.min(1, sessions + 1),
        10000,
      );
    }
    await waitFor(() => sim.ws.connections().authenticated === 1, 10000);
    assert.equal(sim.countRequests('/api/auth/login'), 1);
    assert.equal(sim.ws.connections().total, 10);
  });
});
