/**
 * The pure parts of tb-attributes, tb-rpc and the entity targets they share with tb-telemetry: every accepted
 * shape and its error, the message-first options, the attribute checks, the RPC options and answers, the
 * persistent-RPC states and the follow timing.
 */
import assert from 'node:assert/strict';
import { TbInputError } from '../../src/errors';
import { flatAttributes, prepareAttributeRequest, prepareScope } from '../../src/nodes/tb-attributes/logic';
import {
  methodFromMessage,
  prepareAction,
  prepareCancelId,
  prepareMethod,
  prepareRpcRequest,
} from '../../src/nodes/tb-rpc/logic';
import { checkAttributeList } from '../../src/protocol/attributes';
import {
  classifyRpcAnswer,
  DEFAULT_EXPIRATION,
  failureReason,
  finalState,
  followDelay,
  replyOf,
} from '../../src/protocol/rpc';
import {
  ACTION_TARGETS,
  entityOut,
  isEntityList,
  NO_ENTITY_FIX,
  prepareTarget,
  prepareTargetEntityType,
  prepareTargets,
  TARGET_ENTITY_TYPES,
  targetEntityTypes,
  targetRules,
  targetsFromMessage,
  TELEMETRY_ENTITY_TYPES,
} from '../../src/protocol/targets';
import {
  boolOption,
  durationOption,
  enumOption,
  intOption,
  keysOption,
  OptionReader,
  timeOption,
} from '../../src/settings/options';
import { throwsInput, U1, U2, U3 } from './helpers';

const NOW = Date.UTC(2026, 0, 1, 12);
const DEVICE = { defaultType: 'DEVICE' };
const ASSET = { defaultType: 'ASSET' };
const RPC_RULES = { defaultType: 'DEVICE', allowed: ['DEVICE'], why: 'RPC goes to devices only' };

/** A TbInputError on `field` whose message starts with the fix (not the field) and holds every fragment. */
function refusedWithFix(fn: () => unknown, field: string, ...fragments: string[]): void {
  assert.throws(fn, (err: unknown) => {
    assert.ok(err instanceof TbInputError, String(err));
    assert.equal(err.field, field);
    assert.match(err.message, /^Set /);
    for (const f of fragments) assert.ok(err.message.includes(f), `${JSON.stringify(f)} in: ${err.message}`);
    return true;
  });
}

