/**
 * The device-action dialogs' checks (src/editor/builder/actions.ts): the runtime's own validation of a node's
 * settings (the messages the nodes give at run time, field by field), what a message may still bring left alone,
 * the fixed entities whose keys are suggested, and the same functions in the browser bundle (TbBuilder).
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import vm from 'node:vm';
import {
  actionProblem,
  fixedEntities,
  isAbout,
  keyList,
  keysOfKind,
  targetEntityTypes,
  settingsCheck,
  validateSetting,
} from '../../src/editor/builder/action-settings';
import { TbInputError } from '../../src/errors';
import { checkAttributeSettings } from '../../src/nodes/tb-attributes/logic';
import { prepareRpcRequest } from '../../src/nodes/tb-rpc/logic';
import { checkRpcSettings } from '../../src/nodes/tb-rpc/logic';
import { prepareTelemetryRequest } from '../../src/nodes/tb-telemetry/logic';
import { checkTelemetrySettings } from '../../src/nodes/tb-telemetry/logic';
import { OptionReader } from '../../src/settings/options';

// Each device action's dialog registers its node's own check of its settings, as these do.
settingsCheck('tb-attributes', checkAttributeSettings);
settingsCheck('tb-rpc', checkRpcSettings);
settingsCheck('tb-telemetry', checkTelemetrySettings);

const U = '0f8fad5b-d9cb-469f-a165-70867728950e';
const NOW = Date.UTC(2026, 5, 1);
const HISTORY = {
  operation: 'history',
  keys: 'temperature',
  last: '24h',
  agg: 'NONE',
  order: 'ASC',
  maxItems: 100000,
  targetType: 'auto',
  targetEntityType: 'DEVICE',
};
const RPC = {
  targetType: 'auto',
  methodType: 'auto',
  mode: 'twoway',
  timeout: 10000,
  persistent: false,
  waitFor: 'final',
};

/** The runtime's own error for the same settings, to compare with. */
function runtimeError(fn: () => unknown): { field: string; message: string } {
  try {
    fn();
  } catch (e) {
    assert.ok(e instanceof TbInputError, String(e));
    return { field: e.field, message: e.message };
  }
  throw new Error('the runtime accepted it');
}

