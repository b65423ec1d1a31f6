/**
 * The editor's browser bundle (resources/tb-editor.js, built by `npm run build`): a plain script that defines
 * window.TbQuery from the runtime's own query module. Loaded here in a bare vm context, as a browser would run it,
 * and compared with the runtime module on good and bad queries: same results, same error fields and wording.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import vm from 'node:vm';
import * as acorn from 'acorn';
import { TbInputError } from '../../src/errors';
import * as types from '../../src/protocol/types';
import * as typesModule from '../../src/protocol/types';
import * as validate from '../../src/protocol/validate';
import * as jsonTextModule from '../../src/query-model/json-text';
import * as pathsModule from '../../src/query-model/paths';
import * as schemaModule from '../../src/query-model/schema';
import { defaultQuery, jsonSchema, QUERY_MODES, type QueryMode } from '../../src/query-model/schema';
import { summarize } from '../../src/query-model/summary';
import * as summaryModule from '../../src/query-model/summary';
import { U1, U2 } from '../query/helpers';

/** The runtime's own query module: its protocol types and validation. */
const runtime = { ...types, ...validate };

const root = path.resolve(__dirname, '..', '..');
const BUNDLE = path.join(root, 'resources', 'tb-editor.js');

type Api = Record<string, any>;

/** Runs the bundle in a fresh context whose global object is `window` (as in a browser). */
function load(code: string): { window: Api; api: Api } {
  const window: Api = {};
  vm.createContext(window);
  window.window = window;
  vm.runInContext(code, window, { filename: 'tb-editor.js' });
  return { window, api: window.TbQuery };
}

/** Plain JSON of what a call returns or throws (errors: name, message, field, code), comparable across realms. */
function outcome(fn: () => unknown): unknown {
  try {
    return { ok: JSON.parse(JSON.stringify(fn() ?? null)) };
  } catch (e) {
    const err = e as Error & { field?: string; code?: string };
    return { error: { name: err.name, message: err.message, field: err.field, code: err.code } };
  }
}

const RUNTIME_PREPARE: Record<QueryMode, (q: unknown, field?: string) => unknown> = {
  entityData: runtime.prepareEntityDataQuery,
  entityCount: runtime.prepareEntityCountQuery,
  alarmData: runtime.prepareAlarmDataQuery,
  alarmCount: runtime.prepareAlarmCountQuery,
};

const DEV = { type: 'entityType', entityType: 'DEVICE' };
const TEMP = { type: 'TIME_SERIES', key: 'temperature' };

