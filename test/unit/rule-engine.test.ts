/**
 * The rule engine's pure parts: the four paths (the trailing slash of the user's own; the user's id for a queue or a
 * timeout), the HTTP wait, what an error answer means (a plain-text 404 is an entity not found, Spring's own 404 a
 * server without the API), the error texts, and tb-rule-engine's checks of its data, queue and timeout.
 */
import assert from 'node:assert/strict';
import { TbInputError } from '../../src/errors';
import {
  bodyOf,
  checkRuleEngineSettings,
  prepareBodySetting,
  prepareRuleRequest,
} from '../../src/nodes/tb-rule-engine/logic';
import {
  classifyRuleAnswer,
  httpWait,
  needsUserId,
  noReplyText,
  ruleEnginePath,
  tooOldText,
} from '../../src/protocol/rule-engine';
import { OptionReader } from '../../src/settings/options';

const ID = '0f8fad5b-d9cb-469f-a165-70867728950e';
const USER = '5f3c9a10-e71b-11f0-9d7e-8b1f2c3d4e5f';
const device = { kind: 'entity', entity: { entityType: 'DEVICE', id: ID } } as const;
const user = { kind: 'user' } as const;

describe('rule engine: paths, answers, texts', function () {
  it("the user's own path keeps its trailing slash; a queue or a timeout goes as USER with the user's id", function () {
    assert.equal(ruleEnginePath(user, { queue: undefined, timeout: undefined }), '/api/rule-engine/');
    assert.equal(needsUserId(user, { queue: undefined, timeout: undefined }), false);
    assert.equal(needsUserId(user, { queue: undefined, timeout: 5000 }), true);
    assert.equal(ruleEnginePath(user, { queue: undefined, timeout: 5000 }, USER), `/api/rule-engine/USER/${USER}/5000`);
    assert.throws(() => ruleEnginePath(user, { queue: 'Main', timeout: undefined }), /the user id is needed/);
  });

  it('an entity: its path, with the timeout, with the queue (and 10 s when only a queue is set), encoded', function () {
    assert.equal(ruleEnginePath(device, { queue: undefined, timeout: undefined }), `/api/rule-engine/DEVICE/${ID}`);
    assert.equal(ruleEnginePath(device, { queue: undefined, timeout: 2500 }), `/api/rule-engine/DEVICE/${ID}/2500`);
    assert.equal(
      ruleEnginePath(device, { queue: 'High Priority', timeout: 3000 }),
      `/api/rule-engine/DEVICE/${ID}/High%20Priority/3000`,
    );
    assert.equal(
      ruleEnginePath(device, { queue: 'Main', timeout: undefined }),
      `/api/rule-engine/DEVICE/${ID}/Main/10000`,
    );
  });

  it('the HTTP wait: the timeout (or the server cut, 30 s) plus a margin, never below the connection timeout', function () {
    assert.equal(httpWait(5000, 30000), 30000);
    assert.equal(httpWait(25000, 30000), 35000);
    assert.equal(httpWait(undefined, 30000), 40000);
    assert.equal(httpWait(undefined, 60000), 60000);
  });

  it('what an error answer means', function () {
    assert.equal(classifyRuleAnswer(408, undefined, undefined), 'noReply');
    assert.equal(classifyRuleAnswer(500, 'Request timeout', 2), 'noReply');
    assert.equal(classifyRuleAnswer(500, 'Something else', 2), undefined);
    assert.equal(classifyRuleAnswer(406, undefined, undefined), 'badReply');
    // Spring's own 404 ({"error": "Not Found"}: no message of ThingsBoard's) is a missing endpoint…
    assert.equal(classifyRuleAnswer(404, undefined, undefined), 'missing');
    // … a plain-text 404 of the access check, and ThingsBoard's JSON 404, an entity not found.
    assert.equal(classifyRuleAnswer(404, "Device with requested id wasn't found!", undefined), undefined);
    assert.equal(classifyRuleAnswer(404, "Requested item wasn't found!", 32), undefined);
    assert.equal(classifyRuleAnswer(403, "You don't have permission to perform this operation!", undefined), undefined);
  });

  it('the texts put the fix first and name the chain, the originator and the wait', function () {
    assert.match(
      noReplyText(device, 5000, 408),
      /^Add a "rest call reply" node where the rule chain of the device's profile \(else the root rule chain\) handles "REST API request" messages, and keep the message's metadata \(serviceId, requestUUID\) on the way: nothing answered the message from DEVICE 0f8fad5b-.* within 5 s \(HTTP 408\)$/,
    );
    assert.match(
      noReplyText(user, undefined, 408),
      /tenant's root rule chain.*connection's user within the server's timeout/,
    );
    assert.match(
      tooOldText('3.7.0'),
      /^Use ThingsBoard 3\.8 or newer .*: This ThingsBoard server \(3\.7\.0\) has no rule engine API/,
    );
    assert.match(tooOldText(null), /: This ThingsBoard server has no rule engine API/);
  });
});