describe("device-action dialogs: the runtime's checks of the settings (editor)", function () {
  describe('tb-telemetry', function () {
    it('accepts the defaults and a complete history', function () {
      assert.equal(
        actionProblem(
          'tb-telemetry',
          { operation: 'save', targetType: 'auto', targetEntityType: 'DEVICE', ttl: '', maxItems: 100000 },
          NOW,
        ),
        undefined,
      );
      assert.equal(actionProblem('tb-telemetry', { ...HISTORY, agg: 'AVG', interval: '1h' }, NOW), undefined);
    });

    it("an aggregation without an interval: the runtime's message, on interval", function () {
      const s = { ...HISTORY, agg: 'AVG', interval: '' };
      const p = actionProblem('tb-telemetry', s, NOW);
      assert.deepEqual(
        p,
        runtimeError(() => prepareTelemetryRequest('history', new OptionReader(s, {}), undefined, NOW)),
      );
      assert.equal(p!.field, 'interval');
      assert.match(p!.message, /agg AVG needs an interval .* ThingsBoard silently returns raw points/);
      // A calendar interval is one.
      assert.equal(actionProblem('tb-telemetry', { ...s, intervalType: 'MONTH' }, NOW), undefined);
    });

    it('more than 700 intervals: refused with the numbers', function () {
      const p = actionProblem('tb-telemetry', { ...HISTORY, agg: 'AVG', interval: '1m' }, NOW);
      assert.equal(p!.field, 'interval');
      assert.equal(
        p!.message,
        'interval must be at least 124s for this range, or the range shorter: 1 min cuts 1 d into 1440 intervals, and ' +
          'ThingsBoard allows at most 700',
      );
    });

    it('what a message may bring is not asked for: keys and the range of history and delete', function () {
      assert.equal(actionProblem('tb-telemetry', { ...HISTORY, keys: '', last: '' }, NOW), undefined);
      assert.equal(
        actionProblem('tb-telemetry', { ...HISTORY, keys: '', last: '', agg: 'MAX', interval: '1s' }, NOW),
        undefined,
      );
      assert.equal(
        actionProblem(
          'tb-telemetry',
          { operation: 'delete', keys: '', all: false, deleteLatest: true, rewriteLatest: false },
          NOW,
        ),
        undefined,
      );
      // ...but a half range is wrong: the node's "to" alone is never used.
      assert.equal(
        actionProblem('tb-telemetry', { ...HISTORY, last: '', to: '2026-01-02T00:00:00Z' }, NOW)!.field,
        'from',
      );
    });

    it('bad values, each on its setting', function () {
      const cases: Array<[Record<string, unknown>, string, RegExp]> = [
        [{ last: 'yesterday' }, 'last', /^last must be a duration/],
        [{ last: '', from: 'soon' }, 'from', /^from must be a time/],
        [{ last: '', from: '2026-05-02T00:00:00Z', to: '2026-05-01T00:00:00Z' }, 'from', /must be before to/],
        [{ from: '2026-05-01T00:00:00Z' }, 'from', /from and last are both set/],
        [{ limit: '0' }, 'limit', /^limit must be at least 1/],
        [{ maxItems: 'lots' }, 'maxItems', /^maxItems must be a whole number/],
        [
          { agg: 'AVG', interval: '1h', intervalType: 'WEEK', timeZone: 'Mars/Olympus' },
          'timeZone',
          /IANA time zone .* silently use its own zone/,
        ],
        [{ order: 'asc' }, 'order', /did you mean "ASC"/],
      ];
      for (const [change, field, message] of cases) {
        const p = actionProblem('tb-telemetry', { ...HISTORY, ...change }, NOW);
        assert.equal(p?.field, field, JSON.stringify(change));
        assert.match(p!.message, message);
      }
      assert.equal(actionProblem('tb-telemetry', { operation: 'save', ttl: '-5' }, NOW)!.field, 'ttl');
      assert.match(
        actionProblem('tb-telemetry', { operation: 'delete', all: true, last: '1h' }, NOW)!.message,
        /all is true and a range is set too/,
      );
    });

    it('with "set by msg.operation", every operation\'s checks apply; options of other operations do not', function () {
      assert.equal(actionProblem('tb-telemetry', { operation: 'msg', agg: 'SUM' }, NOW)!.field, 'interval');
      assert.equal(actionProblem('tb-telemetry', { operation: 'save', agg: 'SUM' }, NOW), undefined);
      assert.equal(actionProblem('tb-telemetry', { operation: 'latest', limit: 'x' }, NOW), undefined);
    });

    it("a fixed entity: the runtime's shapes (one or a list), JSON errors named", function () {
      const one = JSON.stringify({ entityType: 'ASSET', id: U });
      assert.equal(
        actionProblem('tb-telemetry', { operation: 'save', targetType: 'json', target: one }, NOW),
        undefined,
      );
      assert.equal(
        actionProblem('tb-telemetry', { operation: 'save', targetType: 'json', target: `[${one}]` }, NOW),
        undefined,
      );
      let p = actionProblem(
        'tb-telemetry',
        { operation: 'save', targetType: 'json', target: '{"entityType":"DEVICE","id":"nope"}' },
        NOW,
      );
      assert.deepEqual([p!.field, p!.message], ['target.id', 'target.id must be the entity\'s UUID (got "nope")']);
      p = actionProblem(
        'tb-telemetry',
        { operation: 'save', targetType: 'json', target: `[${one}, {"entityType":"ALARM","id":"${U}"}]` },
        NOW,
      );
      assert.equal(p!.field, 'target[1].entityType');
      assert.match(p!.message, /keeps attributes and time series only for/);
      p = actionProblem('tb-telemetry', { operation: 'save', targetType: 'json', target: '{' }, NOW);
      assert.equal(p!.field, 'target');
      assert.match(p!.message, /^target is not valid JSON/);
      // Not fixed: nothing to check.
      assert.equal(
        actionProblem('tb-telemetry', { operation: 'save', targetType: 'msg', target: '{' }, NOW),
        undefined,
      );
    });
  });

  describe('tb-attributes', function () {
    it("scopes each action allows, in the runtime's words", function () {
      let p = actionProblem('tb-attributes', { operation: 'save', scope: 'CLIENT_SCOPE' });
      assert.equal(p!.field, 'scope');
      assert.match(
        p!.message,
        /^scope is CLIENT_SCOPE: ThingsBoard saves attributes only in SERVER_SCOPE or SHARED_SCOPE/,
      );
      p = actionProblem('tb-attributes', { operation: 'delete', scope: 'any' });
      assert.match(p!.message, /a delete needs one scope/);
      assert.equal(actionProblem('tb-attributes', { operation: 'save', scope: 'any' })!.field, 'scope');
      for (const ok of [
        { operation: 'save', scope: 'SHARED_SCOPE' },
        { operation: 'read', scope: 'any' },
        { operation: 'delete', scope: 'CLIENT_SCOPE', keys: '' },
        { operation: 'msg', scope: 'CLIENT_SCOPE' },
        { operation: 'save', scope: 'msg' },
      ]) {
        assert.equal(actionProblem('tb-attributes', ok), undefined, JSON.stringify(ok));
      }
    });
  });

  describe('tb-rpc', function () {
    it('a wait the server would cut, unless persistent; expiration, retries, additional info, a fixed method', function () {
      let p = actionProblem('tb-rpc', { ...RPC, timeout: '30s' }, NOW);
      assert.deepEqual(
        p,
        runtimeError(() => prepareRpcRequest('m', undefined, new OptionReader({ ...RPC, timeout: '30s' }, {}), NOW)),
      );
      assert.equal(p!.field, 'timeout');
      assert.match(p!.message, /^timeout is 30 s: make it 29 s or less, or tick Persistent for a longer wait/);
      assert.equal(actionProblem('tb-rpc', { ...RPC, timeout: '30s', persistent: true }, NOW), undefined);
      assert.equal(
        actionProblem('tb-rpc', { ...RPC, persistent: true, expiration: '500ms' }, NOW)!.field,
        'expiration',
      );
      assert.equal(actionProblem('tb-rpc', { ...RPC, persistent: true, retries: '6' }, NOW)!.field, 'retries');
      assert.match(
        actionProblem('tb-rpc', { ...RPC, persistent: true, additionalInfo: '{by' }, NOW)!.message,
        /^additionalInfo must be JSON/,
      );
      // Persistent options are not read for a lightweight RPC.
      assert.equal(actionProblem('tb-rpc', { ...RPC, retries: '6' }, NOW), undefined);
      p = actionProblem('tb-rpc', { ...RPC, methodType: 'str', method: '  ' }, NOW);
      assert.equal(p!.field, 'method');
      assert.equal(actionProblem('tb-rpc', { ...RPC, methodType: 'str', method: 'setGpio' }, NOW), undefined);
      assert.equal(actionProblem('tb-rpc', { ...RPC, mode: 'both' }, NOW)!.field, 'mode');
      assert.equal(actionProblem('tb-rpc', { ...RPC, waitFor: 'never' }, NOW)!.field, 'waitFor');
    });

    it("devices only: the runtime's one rule (src/query/targets.ts ACTION_TARGETS)", function () {
      assert.deepEqual(targetEntityTypes('tb-rpc'), ['DEVICE']);
      assert.deepEqual(targetEntityTypes('tb-telemetry'), [
        'DEVICE',
        'ASSET',
        'ENTITY_VIEW',
        'CUSTOMER',
        'TENANT',
        'USER',
        'EDGE',
      ]);
      const p = actionProblem(
        'tb-rpc',
        { ...RPC, targetType: 'json', target: JSON.stringify({ entityType: 'ASSET', id: U }) },
        NOW,
      );
      assert.deepEqual(
        [p!.field, p!.message],
        ['target.entityType', `target.entityType is ASSET: RPC goes to devices only (entity ${U})`],
      );
      assert.equal(actionProblem('tb-rpc', { ...RPC, targetEntityType: 'ASSET' }, NOW)!.field, 'targetEntityType');
    });
  });

  it('validateSetting: the message goes to the setting it is about, and to no other', function () {
    const s = { ...HISTORY, agg: 'AVG', interval: '1m' };
    assert.match(String(validateSetting('tb-telemetry', s, 'interval')), /1440 intervals/);
    assert.equal(validateSetting('tb-telemetry', s, 'agg'), true);
    assert.equal(validateSetting('tb-telemetry', s, 'last'), true);
    assert.ok(isAbout('target[2].id', 'target') && isAbout('target.id', 'target') && !isAbout('targetType', 'target'));
  });

  it('fixed entities, key kinds and key lists', function () {
    const U2 = '11111111-2222-4333-8444-555555555555';
    assert.deepEqual(fixedEntities('json', JSON.stringify({ entityType: 'ASSET', id: U }), 'DEVICE'), {
      entityType: 'ASSET',
      ids: [U],
    });
    assert.deepEqual(
      fixedEntities(
        'json',
        JSON.stringify([
          { entityType: 'DEVICE', id: U },
          { entityType: 'ASSET', id: U2 },
          { entityType: 'DEVICE', id: U2 },
        ]),
        'ASSET',
      ),
      { entityType: 'DEVICE', ids: [U, U2] },
    );
    assert.deepEqual(fixedEntities('json', '{', 'EDGE'), { entityType: 'EDGE', ids: [] });
    assert.deepEqual(fixedEntities('msg', 'entity', 'ASSET'), { entityType: 'ASSET', ids: [] });
    const keys = {
      timeseries: ['t'],
      attributes: { SERVER_SCOPE: ['a', 'n'], SHARED_SCOPE: ['s'], CLIENT_SCOPE: ['n'] },
    };
    assert.deepEqual(keysOfKind(keys, 'timeseries'), ['t']);
    assert.deepEqual(keysOfKind(keys, 'SHARED_SCOPE'), ['s']);
    assert.deepEqual(keysOfKind(keys, 'attributes'), ['a', 'n', 's']);
    assert.deepEqual(keysOfKind({ timeseries: [], attributes: {} }, 'CLIENT_SCOPE'), []);
    assert.deepEqual(keyList(' a, b,,a , c '), ['a', 'b', 'c']);
  });

  it('the browser bundle offers them as TbBuilder (the same answers)', function () {
    const window: Record<string, any> = {};
    vm.createContext(window);
    window.window = window;
    vm.runInContext(fs.readFileSync(path.join(__dirname, '..', '..', 'resources', 'tb-editor.js'), 'utf8'), window);
    const b = window.TbBuilder;
    for (const fn of ['actionProblem', 'validateSetting', 'fixedEntities', 'keysInput', 'targetEntityTypes'])
      assert.equal(typeof b[fn], 'function', fn);
    const s = { ...HISTORY, agg: 'AVG', interval: '1m' };
    assert.deepEqual(
      JSON.parse(JSON.stringify(b.actionProblem('tb-telemetry', s, NOW))),
      actionProblem('tb-telemetry', s, NOW),
    );
    assert.match(b.validateSetting('tb-rpc', { ...RPC, timeout: 60000 }, 'timeout'), /cuts every wait/);
  });
});