/** Good and bad inputs; each is run through every mode. */
const QUERIES: unknown[] = [
  ...QUERY_MODES.map((m) => defaultQuery(m)),
  undefined,
  null,
  42,
  [],
  '',
  '{"entityFilter": ',
  JSON.stringify({ entityFilter: DEV, pageLink: { pageSize: 5 } }),
  {},
  { entityFilter: { type: 'stateEntity' } },
  { entityFilter: { type: 'EntityType', entityType: 'DEVICE' } },
  { entityFilter: { type: 'deviceType', deviceType: 'legacy', deviceNameFilter: 'T' } },
  { entityFilter: { type: 'entityList', entityType: 'DEVICE', entityList: [U1, 'nope'] } },
  { entityFilter: { type: 'singleEntity', singleEntity: { entityType: 'current_user' } } },
  { entityFilter: { type: 'relationsQuery', direction: 'FROM' } },
  {
    entityFilter: {
      type: 'relationsQuery',
      rootEntity: { entityType: 'ASSET', id: U1 },
      direction: 'FROM',
      maxLevel: 2,
      filters: [{ relationType: 'Contains', entityTypes: ['DEVICE'] }],
      rootStateEntity: true,
    },
  },
  {
    entityFilter: {
      type: 'relationsQuery',
      multiRoot: true,
      multiRootEntitiesType: 'ASSET',
      multiRootEntityIds: [U1, U2],
      direction: 'TO',
    },
  },
  { entityFilter: { type: 'deviceSearchQuery', rootEntity: { entityType: 'ASSET', id: U1 }, direction: 'sideways' } },
  { entityFilter: { type: 'apiUsageState', customerId: U2 } },
  { entityFilter: DEV, keyFilters: [{ key: TEMP, predicate: { type: 'NUMERIC', operation: 'GREATER', value: 20 } }] },
  { entityFilter: DEV, keyFilters: [{ key: TEMP, predicate: { type: 'NUMERIC', operation: 'GREATER', value: '20' } }] },
  { entityFilter: DEV, keyFilters: [{ key: TEMP, predicate: { type: 'NUMERIC', operation: 'greater', value: 20 } }] },
  {
    entityFilter: DEV,
    keyFilters: [
      { key: { type: 'ALARM_FIELD', key: 'x' }, predicate: { type: 'BOOLEAN', operation: 'EQUAL', value: true } },
    ],
  },
  { entityFilter: DEV, keyFilters: [{ key: TEMP, predicate: { type: 'COMPLEX', operation: 'OR', predicates: [] } }] },
  {
    entityFilter: DEV,
    keyFiltersOperation: 'OR',
    keyFilters: [
      {
        key: TEMP,
        valueType: 'NUMERIC',
        predicate: {
          type: 'COMPLEX',
          operation: 'AND',
          predicates: [
            {
              type: 'NUMERIC',
              operation: 'LESS',
              value: { defaultValue: 1, dynamicValue: { sourceType: 'CURRENT_USER', sourceAttribute: 'max' } },
            },
          ],
        },
      },
      {
        key: { type: 'ATTRIBUTE', key: 'model' },
        predicate: { type: 'STRING', operation: 'IN', value: 'a, b', ignoreCase: true },
      },
    ],
  },
  { entityFilter: DEV, pageLink: { pageSize: 0 } },
  {
    entityFilter: DEV,
    pageLink: {
      page: 1,
      pageSize: 10,
      textSearch: 'x',
      sortOrder: { key: { type: 'ALARM_FIELD', key: 'createdTime' } },
      dynamic: true,
    },
  },
  { entityFilter: DEV, entityFields: [{ type: 'ENTITY_FIELD', key: '' }] },
  {
    entityFilter: DEV,
    alarmFields: [{ type: 'ALARM_FIELD', key: 'type' }],
    pageLink: { statusList: ['ACTIVE', 'OPEN'] },
  },
  { entityFilter: DEV, pageLink: { severityList: ['critical'], timeWindow: 3600000, assigneeId: U2 } },
  { statusList: ['ACTIVE'], severityList: ['MAJOR'], typeList: ['Fire'], timeWindow: -1 },
  { pageLink: { statusList: ['CLEARED'] }, assigneeId: { entityType: 'DEVICE', id: U1 } },
];

