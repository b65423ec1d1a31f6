/**
 * tb-api in the real Node-RED runtime against the simulator: any REST call through the connection. The answer read
 * by its type (JSON, text, a file as a Buffer with its name and type), msg.statusCode, msg.headers and msg.api; the
 * placeholders of path and query (a value encoded, a dot segment refused); what the message gives when the node
 * leaves it empty; a path under /api/noauth/ sent without the token; a path that would leave the server (an address,
 * a host, a ".." out of /api/) refused before anything is sent, to the server or to that other host; the server's
 * refusals at Catch with its own message and status (JSON, plain text, no body, the 413 string); the login renewed,
 * retries only where the method allows, and the connection's largest answer.
 */
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import tbApi from '../../src/nodes/tb-api/index';
import tbConnection from '../../src/nodes/tb-connection/index';
import { assertCode, flowsOn, key, lastStatus, useRuntime, warningsOf, type Msg, type Rec } from '../support/runtime';

const api = (id: string, props: Rec = {}): Rec => ({
  id,
  type: 'tb-api',
  connection: 'c1',
  wires: [['out']],
  ...props,
});
const FAST_RETRIES = { tbConnectionRetryInitialMs: 5, tbConnectionRetryMaxMs: 20 };
const MISSING = '00000000-0000-4000-a000-000000000001';

