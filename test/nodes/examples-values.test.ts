/**
 * The values-from-the-message examples as shipped in examples/ (issue 17), run in the real runtime against the
 * simulator: a web request names a device and is answered with its state; a message names a site and its active
 * alarms are counted. No function node in either.
 */
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { NodeAPI } from 'node-red';
import { BASE_TIME } from '../../sim';
import tbAlarmQuery from '../../src/nodes/tb-alarm-query/index';
import tbConnection from '../../src/nodes/tb-connection/index';
import tbEntityQuery from '../../src/nodes/tb-entity-query/index';
import tbSubscribe from '../../src/nodes/tb-subscribe/index';
import { Collector, helper, inject, key, loadExample, statuses, useRuntime } from '../support/runtime';

type Rec = Record<string, unknown>;

/**
 * The test helper keeps the runtime's http-in routes (RED.httpNode) on an app of its own that no server serves:
 * this node module takes it when the flow loads, and a loopback server serves it for the test's requests.
 */
let httpNode: http.RequestListener | undefined;
function takeHttpNode(RED: NodeAPI): void {
  httpNode = RED.httpNode as unknown as http.RequestListener;
}
async function serveHttpNodes(): Promise<{ url: string; close: () => Promise<void> }> {
  const server = http.createServer((req, res) => (httpNode as http.RequestListener)(req, res));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

describe('examples: values from the message (runtime + simulator)', function () {
  this.timeout(30000);
  const sim = useRuntime({ now: () => BASE_TIME + 30 * 60000 }, { perTest: true, server: true });

  it('Reply with the state of the device named in a request: GET /device-state?name=… answers JSON, no name answers 400', async () => {
    const byName = await loadExample(
      'Reply with the state of the device named in a request.json',
      sim.url,
      [tbConnection, tbEntityQuery, takeHttpNode],
      ['network/21-httpin.js', 'function/15-change.js'],
    );
    assert.equal(byName('the device named in the request').type, 'tb-entity-query');
    const server = await serveHttpNodes();
    try {
      await replies(server.url);
    } finally {
      await server.close();
    }
  });

  async function replies(base: string): Promise<void> {
    let res = await fetch(`${base}/device-state?name=${encodeURIComponent('Thermo A-101')}`);
    assert.equal(res.status, 200);
    const rows = (await res.json()) as Rec[];
    assert.deepEqual(
      rows.map((r) => r.name),
      ['Thermo A-101'],
    );
    assert.equal(rows[0].temperature, 21.5);
    res = await fetch(`${base}/device-state?name=${encodeURIComponent('Thermo A')}`);
    assert.ok(((await res.json()) as Rec[]).length > 1, 'a name filter matches the names that start with it');
    const before = sim.countRequests('/api/entitiesQuery/find');
    res = await fetch(`${base}/device-state`);
    assert.equal(res.status, 400);
    assert.match(
      await res.text(),
      /query\.entityFilter\.entityNameFilter is bound to msg\.req\.query\.name, which is undefined/,
    );
    assert.equal(sim.countRequests('/api/entitiesQuery/find'), before, 'no request without a name');
  }

  it("Count the alarms of the site named in a message: the site found by name, its devices' active alarms of the flow's severities", async () => {
    const byName = await loadExample(
      'Count the alarms of the site named in a message.json',
      sim.url,
      [tbConnection, tbEntityQuery, tbAlarmQuery],
      ['common/20-inject.js', 'function/15-change.js'],
    );
    const counts = new Collector(byName('active alarms of the site').id);
    const errors = new Collector(byName('error').id);
    // the inject "at deploy" sets flow.severities once
    const site = byName('the site named in msg.payload');
    await new Promise<void>((resolve, reject) => {
      const deadline = Date.now() + 5000;
      const poll = () => {
        if (helper.getNode(site.id).context().flow.get('severities')) return resolve();
        if (Date.now() > deadline) return reject(new Error('flow.severities was not set'));
        setTimeout(poll, 20);
      };
      poll();
    });
    inject(site.id, { payload: 'Building Alpha' });
    const alpha = (await counts.until(() => true, 8000)).payload as number;
    // what the server counts for the same query, with the asset's id and the severities filled in by hand
    const asset = sim.data.mustFindByName('ASSET', 'Building Alpha');
    const res = await fetch(`${sim.url}/api/alarmsQuery/count`, {
      method: 'POST',
      headers: {
        'Content-Type': 'application/json',
        'X-Authorization': `Bearer ${sim.tokensFor('tenant@thingsboard.org').token}`,
      },
      body: JSON.stringify({
        entityFilter: {
          type: 'relationsQuery',
          rootEntity: { entityType: 'ASSET', id: asset.id },
          direction: 'FROM',
          maxLevel: 3,
          fetchLastLevelOnly: false,
          filters: [{ relationType: 'Contains', entityTypes: ['DEVICE'] }],
        },
        statusList: ['ACTIVE'],
        severityList: ['CRITICAL', 'MAJOR'],
        keyFilters: [],
      }),
    });
    assert.equal(alpha, await res.json());
    assert.ok(alpha > 0, `Building Alpha has active critical or major alarms (got ${alpha})`);
    inject(site.id, { payload: 'Building Omega' });
    const error = (await errors.until(() => true, 8000)).error as Rec;
    assert.match(String(error.message), /rootEntity\.id is bound to msg\.payload\[0\]\.id, which is undefined/);
  });

  it('Follow the device chosen by a message: idle until a name comes, then a live table of that device, replaced by the next name', async () => {
    const byName = await loadExample(
      'Follow the device chosen by a message.json',
      sim.url,
      [tbConnection, tbSubscribe],
      ['common/20-inject.js'],
    );
    const follow = byName('the device named in msg.payload');
    const st = statuses(follow.id);
    assert.deepEqual(st[st.length - 1], { fill: 'grey', shape: 'ring', text: key('idle') });
    const shown = new Collector(byName('followed device').id);
    inject(follow.id, { payload: 'Thermo A-101' });
    let snap = await shown.until((m) => m.event === 'snapshot', 8000, true);
    assert.deepEqual(
      (snap.payload as Rec[]).map((r) => r.name),
      ['Thermo A-101'],
    );
    inject(follow.id, { payload: 'Thermo Lab' });
    snap = await shown.until((m) => m.event === 'snapshot');
    assert.deepEqual(
      (snap.payload as Rec[]).map((r) => r.name),
      ['Thermo Lab'],
    );
    sim.data.setTelemetry(sim.data.mustFindByName('DEVICE', 'Thermo Lab').id, { temperature: 19.5 }, Date.now());
    const u = await shown.until((m) => m.event === 'update');
    assert.equal((u.payload as Rec).name, 'Thermo Lab');
    assert.equal((u.payload as Rec).temperature, 19.5);
  });
});