describe('editor bundle (resources/tb-editor.js)', function () {
  let code = '';
  let api: Api;
  let window: Api;

  before(function () {
    // `npm test` builds it first (pretest); build it here when mocha runs alone.
    if (!fs.existsSync(BUNDLE))
      execFileSync(process.execPath, [path.join(root, 'scripts', 'bundle-editor.js')], { cwd: root });
    code = fs.readFileSync(BUNDLE, 'utf8');
    ({ window, api } = load(code));
  });

  it('is a self-contained ES2019 script: no require, no import, no source map', function () {
    assert.ok(!/\brequire\(/.test(code), 'no require( left');
    acorn.parse(code, { ecmaVersion: 2019, sourceType: 'script' });
    assert.ok(!code.includes('sourceMappingURL'));
    assert.ok(code.startsWith('/* node-red-contrib-thingsboard-query'), 'says what it is');
    assert.ok(/^[\x00-\x7f]*$/.test(code), 'ASCII only (served without a charset)');
  });

  it('is git-ignored and shipped through the files list', function () {
    const ignore = fs.readFileSync(path.join(root, '.gitignore'), 'utf8').split('\n');
    assert.ok(ignore.includes('resources/tb-editor.js'));
    const pkg = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8'));
    assert.ok(
      pkg.files.includes('resources/tb-editor.js'),
      'listed in "files" (test/package.test.ts checks the packed list)',
    );
    assert.match(pkg.scripts.build, /node scripts\/bundle-editor\.js/);
    assert.ok(pkg.devDependencies.esbuild);
  });

  it('defines window.TbQuery with the documented API, in a context without any Node globals', function () {
    assert.equal(typeof api, 'object');
    assert.equal(window.process, undefined);
    for (const name of [
      'prepareKeysOptions',
      'prepareEntityId',
      'prepareAlarmStatusOptions',
      'errorInfo',
      'check',
      'summarize',
      'parseJsonText',
      'locatePath',
      'formatQuery',
      'compactQuery',
      'getPath',
      'setPath',
      'deletePath',
      'heldPaths',
      'defaultQuery',
      'jsonSchema',
      'dynamicSourceTypes',
      'visibleFields',
      'newEntityFilter',
      'newKeyFilter',
      'newPredicate',
      'builderCoverage',
      'filterEntityType',
      'entityFieldNames',
    ]) {
      assert.equal(typeof api[name], 'function', name);
    }
    for (const m of QUERY_MODES) assert.equal(typeof api.prepare[m], 'function', `prepare.${m}`);
    for (const name of [
      'ENTITY_FILTER_TYPES',
      'QUERYABLE_ENTITY_TYPES',
      'ENTITY_KEY_TYPES',
      'ALIAS_ENTITY_TYPES',
      'ENTITY_KEY_VALUE_TYPES',
      'STRING_OPERATIONS',
      'NUMERIC_OPERATIONS',
      'BOOLEAN_OPERATIONS',
      'COMPLEX_OPERATIONS',
      'DYNAMIC_VALUE_SOURCE_TYPES',
      'SORT_DIRECTIONS',
      'RELATION_DIRECTIONS',
      'ALARM_SEARCH_STATUSES',
      'ALARM_SEVERITIES',
      'KEY_FILTERS_OPERATIONS',
      'ENTITY_TYPES',
      'FILTER_PREDICATE_TYPES',
      'NON_ALARM_KEY_TYPES',
    ]) {
      assert.deepEqual([...api[name]], [...(runtime as Record<string, any>)[name]], name);
    }
    for (const name of [
      'ENTITY_FILTER_SCHEMA',
      'MODE_SCHEMA',
      'KEY_TYPES_FOR',
      'PREDICATE_OPERATIONS',
      'ENTITY_FIELD_NAMES',
      'ALARM_FIELD_NAMES',
      'ALARM_FILTER_FIELDS',
    ]) {
      assert.ok(api[name] && typeof api[name] === 'object', name);
    }
    assert.equal(api.DEFAULT_PAGE_SIZE, runtime.DEFAULT_PAGE_SIZE);
  });

  it('exports everything of schema, summary, json-text and paths, and the enum lists of types', function () {
    for (const [file, mod] of Object.entries({ schemaModule, summaryModule, jsonTextModule, pathsModule })) {
      for (const name of Object.keys(mod)) assert.ok(name in api, `${file}.${name}`);
    }
    // The query enum lists (the WebSocket command lists are not the builder's business).
    const wsOnly = new Set([
      'WS_CMD_TYPES',
      'UNSUBSCRIBE_CMD_TYPES',
      'AGGREGATIONS',
      'INTERVAL_TYPES',
      'CMD_UPDATE_TYPES',
    ]);
    for (const [name, value] of Object.entries(typesModule)) {
      if (Array.isArray(value) && !wsOnly.has(name)) assert.deepEqual([...(api[name] ?? [])], value, name);
    }
  });

  it('loading it twice is harmless', function () {
    const again = load(code + '\n' + code);
    assert.equal(typeof again.api.prepare.entityData, 'function');
  });

  for (const mode of QUERY_MODES) {
    it(`prepare.${mode} gives exactly the runtime's results and errors (field, message, code, name)`, function () {
      let errors = 0;
      for (const q of QUERIES) {
        for (const field of [undefined, 'msg.query']) {
          const mine = outcome(() => api.prepare[mode](q, field));
          const theirs = outcome(() => RUNTIME_PREPARE[mode](q, field));
          assert.deepEqual(mine, theirs, `${mode} ${JSON.stringify(q)}`);
          if ((theirs as { error?: unknown }).error) errors++;
        }
      }
      assert.ok(errors > 10, 'the set has bad queries');
      assert.ok(errors < QUERIES.length * 2 - 4, 'the set has good queries');
    });
  }

  it('the other validators match too', function () {
    for (const input of [
      undefined,
      {},
      { timeseries: false, attributes: 'false' },
      { scopes: 'SERVER_SCOPE, BAD' },
      { scopes: ['CLIENT_SCOPE'] },
    ]) {
      assert.deepEqual(
        outcome(() => api.prepareKeysOptions(input)),
        outcome(() => runtime.prepareKeysOptions(input as never)),
      );
    }
    for (const input of [{ entityType: 'DEVICE', id: U1 }, { entityType: 'DEVICE' }, 'x']) {
      assert.deepEqual(
        outcome(() => api.prepareEntityId(input)),
        outcome(() => runtime.prepareEntityId(input)),
      );
    }
    for (const input of [{ typeList: 'a, b', severityList: 'MAJOR' }, { severityList: ['HIGH'] }]) {
      assert.deepEqual(
        outcome(() => api.prepareAlarmStatusOptions(input)),
        outcome(() => runtime.prepareAlarmStatusOptions(input)),
      );
    }
  });

  it('errorInfo and check: the field, message and code of a validation error', function () {
    let thrown: unknown;
    try {
      api.prepare.entityData({ entityFilter: DEV, pageLink: { pageSize: 0 } });
    } catch (e) {
      thrown = e;
    }
    const expected = {
      field: 'query.pageLink.pageSize',
      message: 'query.pageLink.pageSize must be a positive integer (got 0)',
      code: 'TB_INVALID_INPUT',
    };
    assert.deepEqual({ ...api.errorInfo(thrown) }, expected);
    assert.deepEqual(
      { ...api.check('entityData', { entityFilter: DEV, pageLink: { pageSize: 0 } }) },
      { ok: false, ...expected },
    );
    // Read by shape: errors of another realm (here the runtime's own class) read the same.
    assert.deepEqual(
      { ...api.errorInfo(new TbInputError('query.x', 'query.x is wrong')) },
      { field: 'query.x', message: 'query.x is wrong', code: 'TB_INVALID_INPUT' },
    );
    assert.deepEqual({ ...api.errorInfo(new Error('plain')) }, { field: '', message: 'plain', code: '' });
    assert.deepEqual({ ...api.errorInfo('text') }, { field: '', message: 'text', code: '' });
    assert.deepEqual({ ...api.errorInfo(undefined) }, { field: '', message: 'undefined', code: '' });
    const good = api.check('entityCount', defaultQuery('entityCount'));
    assert.equal(good.ok, true);
    assert.deepEqual(JSON.parse(JSON.stringify(good.value)), defaultQuery('entityCount'));
    assert.deepEqual(
      { ...api.check('nope', {}) },
      { ok: false, field: '', message: 'unknown query mode "nope"', code: '' },
    );
  });

  it('the builder helpers work in the browser context as in Node', function () {
    for (const m of QUERY_MODES) {
      assert.equal(api.summarize(m, defaultQuery(m)), summarize(m, defaultQuery(m)));
      assert.deepEqual(JSON.parse(JSON.stringify(api.jsonSchema(m))), jsonSchema(m));
      assert.deepEqual(JSON.parse(JSON.stringify(api.defaultQuery(m))), defaultQuery(m));
    }
    const q = api.defaultQuery('entityData');
    api.setPath(q, 'keyFilters.0', api.newKeyFilter('NUMERIC'));
    api.setPath(q, 'keyFilters.0.key.key', 'temperature');
    assert.equal(api.check('entityData', q).ok, true);
    const text = api.formatQuery(q);
    const line = text.slice(0, text.indexOf('"temperature"')).split('\n').length;
    assert.equal(api.locatePath(text, 'query.keyFilters[0].key.key').line, line);
    const parsed = api.parseJsonText('{\n  "a": }');
    assert.equal(parsed.ok, false);
    assert.equal(parsed.line, 2);
  });
});