describe('tb-api: any REST call through the connection (runtime + simulator)', function () {
  const sim = useRuntime(
    {},
    {
      settings: FAST_RETRIES,
      reset: (s) => s.resetRequests(),
      cleanup: (s) => s.faults.clear(),
    },
  );
  const { load, results } = flowsOn(sim, [tbConnection, tbApi]);
  const ok = (id: string, msg: Msg = {}) => results.ok(id, msg);
  const fails = (id: string, msg: Msg, code: string, re?: RegExp) => results.fails(id, msg, code, re);
  const packages = () => sim.generic.otaPackages();

  it('a GET with a query: the JSON answer in msg.payload, with msg.statusCode, msg.headers and msg.api', async () => {
    await load([api('a', { method: 'GET', path: '/api/audit/logs', query: 'pageSize=2&page=0' })]);
    const out = await ok('a', { payload: 'kept out: a GET sends no body', topic: 'kept' });
    const page = out.payload as { data: Array<{ actionType: string }>; totalElements: number };
    assert.equal(page.totalElements, 6);
    assert.deepEqual(
      page.data.map((l) => l.actionType),
      ['UPDATED', 'UPDATED'],
    );
    assert.equal(out.statusCode, 200);
    assert.match(String((out.headers as Rec)['content-type']), /^application\/json/);
    assert.deepEqual(out.api, { method: 'GET', path: '/api/audit/logs?pageSize=2&page=0' });
    assert.equal(out.topic, 'kept', 'the rest of the message is kept');
    assert.equal(out.filename, undefined);
    assert.deepEqual(lastStatus('a'), { fill: 'green', shape: 'dot', text: key('apiJson') });
  });

  it('a file: a Buffer with its name and content type; a file the server names is a file even when it is JSON', async () => {
    await load([api('a', { path: '/api/otaPackage/{{msg.otaPackageId}}/download' })]);
    const [fw, schedule] = packages();
    const out = await ok('a', { otaPackageId: fw.id });
    assert.ok(Buffer.isBuffer(out.payload));
    assert.ok((out.payload as Buffer).equals(fw.data!), 'the bytes the server holds');
    assert.equal(out.filename, 'thermo-fw-1.2.bin');
    assert.equal(out.contentType, 'application/octet-stream');
    assert.equal((out.headers as Rec)['content-length'], '4096');
    assert.deepEqual(lastStatus('a'), { fill: 'green', shape: 'dot', text: key('apiFileKB') });
    const json = await ok('a', { otaPackageId: schedule.id });
    assert.ok(Buffer.isBuffer(json.payload));
    assert.equal(json.filename, 'schedule.json');
    assert.equal(json.contentType, 'application/json');
    assert.deepEqual(JSON.parse((json.payload as Buffer).toString('utf8')).weekday, { '06:30': 21, '22:00': 17 });
  });

  it("text as text (a customer's title); a placeholder's value is encoded as one segment, never a dot segment", async () => {
    await load([api('a', { path: '/api/customer/{{msg.payload}}/title' })]);
    const a = sim.data.mustFindByName('CUSTOMER', 'Customer A');
    const out = await ok('a', { payload: a.id });
    assert.equal(out.payload, 'Customer A');
    assert.deepEqual(lastStatus('a'), { fill: 'green', shape: 'dot', text: key('apiText') });
    sim.resetRequests();
    // A value with a slash stays one segment (the server reads it as an id, and refuses it).
    const bad = await fails(
      'a',
      { payload: 'x/../../auth/user' },
      'TB_BAD_REQUEST',
      /Invalid UUID string: x\/\.\.\/\.\.\/auth\/user/,
    );
    assert.equal((bad.msg.api as Rec).path, '/api/customer/x%2F..%2F..%2Fauth%2Fuser/title');
    assert.equal(bad.msg.statusCode, 400);
    await fails(
      'a',
      { payload: '..' },
      'TB_INVALID_INPUT',
      /\{\{msg\.payload\}\}, which is "\.\.": that would change the path/,
    );
    await fails('a', {}, 'TB_INVALID_INPUT', /takes \{\{msg\.payload\}\}, which is undefined/);
    assert.equal(sim.countRequests('/api/customer/'), 1, 'only the call with a value that is one segment went out');
  });

  it('method, path and query from the message when the node leaves them empty; the node wins, and says so once', async () => {
    await load([
      api('m', { method: '', path: '', query: '' }),
      api('fixed', { path: '/api/audit/logs', query: 'pageSize=1&page=0' }),
    ]);
    const out = await ok('m', {
      method: 'get',
      path: '/api/audit/logs?pageSize=1',
      query: { page: 0, textSearch: 'rpc' },
    });
    assert.deepEqual(out.api, { method: 'GET', path: '/api/audit/logs?pageSize=1&page=0&textSearch=rpc' });
    assert.equal((out.payload as { data: Array<{ actionType: string }> }).data[0].actionType, 'RPC_CALL');
    // msg.path is the path itself: its braces are text, not placeholders
    const braces = await fails('m', { path: '/api/customer/{{msg.x}}/title', x: 'no' }, 'TB_BAD_REQUEST');
    assert.match(String((braces.msg.api as Rec).path), /%7B%7Bmsg\.x%7D%7D/);
    await fails('m', {}, 'TB_INVALID_INPUT', /^TbInputError: Set the path in the node, or send it in msg\.path/);
    await fails('m', { path: '/api/x', method: 'HEAD' }, 'TB_INVALID_INPUT', /msg\.method must be one of GET, POST/);
    await ok('fixed', { path: '/api/elsewhere', method: 'DELETE', query: { page: 3 } });
    await ok('fixed', { path: '/api/elsewhere' });
    assert.equal(sim.countRequests('/api/elsewhere'), 0);
    const warned = warningsOf('fixed');
    assert.equal(warned.filter((w) => w.startsWith('msg.path is ignored')).length, 1, 'once');
    assert.equal(warned.filter((w) => w.startsWith('msg.method is ignored')).length, 1);
    assert.equal(warned.filter((w) => w.startsWith('msg.query is ignored')).length, 1);
  });

  it('a path under /api/noauth/ goes without the token (the simulator sees no credential); the others with it', async () => {
    await load([
      api('free', { path: '/api/noauth/userPasswordPolicy' }),
      api('logs', { path: '/api/audit/logs?pageSize=1&page=0' }),
    ]);
    const before = sim.generic.seen().length;
    const out = await ok('free');
    assert.equal((out.payload as Rec).minimumLength, 6);
    await ok('logs');
    assert.deepEqual(
      sim.generic
        .seen()
        .slice(before)
        .map((s) => [s.path, s.authorization]),
      [
        ['/api/noauth/userPasswordPolicy', false],
        ['/api/audit/logs', true],
      ],
    );
  });

  describe('only this connection server: refused before anything is sent', () => {
    /** Another host on loopback, counting what reaches it (nothing must). */
    let other: http.Server;
    let otherHits = 0;
    let otherPort = 0;
    before(async () => {
      other = http.createServer((req, res) => {
        otherHits++;
        res.end('{}');
      });
      await new Promise<void>((r) => other.listen(0, '127.0.0.1', r));
      otherPort = (other.address() as AddressInfo).port;
    });
    after(async () => {
      other.closeAllConnections();
      await new Promise<void>((r) => other.close(() => r()));
    });

    it("an address, a host or a '..' out of /api/ in the node: a deploy-time problem, every message refused, nothing sent", async () => {
      const paths = [
        `http://127.0.0.1:${otherPort}/api/audit/logs`,
        `//127.0.0.1:${otherPort}/api/audit/logs`,
        `127.0.0.1:${otherPort}/api/audit/logs`,
        '/api/../login',
        '/api/%2e%2e/login',
      ];
      await load(paths.map((p, i) => api(`n${i}`, { path: p })));
      sim.resetRequests();
      for (let i = 0; i < paths.length; i++) {
        assert.deepEqual(lastStatus(`n${i}`), { fill: 'red', shape: 'dot', text: key('configError') }, paths[i]);
        const { error } = await fails(`n${i}`, { payload: 1 }, 'TB_CONFIG', /path/);
        assert.doesNotMatch(String(error.message), /Bearer|eyJ/, 'no token in the error');
      }
      assert.equal(otherHits, 0, 'the other host never heard of it');
      assert.equal(sim.requests.total, 0, 'nor the server: not even a login');
    });

    it('the same from the message (msg.path) or a placeholder: refused naming the field, nothing sent', async () => {
      await load([api('m', { path: '' }), api('p', { path: '{{msg.where}}' })]);
      sim.resetRequests();
      for (const where of [
        `http://127.0.0.1:${otherPort}/api/x`,
        `//127.0.0.1:${otherPort}/api/x`,
        '/api/../../x',
        '/x',
      ]) {
        await fails('m', { path: where }, 'TB_INVALID_INPUT', /^TbInputError: msg\.path /);
        await fails('p', { where }, 'TB_INVALID_INPUT', /path \(from \{\{msg\.where\}\}\)/);
        assert.equal(lastStatus('m')!.text, key('invalidInput'));
      }
      assert.equal(otherHits, 0);
      assert.equal(sim.requests.total, 0);
      // and the node keeps working
      const out = await ok('m', { path: '/api/noauth/userPasswordPolicy' });
      assert.equal(out.statusCode, 200);
    });
  });

  describe("the server's refusals at Catch, with its own message and status", () => {
    it('JSON error bodies, plain-text 403 and 404, a 400 with no body; msg.statusCode and msg.api at Catch', async () => {
      await load([api('a', { path: '{{msg.p}}' })]);
      const json = await fails('a', { p: `/api/otaPackage/${MISSING}/download` }, 'TB_NOT_FOUND');
      assert.match(String(json.error.message), /HTTP 404, errorCode 32: Ota package with id \[.*\] is not found/);
      assert.equal(json.msg.statusCode, 404);
      assert.deepEqual(json.msg.api, { method: 'GET', path: `/api/otaPackage/${MISSING}/download` });
      const plain404 = await fails(
        'a',
        { p: `/api/plugins/telemetry/DEVICE/${MISSING}/values/timeseries` },
        'TB_NOT_FOUND',
      );
      assert.match(String(plain404.error.message), /HTTP 404: Device with requested id wasn't found!/);
      const url = packages()[2];
      const empty = await fails('a', { p: `/api/otaPackage/${url.id}/download` }, 'TB_BAD_REQUEST');
      assert.match(
        String(empty.error.message),
        /ThingsBoard answered HTTP 400 \(GET \/api\/otaPackage\/.*\/download\)$/,
      );
      assert.equal(lastStatus('a')!.text, key('httpError'));
    });

    it('a customer user: the plain-text 403 of a device it may not read, the JSON 403 of the audit log', async () => {
      await load([api('a', { path: '{{msg.p}}' })], { username: 'customer@thingsboard.org', password: 'customer' });
      const dev = sim.data.mustFindByName('DEVICE', 'Thermo B-101'); // Customer B's
      const plain = await fails(
        'a',
        { p: `/api/plugins/telemetry/DEVICE/${dev.id}/values/timeseries` },
        'TB_PERMISSION',
      );
      assert.match(String(plain.error.message), /HTTP 403: You don't have permission to perform this operation!/);
      assert.equal(plain.msg.statusCode, 403);
      const json = await fails('a', { p: '/api/audit/logs?pageSize=1&page=0' }, 'TB_PERMISSION');
      assert.match(String(json.error.message), /HTTP 403, errorCode 20: You don't have permission/);
    });

    it('a body over 16 MB: the 413 text the server sends as a JSON string', async () => {
      await load([api('a', { method: 'POST', path: `/api/plugins/telemetry/DEVICE/${MISSING}/timeseries/ANY` })]);
      const big = { filler: 'x'.repeat(16 * 1024 * 1024) };
      const r = await fails(
        'a',
        { payload: big },
        'TB_HTTP_ERROR',
        /HTTP 413: Payload size exceeds the limit of 16777216 bytes/,
      );
      assert.equal(r.msg.statusCode, 413);
    });
  });

  describe('bodies, login, retries and the largest answer', () => {
    it('a POST sends msg.payload as JSON, or the fixed JSON; a body that is not JSON is refused, nothing sent', async () => {
      const dev = sim.data.mustFindByName('DEVICE', 'Thermo A-101');
      const path = `/api/plugins/telemetry/DEVICE/${dev.id}/timeseries/ANY`;
      await load([
        api('p', { method: 'POST', path, bodyFrom: 'payload' }),
        api('j', { method: 'POST', path, bodyFrom: 'json', body: '{"ts": 1767225600000, "values": {"apiFixed": 5}}' }),
      ]);
      const out = await ok('p', { payload: { ts: 1767225600000, values: { apiKey: 7 } } });
      assert.equal(out.statusCode, 200);
      assert.equal(out.payload, null, 'the save answers no body');
      assert.deepEqual(lastStatus('p'), { fill: 'green', shape: 'dot', text: key('apiEmpty') });
      assert.equal(sim.data.latestOf(dev.id, 'apiKey')?.value, 7);
      await ok('j', { payload: 'ignored' });
      assert.equal(sim.data.latestOf(dev.id, 'apiFixed')?.value, 5);
      sim.resetRequests();
      await fails('p', { payload: 'not json' }, 'TB_INVALID_INPUT', /msg\.payload is text that is not JSON/);
      await fails('p', { payload: Buffer.from('{}') }, 'TB_INVALID_INPUT', /msg\.payload is a Buffer/);
      assert.equal(sim.requests.total, 0);
    });

    it("an inject's timestamp sent as a body is told once; a fixed body that is not JSON is a deploy-time problem", async () => {
      const dev = sim.data.mustFindByName('DEVICE', 'Thermo A-102');
      await load([
        api('p', { method: 'POST', path: `/api/plugins/telemetry/DEVICE/${dev.id}/timeseries/ANY` }),
        api('bad', { method: 'POST', path: '/api/x', bodyFrom: 'json', body: '{nope' }),
      ]);
      await fails('p', { payload: Date.now() }, 'TB_BAD_REQUEST');
      await fails('p', { payload: Date.now() }, 'TB_BAD_REQUEST');
      assert.equal(warningsOf('p').filter((w) => /looks like a timestamp/.test(w)).length, 1);
      await fails('bad', {}, 'TB_CONFIG', /body is not valid JSON/);
    });

    it('an expired token is renewed and the call sent again; the answer comes', async () => {
      await load([api('a', { path: '/api/audit/logs?pageSize=1&page=0' })]);
      await ok('a');
      sim.expireAllTokens();
      const out = await ok('a');
      assert.equal(out.statusCode, 200);
      assert.ok(sim.countRequests('/api/auth/') >= 2, 'signed in again (or refreshed)');
    });

    it('a GET is retried through 503; a POST is not (it may have been done): one request, the error at Catch', async () => {
      const dev = sim.data.mustFindByName('DEVICE', 'Thermo A-103');
      const path = `/api/plugins/telemetry/DEVICE/${dev.id}/timeseries/ANY`;
      await load([api('g', { path: '/api/audit/logs?pageSize=1&page=0' }), api('p', { method: 'POST', path })]);
      await ok('g');
      sim.resetRequests();
      sim.faults.add({ path: '/api/audit/logs', status: 503 });
      await ok('g');
      assert.equal(sim.countRequests('/api/audit/logs'), 2, 'the fault, then the answer');
      sim.faults.add({ path, status: 503 });
      const r = await fails('p', { payload: { apiRetry: 1 } }, 'TB_UNAVAILABLE', /not sent again/);
      assert.equal(r.msg.statusCode, 503);
      assert.equal(sim.countRequests(path), 1, 'never sent twice');
    });

    it("an answer over the connection's largest answer is dropped: TB_RESPONSE_TOO_LARGE; the next call works", async () => {
      await load([api('a', { path: '/api/audit/logs?pageSize=1&page=0' })], undefined, { maxResponseMB: 1 });
      sim.faults.add({ path: '/api/audit/logs', bodyBytes: 2 * 1024 * 1024, chunked: true });
      const r = await fails('a', {}, 'TB_RESPONSE_TOO_LARGE', /more than 1 MB/);
      assertCode(r.error, 'TB_RESPONSE_TOO_LARGE');
      assert.equal(lastStatus('a')!.text, key('answerTooLarge'));
      assert.equal((await ok('a')).statusCode, 200);
    });
  });
});
