/**
 * The generic call's pure rules: a path stays under /api/ on the connection's server (no address, no host, no ".."
 * out of /api/, escaped dots and backslashes too), placeholders inside a path or query are encoded and never a dot
 * segment, a query from text or an object, the method, the body of each message, the answer read by its type, and
 * the suggestions by server version and authority.
 */
import assert from 'node:assert/strict';
import { TbInputError } from '../../src/errors';
import { bodyOf, checkApiSettings, prepareBodySetting } from '../../src/nodes/tb-api/logic';
import { deliveryOf, dispositionName, readAnswer } from '../../src/platform/api-call';
import {
  fillPathTemplate,
  isNoAuthPath,
  parseQueryText,
  pathWithQuery,
  preparePath,
  preparePathTemplate,
  prepareMethod,
  queryFromValue,
} from '../../src/protocol/api-call';
import { suggestionsFor, versionAtLeast } from '../../src/protocol/api-paths';

function refused(fn: () => unknown, field: string, re: RegExp): void {
  assert.throws(fn, (e: unknown) => {
    assert.ok(e instanceof TbInputError, String(e));
    assert.equal(e.field, field);
    assert.match(e.message, re);
    return true;
  });
}

describe('generic call: paths stay on the server, under /api/', () => {
  it('a path under /api/ is kept (a leading api/ gets its slash; spaces encoded; a ".." inside /api/ resolved)', () => {
    assert.equal(preparePath('/api/tenant/devices', 'path'), '/api/tenant/devices');
    assert.equal(preparePath('api/audit/logs', 'path'), '/api/audit/logs');
    assert.equal(preparePath(' /api/a b/c ', 'path'), '/api/a%20b/c');
    assert.equal(preparePath('/api/a/../b', 'path'), '/api/b');
    assert.equal(preparePath('/api/rule-engine/', 'path'), '/api/rule-engine/', 'the trailing slash the server needs');
    assert.equal(preparePath('/api/x/%41', 'path'), '/api/x/%41', 'an escape already made is kept');
  });

  it('an absolute URL, a protocol-relative one, a host in front, a backslash: refused, naming the field', () => {
    refused(() => preparePath('https://evil.example.com/api/x', 'path'), 'path', /an address, not a path/);
    refused(() => preparePath('http://127.0.0.1:8080/api/x', 'path'), 'path', /an address/);
    refused(() => preparePath('//evil.example.com/api/x', 'path'), 'path', /an address/);
    refused(() => preparePath('evil.example.com/api/x', 'path'), 'path', /starts with a server name/);
    refused(() => preparePath('localhost:8080/api/x', 'path'), 'path', /server name|address/);
    refused(() => preparePath('/api\\..\\..\\x', 'path'), 'path', /backslash/);
    refused(() => preparePath('javascript:alert(1)', 'path'), 'path', /an address/);
  });

  it('a ".." that leaves /api/ is refused, escaped or not; a path outside /api/ too', () => {
    refused(() => preparePath('/api/../login', 'path'), 'path', /leaves \/api\//);
    refused(() => preparePath('/api/x/../../y', 'path'), 'path', /leaves \/api\//);
    refused(() => preparePath('/api/%2e%2e/x', 'path'), 'path', /leaves \/api\//);
    refused(() => preparePath('/api/%2E%2e', 'path'), 'path', /leaves \/api\//);
    refused(() => preparePath('/api/..', 'path'), 'path', /leaves \/api\//);
    refused(() => preparePath('/login', 'path'), 'path', /must start with \/api\//);
    refused(() => preparePath('', 'msg.path'), 'msg.path', /needs the path.*\(it is empty\)/);
    refused(() => preparePath('/api/x#frag', 'path'), 'path', /fragment/);
    refused(() => preparePath('/api/x\ny', 'path'), 'path', /control character/);
  });

  it('a call that answers with sign-in tokens is refused: no token travels in a message', () => {
    refused(() => preparePath('/api/auth/login', 'path'), 'path', /^path: call the API you need directly.*tokens/);
    refused(() => preparePath('/api/auth/login/public', 'path'), 'path', /sign-in tokens/);
    refused(() => preparePath('/api/auth/token', 'msg.path'), 'msg.path', /sign-in tokens/);
    refused(() => preparePath('/api/user/784f394c-42b6-435a-983c-b7beff2784f9/token', 'path'), 'path', /tokens/);
    refused(() => preparePath('/api/x/../auth/login', 'path'), 'path', /sign-in tokens/);
    // A placeholder in it: refused at deploy already.
    refused(() => preparePathTemplate('/api/user/{{msg.id}}/token', '', 'path', 'query'), 'path', /sign-in tokens/);
    const whole = preparePathTemplate('{{msg.path}}', '', 'path', 'query');
    refused(
      () => fillPathTemplate(whole, () => '/api/auth/token', 'path', 'query'),
      'path (from {{msg.path}})',
      /tokens/,
    );
    assert.equal(preparePath('/api/auth/user', 'path'), '/api/auth/user', 'who the connection is: no token in it');
    assert.equal(preparePath('/api/user/tokenAccessEnabled', 'path'), '/api/user/tokenAccessEnabled');
  });

  it('a placeholder inside the path is one encoded segment, never a dot segment; a whole one is the path itself', () => {
    const t = preparePathTemplate('/api/device/{{msg.id}}/x', '', 'path', 'query');
    const fill = (v: unknown) => fillPathTemplate(t, () => v, 'path', 'query').path;
    assert.equal(fill('A/B ?#'), '/api/device/A%2FB%20%3F%23/x');
    assert.equal(fill(42), '/api/device/42/x');
    refused(() => fill('..'), 'path', /"\.\.": that would change the path/);
    refused(() => fill(undefined), 'path', /takes \{\{msg\.id\}\}, which is undefined/);
    refused(() => fill(''), 'path', /which is empty/);
    refused(() => fill({ a: 1 }), 'path', /an object/);
    const whole = preparePathTemplate('{{msg.path}}', 'page=0', 'path', 'query');
    const w = fillPathTemplate(whole, () => '/api/tenant/devices?pageSize=5', 'path', 'query');
    assert.equal(pathWithQuery(w.path, w.query), '/api/tenant/devices?pageSize=5&page=0');
    refused(
      () => fillPathTemplate(whole, () => 'https://evil.example.com/api/x', 'path', 'query'),
      'path (from {{msg.path}})',
      /an address/,
    );
  });

  it('at deploy, a template that could only be an address or leave /api/ is refused before any message', () => {
    refused(() => preparePathTemplate('https://{{msg.host}}/api/x', '', 'path', 'query'), 'path', /an address/);
    refused(() => preparePathTemplate('{{msg.host}}/api/x', '', 'path', 'query'), 'path', /must start with \/api\//);
    refused(() => preparePathTemplate('/api/../{{msg.x}}', '', 'path', 'query'), 'path', /leaves \/api\//);
    refused(() => preparePathTemplate('/api/x', '=5', 'path', 'query'), 'query', /without a name/);
  });

  it('the query: text decoded then encoded once, values from placeholders encoded; msg.query as an object', () => {
    assert.deepEqual(parseQueryText('a=1&b=two words&c=two%20words&d'), [
      ['a', '1'],
      ['b', 'two words'],
      ['c', 'two words'],
      ['d', ''],
    ]);
    const t = preparePathTemplate('/api/x?pageSize=10', 'textSearch={{msg.name}}&page=0', 'path', 'query');
    const f = fillPathTemplate(t, () => 'A&B=C', 'path', 'query');
    assert.equal(pathWithQuery(f.path, f.query), '/api/x?pageSize=10&textSearch=A%26B%3DC&page=0');
    assert.deepEqual(queryFromValue({ pageSize: 10, keys: ['a', 'b'], skip: null }, 'msg.query'), [
      ['pageSize', '10'],
      ['keys', 'a'],
      ['keys', 'b'],
    ]);
    assert.deepEqual(queryFromValue('?a=1', 'msg.query'), [['a', '1']]);
    refused(() => queryFromValue([1], 'msg.query'), 'msg.query', /an object of names and values/);
    refused(() => queryFromValue({ a: { b: 1 } }, 'msg.query'), 'msg.query.a', /not an object/);
  });

  it('/api/noauth/ paths need no login; the method is one of five, any case', () => {
    assert.equal(isNoAuthPath('/api/noauth/userPasswordPolicy'), true);
    assert.equal(isNoAuthPath('/api/noauthx'), false);
    assert.equal(prepareMethod('get', 'msg.method'), 'GET');
    refused(() => prepareMethod('HEAD', 'msg.method'), 'msg.method', /one of GET, POST, PUT, PATCH, DELETE/);
  });
});

describe('generic call: body, retries, answers, suggestions', () => {
  it('the body: none for a GET; msg.payload as JSON (text must be JSON already); the fixed JSON as typed', () => {
    const payload = prepareBodySetting('payload', '');
    assert.equal(bodyOf(payload, 'GET', { a: 1 }), undefined);
    assert.equal(bodyOf(payload, 'POST', { a: 1 }), '{"a":1}');
    assert.equal(bodyOf(payload, 'POST', undefined), undefined);
    assert.equal(bodyOf(payload, 'PUT', '{"a": 1}'), '{"a": 1}');
    assert.equal(bodyOf(payload, 'POST', 7), '7');
    refused(() => bodyOf(payload, 'POST', 'hello'), 'msg.payload', /text that is not JSON/);
    refused(() => bodyOf(payload, 'POST', Buffer.from('x')), 'msg.payload', /a Buffer/);
    const circular: Record<string, unknown> = {};
    circular.self = circular;
    refused(() => bodyOf(payload, 'POST', circular), 'msg.payload', /cannot be sent as JSON/);
    assert.equal(bodyOf(prepareBodySetting('json', ' {"n": 1} '), 'POST', 'ignored'), '{"n": 1}');
    assert.equal(bodyOf(prepareBodySetting('none', ''), 'POST', { a: 1 }), undefined);
    refused(() => prepareBodySetting('json', '{nope'), 'body', /not valid JSON/);
    refused(() => prepareBodySetting('json', ''), 'body', /body is empty/);
    refused(() => prepareBodySetting('file', ''), 'bodyFrom', /one of payload, json, none/);
  });

  it("the dialog's check names the setting that is wrong", () => {
    refused(() => checkApiSettings({ method: 'GET', path: 'https://x/api/y', query: '' }), 'path', /an address/);
    refused(() => checkApiSettings({ method: 'HEAD', path: '/api/y' }), 'method', /one of/);
    refused(() => checkApiSettings({ method: '', path: '', query: '=1' }), 'query', /without a name/);
    checkApiSettings({ method: '', path: '', query: '', bodyFrom: 'payload' });
    checkApiSettings({ method: 'GET', path: '/api/device/{{msg.id}}', query: 'a={{flow.b}}' });
  });

  it('what may be sent again is decided by the method', () => {
    assert.deepEqual((['GET', 'PUT', 'DELETE', 'POST', 'PATCH'] as const).map(deliveryOf), [
      'default',
      'idempotent',
      'idempotent',
      'once',
      'once',
    ]);
  });

  it('the answer by its type: JSON parsed, text, a file with its name (never a folder), HTML and broken JSON refused', () => {
    const json = readAnswer(200, { 'content-type': 'application/json' }, Buffer.from('{"a":1}'), 'GET /api/x');
    assert.deepEqual([json.kind, json.payload], ['json', { a: 1 }]);
    const num = readAnswer(200, { 'content-type': 'application/json' }, Buffer.from('7'), 'GET /api/x');
    assert.equal(num.payload, 7);
    const text = readAnswer(200, { 'content-type': 'application/text;charset=UTF-8' }, Buffer.from('Customer A'), 'x');
    assert.deepEqual([text.kind, text.payload], ['text', 'Customer A']);
    const file = readAnswer(
      200,
      { 'content-type': 'application/json', 'content-disposition': 'attachment;filename=../../etc/schedule.json' },
      Buffer.from('{}'),
      'x',
    );
    assert.equal(file.kind, 'file');
    assert.ok(Buffer.isBuffer(file.payload));
    assert.equal(file.filename, 'schedule.json', 'its last part only');
    assert.equal(file.contentType, 'application/json');
    const image = readAnswer(200, { 'content-type': 'image/png' }, Buffer.from([1, 2]), 'x');
    assert.deepEqual([image.kind, image.filename, image.contentType], ['file', undefined, 'image/png']);
    const empty = readAnswer(200, {}, undefined, 'x');
    assert.deepEqual([empty.kind, empty.payload], ['empty', null]);
    assert.throws(
      () => readAnswer(200, { 'content-type': 'text/html' }, Buffer.from('<html>'), 'GET /api/x'),
      /an HTML page, not data/,
    );
    assert.throws(
      () => readAnswer(200, { 'content-type': 'application/json' }, Buffer.from('{"a"'), 'GET /api/x'),
      /not the JSON it declares/,
    );
    assert.equal(dispositionName(`attachment; filename*=UTF-8''na%C3%AFve.bin`), 'naïve.bin');
    assert.equal(dispositionName('attachment; filename="a \\"b\\".bin"'), 'a "b".bin');
  });

  it('the suggestions follow the server version and the user authority', () => {
    assert.equal(versionAtLeast('4.3.1.3', '3.8'), true);
    assert.equal(versionAtLeast('3.7.0', '3.8'), false);
    assert.equal(versionAtLeast('4.4.0-SNAPSHOT', '4.4'), true);
    const paths = (v: string | null, a: string | null) => suggestionsFor(v, a).map((s) => s.path);
    assert.ok(paths('4.3.1.3', 'TENANT_ADMIN').includes('/api/rule-engine/'));
    assert.ok(!paths('3.7', 'TENANT_ADMIN').includes('/api/rule-engine/'), 'the rule engine came with 3.8');
    assert.ok(!paths('3.4', 'TENANT_ADMIN').includes('/api/notifications'), 'notifications came with 3.5');
    assert.ok(!paths('4.3.1.3', 'CUSTOMER_USER').includes('/api/audit/logs'), 'a tenant administrator only');
    assert.ok(paths(null, null).length > paths('3.2', 'CUSTOMER_USER').length);
  });
});