describe("tb-rule-engine's checks", function () {
  const read = (node: Record<string, unknown>, msg: Record<string, unknown> = {}) =>
    prepareRuleRequest('{}', new OptionReader(node, msg));

  it('the data: msg.payload as JSON text (undefined refused), or fixed JSON checked at deploy', function () {
    const payload = prepareBodySetting('payload', '');
    assert.deepEqual(bodyOf(payload, 'hi'), { text: '"hi"', field: 'msg.payload', value: 'hi' });
    assert.deepEqual(bodyOf(payload, null), { text: 'null', field: 'msg.payload', value: null });
    assert.throws(
      () => bodyOf(payload, undefined),
      (e: TbInputError) => e.field === 'msg.payload',
    );
    assert.throws(() => bodyOf(payload, () => 1), /msg\.payload cannot be sent as JSON/);
    assert.throws(() => bodyOf(payload, 10n), /msg\.payload cannot be sent as JSON/);
    const fixed = prepareBodySetting('json', '{"a": 1}');
    assert.deepEqual(bodyOf(fixed, 'ignored'), { text: '{"a":1}', field: 'body', value: { a: 1 } });
    assert.deepEqual(prepareBodySetting('', undefined), { from: 'payload' });
    assert.throws(
      () => prepareBodySetting('json', ''),
      (e: TbInputError) => e.field === 'body' && /body is empty/.test(e.message),
    );
    assert.throws(() => prepareBodySetting('json', '{a'), /body is not valid JSON/);
    assert.throws(() => prepareBodySetting('file', ''), /bodyFrom must be one of payload, json/);
  });

  it('queue and timeout: the node first, then the message; refused before sending when the server could not take them', function () {
    assert.deepEqual(read({}), { body: '{}', queue: undefined, timeout: undefined });
    assert.deepEqual(read({ queue: ' HighPriority ', timeout: '5s' }), {
      body: '{}',
      queue: 'HighPriority',
      timeout: 5000,
    });
    assert.deepEqual(read({ queue: '', timeout: '' }, { queue: 'Main', timeout: 2500 }), {
      body: '{}',
      queue: 'Main',
      timeout: 2500,
    });
    assert.equal(read({ timeout: '29s' }).timeout, 29000);
    assert.throws(() => read({ timeout: '30s' }), /timeout is 30 s: make it 29 s or less/);
    assert.throws(
      () => read({}, { timeout: 'soon' }),
      (e: TbInputError) => e.field === 'msg.timeout',
    );
    assert.throws(() => read({ timeout: '0' }), /timeout must be at least 1 ms/);
    assert.throws(() => read({}, { queue: 'a/b' }), /msg\.queue must be a queue's name/);
    assert.throws(() => read({}, { queue: 7 }), /msg\.queue must be a queue's name/);
  });

  it("the dialog's check is the runtime's", function () {
    assert.doesNotThrow(() => checkRuleEngineSettings({ bodyFrom: 'payload', queue: '', timeout: '' }));
    assert.throws(() => checkRuleEngineSettings({ bodyFrom: 'json', body: '{' }), /body is not valid JSON/);
    assert.throws(() => checkRuleEngineSettings({ timeout: '1m' }), /timeout is 1 min/);
  });
});