describe('query: device actions', () => {
  describe('targets', () => {
    it('an entity id, a flat or raw entity-query item, a REST entity, an alarm (its originator), a UUID', () => {
      const want = { entityType: 'ASSET', id: U1 };
      assert.deepEqual(prepareTarget({ entityType: 'ASSET', id: U1 }, 'msg.entity', DEVICE), want);
      assert.deepEqual(
        prepareTarget({ id: U1, entityType: 'ASSET', name: 'Building Alpha', ts: {} }, 'msg.entity', DEVICE),
        want,
      );
      assert.deepEqual(
        prepareTarget({ entityId: { entityType: 'ASSET', id: U1 }, latest: {} }, 'msg.entity', DEVICE),
        want,
      );
      assert.deepEqual(prepareTarget({ id: { entityType: 'ASSET', id: U1 }, name: 'x' }, 'msg.entity', DEVICE), want);
      // an alarm, flat or raw: the entity that raised it (not the alarm, not the entity the query matched)
      const flatAlarm = {
        id: U2,
        type: 'High Temperature',
        originator: { id: U1, entityType: 'ASSET' },
        entity: { id: U3, entityType: 'CUSTOMER' },
      };
      assert.deepEqual(prepareTarget(flatAlarm, 'msg.entity', DEVICE), want);
      const rawAlarm = {
        id: { entityType: 'ALARM', id: U2 },
        originator: { entityType: 'ASSET', id: U1 },
        entityId: { entityType: 'CUSTOMER', id: U3 },
      };
      assert.deepEqual(prepareTarget(rawAlarm, 'msg.entity', DEVICE), want);
      assert.deepEqual(prepareTarget(` ${U1} `, 'msg.entity', DEVICE), { entityType: 'DEVICE', id: U1 });
      assert.deepEqual(prepareTarget(U1, 'msg.entity', { defaultType: 'ASSET' }), want);
      assert.deepEqual(
        prepareTarget({ id: U1 }, 'msg.entity', DEVICE),
        { entityType: 'DEVICE', id: U1 },
        "an id without a type: the node's type",
      );
    });

    it('errors name where the value was and what is accepted', () => {
      throwsInput(
        () => prepareTarget('thermostat', 'msg.entity', DEVICE),
        'msg.entity',
        'an entity',
        '(got "thermostat")',
      );
      throwsInput(() => prepareTarget(42, 'msg.entity', DEVICE), 'msg.entity', '(got 42)');
      throwsInput(() => prepareTarget({ name: 'x' }, 'msg.entity', DEVICE), 'msg.entity', 'without an id');
      throwsInput(
        () => prepareTarget({ entityType: 'DEVICE', id: 'abc' }, 'msg.entity', DEVICE),
        'msg.entity.id',
        "entity's UUID",
      );
      throwsInput(
        () => prepareTarget({ entityType: 'device', id: U1 }, 'msg.entity', DEVICE),
        'msg.entity.entityType',
        'did you mean "DEVICE"',
      );
      throwsInput(
        () => prepareTarget({ entityType: 7, id: U1 }, 'msg.entity', DEVICE),
        'msg.entity.entityType',
        'entity type',
      );
      throwsInput(
        () => prepareTarget({ entityId: { entityType: 'DEVICE', id: 'x' } }, 'msg.entity', DEVICE),
        'msg.entity.entityId.id',
        'UUID',
      );
    });

    it('refuses types the server cannot store data for (500 "Not Implemented!") and, for RPC, anything but a device', () => {
      throwsInput(
        () => prepareTarget({ entityType: 'DASHBOARD', id: U1 }, 'msg.entity', DEVICE),
        'msg.entity.entityType',
        'DASHBOARD',
        'attributes and time series only for',
      );
      throwsInput(
        () => prepareTarget({ entityType: 'ALARM', id: U1 }, 'msg.entity', DEVICE),
        'msg.entity.entityType',
        'ALARM',
      );
      throwsInput(
        () => prepareTarget({ entityType: 'ASSET', id: U1 }, 'msg.entity', RPC_RULES),
        'msg.entity.entityType',
        'ASSET',
        'RPC goes to devices only',
      );
      assert.ok(TELEMETRY_ENTITY_TYPES.includes('TENANT' as never));
    });

    it('an array acts on each entity (bulk), in order; an empty one is refused; the index is in the field', () => {
      const t = prepareTargets(
        [U1, { entityType: 'ASSET', id: U2 }, { entityId: { entityType: 'DEVICE', id: U3 } }],
        'msg.entity',
        DEVICE,
      );
      assert.equal(t.bulk, true);
      assert.deepEqual(
        t.entities.map((e) => e.id),
        [U1, U2, U3],
      );
      assert.deepEqual(prepareTargets([U1], 'msg.entity', DEVICE), {
        entities: [{ entityType: 'DEVICE', id: U1 }],
        bulk: true,
        field: 'msg.entity',
      });
      assert.deepEqual(prepareTargets(U1, 'msg.entity', DEVICE), {
        entities: [{ entityType: 'DEVICE', id: U1 }],
        bulk: false,
        field: 'msg.entity',
      });
      throwsInput(() => prepareTargets([], 'msg.entity', DEVICE), 'msg.entity', 'empty list');
      throwsInput(() => prepareTargets([U1, 'nope'], 'msg.entity', DEVICE), 'msg.entity[1]', '(got "nope")');
      throwsInput(
        () => prepareTargets([U1, { entityType: 'ASSET', id: U2 }], 'msg.entity', RPC_RULES),
        'msg.entity[1].entityType',
        'devices only',
      );
    });

    it('from the message: msg.entity, else msg.topic as a UUID', () => {
      assert.deepEqual(targetsFromMessage({ entity: { entityType: 'ASSET', id: U1 }, topic: U2 }, DEVICE).entities, [
        { entityType: 'ASSET', id: U1 },
      ]);
      assert.deepEqual(targetsFromMessage({ topic: U2 }, DEVICE), {
        entities: [{ entityType: 'DEVICE', id: U2 }],
        bulk: false,
        field: 'msg.topic',
      });
      // The fix first, short enough for the debug sidebar to show it whole (it cuts a text at 80 characters).
      const fix = "Set the query node's Output to msg.entity, or send the entity in msg.entity";
      assert.ok(fix.length <= 80);
      assert.equal(NO_ENTITY_FIX, fix);
      assert.throws(() => targetsFromMessage({}, DEVICE), {
        message: fix,
        field: 'msg.entity',
        code: 'TB_INVALID_INPUT',
      });
      refusedWithFix(
        () => targetsFromMessage({ topic: 'temperature' }, DEVICE),
        'msg.entity',
        fix,
        'msg.topic is not an entity id',
        '(got "temperature")',
      );
      throwsInput(() => targetsFromMessage({ entity: 'x' }, DEVICE), 'msg.entity', '(got "x")');
    });

    it("else msg.payload, when it is a list of entities as the query nodes give it (and not the node's data)", () => {
      const flat = [
        { id: U1, entityType: 'DEVICE', name: 'Thermo A-101', ts: {} },
        { id: U2, entityType: 'ASSET', name: 'Building A', ts: {} },
      ];
      const raw = [{ entityId: { entityType: 'DEVICE', id: U1 }, latest: {} }];
      const alarms = [{ id: U3, type: 'High Temperature', originator: { entityType: 'DEVICE', id: U2 } }];
      const rawAlarms = [{ id: { entityType: 'ALARM', id: U3 }, originator: { entityType: 'DEVICE', id: U1 } }];
      assert.deepEqual(targetsFromMessage({ payload: flat }, DEVICE), {
        entities: [
          { entityType: 'DEVICE', id: U1 },
          { entityType: 'ASSET', id: U2 },
        ],
        bulk: true,
        field: 'msg.payload',
        // the rows' names, for what names each entity (a chart's series)
        names: ['Thermo A-101', 'Building A'],
      });
      assert.deepEqual(targetsFromMessage({ payload: raw }, DEVICE).entities, [{ entityType: 'DEVICE', id: U1 }]);
      assert.deepEqual(targetsFromMessage({ payload: alarms }, DEVICE).entities, [{ entityType: 'DEVICE', id: U2 }]);
      assert.deepEqual(targetsFromMessage({ payload: rawAlarms }, DEVICE).entities, [{ entityType: 'DEVICE', id: U1 }]);
      // msg.entity and a UUID in msg.topic come first; a topic that is not an id does not stop the payload's list.
      assert.deepEqual(targetsFromMessage({ entity: U3, payload: flat }, DEVICE).field, 'msg.entity');
      assert.deepEqual(targetsFromMessage({ topic: U3, payload: flat }, DEVICE).field, 'msg.topic');
      assert.deepEqual(targetsFromMessage({ topic: 'rows', payload: flat }, DEVICE).field, 'msg.payload');
      // Not a list of entities: refused with the fix.
      for (const payload of [[], [U1], flat[0], [{ name: 'x' }], [...flat, 7], [{ id: U1 }], 1767225600000])
        refusedWithFix(() => targetsFromMessage({ payload }, DEVICE), 'msg.entity', "Set the query node's Output");
      // The node reads msg.payload as something else: the list is not taken for the entities, and the error says why.
      refusedWithFix(
        () => targetsFromMessage({ payload: flat }, DEVICE, 'the values to save'),
        'msg.entity',
        "Set the query node's Output to msg.entity (msg.payload holds the values to save)",
      );
      assert.equal(isEntityList(flat), true);
      assert.equal(isEntityList([...flat, null]), false);
    });

    it('msg.entity after the action: what was read, as the next node reads it as it is', () => {
      const rows = [{ id: U1, entityType: 'DEVICE', name: 'Thermo A-101' }];
      // From msg.entity: kept as it came (query rows keep their names), but a bare id becomes an entity.
      const fromEntity = targetsFromMessage({ entity: rows }, DEVICE);
      assert.equal(entityOut(fromEntity, rows), rows);
      const one = { entityType: 'ASSET', id: U2, name: 'Building A' };
      assert.equal(entityOut(targetsFromMessage({ entity: one }, DEVICE), one), one);
      assert.deepEqual(entityOut(targetsFromMessage({ entity: U1 }, ASSET), U1), { entityType: 'ASSET', id: U1 });
      assert.deepEqual(entityOut(targetsFromMessage({ entity: [U1, one] }, ASSET), [U1, one]), [
        { entityType: 'ASSET', id: U1 },
        one,
      ]);
      // From anywhere else: the entity, or the list of them for a list.
      assert.deepEqual(entityOut(targetsFromMessage({ topic: U1 }, ASSET), undefined), { entityType: 'ASSET', id: U1 });
      assert.deepEqual(entityOut(targetsFromMessage({ payload: rows }, DEVICE), undefined), [
        { entityType: 'DEVICE', id: U1 },
      ]);
      assert.deepEqual(entityOut(prepareTargets([U1], 'target', DEVICE), 'old'), [{ entityType: 'DEVICE', id: U1 }]);
      assert.deepEqual(entityOut(prepareTargets(U1, 'target', DEVICE), 'old'), { entityType: 'DEVICE', id: U1 });
    });

    it("the node's type for a bare UUID", () => {
      assert.equal(prepareTargetEntityType(''), 'DEVICE');
      assert.equal(prepareTargetEntityType('ASSET'), 'ASSET');
      throwsInput(() => prepareTargetEntityType('DASHBOARD'), 'targetEntityType', 'one of DEVICE');
      throwsInput(
        () => prepareTargetEntityType('ASSET', 'targetEntityType', ['DEVICE']),
        'targetEntityType',
        'one of DEVICE',
      );
    });

    it('one rule per device action, read by the nodes and their dialogs: RPC goes to devices only', () => {
      assert.deepEqual(Object.keys(ACTION_TARGETS), [
        'tb-telemetry',
        'tb-attributes',
        'tb-rpc',
        'tb-rule-engine',
        'tb-relation',
      ]);
      // The types offered: devices for RPC, the ends a relation may have, the usual ones otherwise.
      assert.deepEqual(targetEntityTypes('tb-rpc'), ['DEVICE']);
      assert.deepEqual(targetEntityTypes('tb-relation'), [...TARGET_ENTITY_TYPES, 'DASHBOARD']);
      for (const t of ['tb-telemetry', 'tb-attributes', 'tb-rule-engine'] as const)
        assert.deepEqual(targetEntityTypes(t), TARGET_ENTITY_TYPES);
      // The rules of a node: its bare-UUID type checked against the rule.
      assert.deepEqual(targetRules('tb-rpc', ''), RPC_RULES);
      throwsInput(() => targetRules('tb-rpc', 'ASSET'), 'targetEntityType', 'one of DEVICE (got "ASSET")');
      assert.deepEqual(targetRules('tb-attributes', 'ASSET'), {
        defaultType: 'ASSET',
        allowed: undefined,
        why: undefined,
      });
      assert.equal(targetRules('tb-telemetry', 'TB_RESOURCE').defaultType, 'TB_RESOURCE');
      // A target of another type: refused for RPC with the reason, accepted for attributes and time series.
      const asset = { entityType: 'ASSET', id: U1 };
      throwsInput(
        () => prepareTargets(asset, 'msg.entity', targetRules('tb-rpc', '')),
        'msg.entity.entityType',
        'ASSET: RPC goes to devices only',
      );
      for (const t of ['tb-telemetry', 'tb-attributes'] as const)
        assert.deepEqual(prepareTargets(asset, 'msg.entity', targetRules(t, '')).entities, [asset]);
    });
  });

  describe('options: the node wins, the message fills what it leaves empty', () => {
    it("reads the node's setting, else msg.<name> (an empty node field and a null message value count as unset); lists what it ignored", () => {
      const r = new OptionReader(
        { keys: 'a', limit: '', order: 'ASC', agg: '' },
        { keys: ['b'], order: null, limit: 5, agg: 'AVG' },
      );
      assert.deepEqual(r.get('keys'), { value: 'a', field: 'keys' });
      assert.deepEqual(r.get('limit'), { value: 5, field: 'msg.limit' });
      assert.deepEqual(r.get('order'), { value: 'ASC', field: 'order' });
      assert.deepEqual(r.get('agg'), { value: 'AVG', field: 'msg.agg' });
      assert.equal(r.get('interval'), undefined);
      assert.deepEqual(r.group(['from', 'to']), { from: undefined, to: undefined });
      assert.deepEqual(r.ignored, ['keys'], 'msg.keys was set and not used; msg.order (null) counts as unset');
      r.get('keys');
      assert.deepEqual(r.ignored, ['keys'], 'once');
    });

    it('a group comes from one place: the node when it sets any of its options (an unticked box sets none), else the message', () => {
      const node = new OptionReader({ last: '1h', all: false }, { from: 5, all: true });
      assert.deepEqual(node.group(['all', 'from', 'to', 'last']), {
        all: { value: false, field: 'all' },
        from: undefined,
        to: undefined,
        last: { value: '1h', field: 'last' },
      });
      assert.deepEqual(node.ignored, ['all', 'from']);
      const msg = new OptionReader({ all: false, from: '' }, { from: 5 });
      assert.deepEqual(msg.group(['all', 'from', 'to', 'last']), {
        all: undefined,
        from: { value: 5, field: 'msg.from' },
        to: undefined,
        last: undefined,
      });
      assert.deepEqual(msg.ignored, []);
    });

    it('values: numbers from text, booleans, durations with units, times, keys', () => {
      assert.equal(intOption({ value: '12', field: 'x' }, undefined, 1), 12);
      throwsInput(() => intOption({ value: '1.5', field: 'x' }, undefined, 1), 'x', 'whole number');
      throwsInput(() => intOption({ value: 9, field: 'x' }, undefined, 1, 5), 'x', 'between 1 and 5');
      assert.equal(boolOption({ value: 'false', field: 'x' }, true), false);
      assert.equal(boolOption(undefined, true), true);
      assert.equal(durationOption({ value: '1.5h', field: 'x' }, undefined), 5400000);
      assert.equal(durationOption({ value: '250ms', field: 'x' }, undefined), 250);
      assert.equal(durationOption({ value: '2w', field: 'x' }, undefined), 1209600000);
      throwsInput(() => durationOption({ value: 0, field: 'x' }, undefined), 'x', 'at least 1 ms');
      throwsInput(() => durationOption({ value: '-5s', field: 'x' }, undefined), 'x', 'duration');
      assert.equal(timeOption({ value: '1767225600000', field: 'x' }), 1767225600000);
      throwsInput(() => timeOption({ value: new Date('nope'), field: 'x' }), 'x', 'ISO text');
      assert.deepEqual(keysOption({ value: ' a ,, b,a', field: 'x' }), ['a', 'b']);
      assert.equal(enumOption({ value: ' DESC ', field: 'x' }, ['ASC', 'DESC'], 'ASC'), 'DESC');
    });
  });

  describe('attributes', () => {
    const read = (node: Record<string, unknown>, msg: Record<string, unknown> = {}) => new OptionReader(node, msg);

    it("scope: the node's or msg.scope; save only SERVER or SHARED; delete one scope; any for read", () => {
      assert.equal(prepareScope('SHARED_SCOPE', {}, 'save'), 'SHARED_SCOPE');
      assert.equal(prepareScope('', {}, 'read'), 'SERVER_SCOPE');
      assert.equal(prepareScope('msg', { scope: 'CLIENT_SCOPE' }, 'read'), 'CLIENT_SCOPE');
      assert.equal(prepareScope('any', {}, 'read'), 'any');
      assert.equal(prepareScope('CLIENT_SCOPE', {}, 'delete'), 'CLIENT_SCOPE');
      throwsInput(
        () => prepareScope('CLIENT_SCOPE', {}, 'save'),
        'scope',
        'only in SERVER_SCOPE or SHARED_SCOPE',
        'the device',
      );
      throwsInput(() => prepareScope('msg', { scope: 'any' }, 'save'), 'msg.scope', 'SERVER_SCOPE or SHARED_SCOPE');
      throwsInput(() => prepareScope('any', {}, 'delete'), 'scope', 'needs one scope');
      throwsInput(() => prepareScope('msg', {}, 'read'), 'msg.scope', 'missing');
      throwsInput(
        () => prepareScope('msg', { scope: 'shared_scope' }, 'read'),
        'msg.scope',
        'did you mean "SHARED_SCOPE"',
      );
    });

    it('save: an object with at least one key, no blank key, no null (the server answers 500 for it)', () => {
      assert.deepEqual(
        prepareAttributeRequest('save', 'SHARED_SCOPE', read({}), { targetTemperature: 21.5, cfg: { a: 1 } }),
        {
          operation: 'save',
          scope: 'SHARED_SCOPE',
          values: { targetTemperature: 21.5, cfg: { a: 1 } },
        },
      );
      throwsInput(
        () => prepareAttributeRequest('save', 'SERVER_SCOPE', read({}), 'x'),
        'msg.payload',
        'object of attributes',
      );
      throwsInput(
        () => prepareAttributeRequest('save', 'SERVER_SCOPE', read({}), [1]),
        'msg.payload',
        'object of attributes',
      );
      throwsInput(() => prepareAttributeRequest('save', 'SERVER_SCOPE', read({}), {}), 'msg.payload', 'empty object');
      throwsInput(
        () => prepareAttributeRequest('save', 'SERVER_SCOPE', read({}), { mode: null }),
        'msg.payload.mode',
        'is null',
        'delete it',
      );
      throwsInput(
        () => prepareAttributeRequest('save', 'SERVER_SCOPE', read({}), { '': 1 }),
        'msg.payload',
        'blank key',
      );
    });

    it('read: keys optional; delete: keys required', () => {
      assert.deepEqual(prepareAttributeRequest('read', 'any', read({ keys: 'a, b' }), undefined), {
        operation: 'read',
        scope: 'any',
        keys: ['a', 'b'],
      });
      assert.deepEqual(
        prepareAttributeRequest('read', 'SERVER_SCOPE', read({ keys: 'a' }, { keys: '' }), undefined),
        { operation: 'read', scope: 'SERVER_SCOPE', keys: ['a'] },
        "the node's keys win",
      );
      assert.deepEqual(prepareAttributeRequest('read', 'SERVER_SCOPE', read({ keys: '' }, { keys: '' }), undefined), {
        operation: 'read',
        scope: 'SERVER_SCOPE',
        keys: [],
      });
      throwsInput(
        () => prepareAttributeRequest('delete', 'SERVER_SCOPE', read({}), undefined),
        'keys',
        'at least one key',
      );
      assert.deepEqual(prepareAttributeRequest('delete', 'CLIENT_SCOPE', read({}, { keys: ['fw'] }), undefined), {
        operation: 'delete',
        scope: 'CLIENT_SCOPE',
        keys: ['fw'],
      });
    });

    it('flat: key: value, ts per key', () => {
      const list = checkAttributeList([
        { key: 'mode', value: 'eco', lastUpdateTs: 5 },
        { key: 'cfg', value: { a: 1 }, lastUpdateTs: 6 },
        'junk',
      ]);
      assert.deepEqual(flatAttributes(list), { values: { mode: 'eco', cfg: { a: 1 } }, ts: { mode: 5, cfg: 6 } });
      assert.throws(() => checkAttributeList({}), /not a list of attributes/);
    });
  });

  describe('rpc', () => {
    const rpc = (node: Record<string, unknown>, msg: Record<string, unknown> = {}, params?: unknown) =>
      prepareRpcRequest('setGpio', params, new OptionReader(node, msg), NOW);

    it('method: a non-empty string; by default msg.method, else msg.topic', () => {
      assert.equal(prepareMethod({ value: ' setGpio ', field: 'method' }), 'setGpio');
      throwsInput(() => prepareMethod({ value: '', field: 'method' }), 'method', 'is empty');
      throwsInput(() => prepareMethod({ value: 5, field: 'msg.method' }), 'msg.method', '(got 5)');
      assert.deepEqual(methodFromMessage({ method: 'a', topic: 'b' }), { value: 'a', field: 'msg.method' });
      assert.deepEqual(methodFromMessage({ topic: 'b' }), { value: 'b', field: 'msg.topic' });
      refusedWithFix(
        () => methodFromMessage({}),
        'msg.method',
        'Set the method in the node, or send its name in msg.method',
      );
    });

    it('lightweight: two-way by default, timeout 10 s, params left out when undefined', () => {
      const r = rpc({});
      assert.deepEqual(r, {
        method: 'setGpio',
        mode: 'twoway',
        persistent: false,
        waitFor: 'final',
        timeout: 10000,
        body: { method: 'setGpio', timeout: 10000 },
      });
      assert.deepEqual(rpc({ mode: 'oneway' }, { timeout: '20s' }, { pin: 7 }).body, {
        method: 'setGpio',
        timeout: 20000,
        params: { pin: 7 },
      });
      assert.equal(rpc({}, {}, null).body.params, null, 'null is a value');
      assert.equal(rpc({ timeout: '2000' }).body.timeout, 2000, 'below 5 s is sent as is (the server raises it)');
    });

    it('a wait the server would cut (over 29 s) is refused unless persistent', () => {
      throwsInput(() => rpc({}, { timeout: 30000 }), 'msg.timeout', 'make it 29 s or less', 'Persistent');
      throwsInput(() => rpc({ timeout: '1m' }), 'timeout', 'timeout is 1 min');
      assert.equal(rpc({ persistent: true, timeout: '1m' }).timeout, 60000);
      throwsInput(() => rpc({}, { mode: 'twoWay' }), 'msg.mode', 'did you mean "twoway"');
      throwsInput(() => rpc({}, { waitFor: 'done' }), 'msg.waitFor', 'accepted, final');
    });

    it('persistent: expiration 1 day by default (epoch ms), retries 0-5, additionalInfo JSON (text in the node)', () => {
      const r = rpc({ persistent: 'true' });
      assert.equal(r.body.persistent, true);
      assert.equal(r.body.expirationTime, NOW + DEFAULT_EXPIRATION);
      assert.equal(rpc({ persistent: true, expiration: '1h' }).body.expirationTime, NOW + 3600000);
      const full = rpc(
        { persistent: true, retries: '3', additionalInfo: '{"by":"node-red"}' },
        { waitFor: 'accepted' },
      );
      assert.deepEqual(
        [full.body.retries, full.body.additionalInfo, full.waitFor],
        [3, { by: 'node-red' }, 'accepted'],
      );
      assert.deepEqual(
        rpc({ persistent: true }, { additionalInfo: 'plain text' }).body.additionalInfo,
        'plain text',
        'a message value is sent as given',
      );
      throwsInput(() => rpc({ persistent: true, retries: '9' }), 'retries', 'between 0 and 5');
      throwsInput(() => rpc({ persistent: true, additionalInfo: '{by' }), 'additionalInfo', 'must be JSON');
      throwsInput(() => rpc({ persistent: true, expiration: '500' }), 'expiration', 'at least 1 s');
      assert.equal(
        rpc({ retries: '3', expiration: '1h' }).body.retries,
        undefined,
        'persistent-only options are not sent otherwise',
      );
    });

    it('params must be JSON', () => {
      const circular: Record<string, unknown> = {};
      circular.self = circular;
      throwsInput(() => rpc({}, {}, circular), 'msg.payload', 'cannot be sent as JSON');
    });

    it('cancel: msg.action "cancel" with msg.rpc.id', () => {
      assert.equal(prepareAction(undefined), 'send');
      assert.equal(prepareAction('cancel'), 'cancel');
      throwsInput(() => prepareAction('stop'), 'msg.action', '"cancel"');
      assert.equal(prepareCancelId({ id: U1, status: 'QUEUED' }), U1);
      assert.equal(prepareCancelId({ id: { entityType: 'RPC', id: U1 } }), U1);
      throwsInput(() => prepareCancelId(undefined), 'msg.rpc.id', 'persistent RPC to cancel');
      throwsInput(() => prepareCancelId({ id: 'x' }), 'msg.rpc.id', '(got "x")');
    });

    it('answers: 504, 408, 409 and the 30 s cap are "no reply"; 406 is "not JSON"', () => {
      assert.equal(classifyRpcAnswer(504, undefined), 'noReply');
      assert.equal(classifyRpcAnswer(408, ''), 'noReply');
      assert.equal(classifyRpcAnswer(409, ''), 'noReply');
      assert.equal(classifyRpcAnswer(500, 'Request timeout'), 'noReply');
      assert.equal(classifyRpcAnswer(500, 'NullPointerException'), undefined);
      assert.equal(classifyRpcAnswer(406, undefined), 'badReply');
      assert.equal(classifyRpcAnswer(404, "Device with requested id wasn't found!"), undefined);
    });

    it('persistent states: DELIVERED ends a one-way RPC, SUCCESSFUL a two-way one; TIMEOUT moves on', () => {
      assert.equal(finalState('DELIVERED', 'oneway'), 'done');
      assert.equal(finalState('DELIVERED', 'twoway'), undefined);
      assert.equal(finalState('SUCCESSFUL', 'twoway'), 'done');
      assert.equal(finalState('FAILED', 'twoway'), 'failed');
      assert.equal(finalState('EXPIRED', 'oneway'), 'expired');
      for (const s of ['QUEUED', 'SENT', 'TIMEOUT']) assert.equal(finalState(s, 'twoway'), undefined);
      assert.equal(failureReason({ error: 'busy' }), 'busy');
      assert.equal(failureReason({ code: 3 }), '{"code":3}');
      assert.equal(failureReason(null), 'no reason given');
      assert.deepEqual(replyOf({ r: 'ok' }), { r: 'ok' });
      assert.equal(replyOf('42'), '42', 'a JSON string reply stays a string');
      assert.equal(replyOf(undefined), null);
    });

    it('follow timing: 1 s, 2 s, 4 s, 8 s, then 10 s, never past the expiration (plus a grace)', () => {
      assert.deepEqual(
        [0, 1, 2, 3, 4, 9].map((n) => followDelay(n, 0, undefined)),
        [1000, 2000, 4000, 8000, 10000, 10000],
      );
      assert.equal(followDelay(4, 0, 3000), 5000, 'the last poll at expiration + 2 s');
      assert.equal(followDelay(0, 5000, 3000), undefined, 'past the expiration and grace: stop');
      assert.equal(followDelay(2, 0, 100000, { initialMs: 10, maxMs: 50, graceMs: 0 }), 40);
    });
  });

  it('every refusal is a TbInputError with the field', () => {
    try {
      prepareTargets(null, 'msg.entity', DEVICE);
      assert.fail('no error');
    } catch (err) {
      assert.ok(err instanceof TbInputError);
      assert.equal(err.field, 'msg.entity');
    }
  });
});
