/**
 * Offline scorecard: what `node-red-dev validate` checks (it needs the network, see node-red-reference §2),
 * plus the layout rules the Node-RED loader and the Flow Library rely on. Reads package.json at test time,
 * so it tests whatever node set is listed there.
 */
import { strict as assert } from 'node:assert';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import vm from 'node:vm';
import * as acorn from 'acorn';

// semver is a dependency of node-red (a devDependency here); no type package is installed for it.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const semver = require('semver') as {
  validRange(range: string): string | null;
  satisfies(version: string, range: string): boolean;
  gte(a: string, b: string): boolean;
  valid(v: string): string | null;
};

const root = path.resolve(__dirname, '..');
const readText = (rel: string): string => fs.readFileSync(path.join(root, rel), 'utf8');
const readJson = (rel: string): any => JSON.parse(readText(rel));
const exists = (rel: string): boolean => fs.existsSync(path.join(root, rel));

const pkg = readJson('package.json');
const nodesMap: Record<string, string> = (pkg['node-red'] && pkg['node-red'].nodes) || {};
const listedTypes = Object.keys(nodesMap);

const CONFIG_TYPE = 'tb-connection';
const CATEGORY = 'ThingsBoard';

/** Runtime status keys the node files pass to RED._ (they live in the tb-connection catalog): the StatusKey union. */
const STATUS_KEYS: string[] = (() => {
  const src = readText('src/node-red/status.ts');
  const union = /export type StatusKey =([^;]+);/.exec(src);
  assert.ok(union, 'StatusKey union in src/node-red/status.ts');
  return Array.from(union![1].matchAll(/'(\w+)'/g), (m) => m[1]);
})();
/**
 * Status texts allowed past the 20-character aim (with 5-digit numbers filled in), up to 26: a whole phrase
 * reads better than a clipped one, and with everyday numbers (up to 2 digits) they still fit in 20, except
 * "watching, no alarms yet" (23), the wording the query-builder issue asked for. A bulk action's partial failure,
 * "19 of 20, 1 failed" (the device-actions issue's wording), holds three numbers: up to 28 with 5-digit ones.
 */
const LONG_STATUS_KEYS = new Set([
  'watchingEntities',
  'noAlarmsYet',
  'alarmOnSome',
  'noAlarmOnAll',
  'bulkPartial',
  'notifyPartly',
]);
const LONG_STATUS_MAX: Record<string, number> = { bulkPartial: 28 };

/** Core node types an example may use (no third-party nodes in examples). */
const CORE_TYPES = new Set([
  'comment',
  'inject',
  'debug',
  'function',
  'switch',
  'change',
  'template',
  'join',
  'split',
  'catch',
  'status',
  'complete',
  'file',
  'file in',
  'delay',
  'trigger',
  'range',
  'json',
  'csv',
  'link in',
  'link out',
  'link call',
  'sort',
  'batch',
  'rbe',
  'filter',
  'exec',
  'junction',
  'group',
  'http in',
  'http response',
  'http request',
]);

/**
 * Dashboard 2's types (`@flowfuse/node-red-dashboard`), the one other module an example may use: the dashboard
 * example draws our nodes' output in its widgets. Its comment says to install it; the package never needs it.
 */
const DASHBOARD_TYPES = new Set(['ui-base', 'ui-page', 'ui-theme', 'ui-group', 'ui-chart', 'ui-table', 'ui-gauge']);

// ---------------------------------------------------------------------------------------------------------
// Parsing helpers (the same approach as node-red-dev's checknodes.js: regex out the script blocks, acorn-parse).

type AnyNode = acorn.Node & Record<string, any>;

function scriptBlocks(html: string): string[] {
  const re = /<script.+?type=['"]text\/javascript['"].*?>([\S\s]*?)<\/script>/gi;
  const out: string[] = [];
  let m: RegExpExecArray | null;
  while ((m = re.exec(html)) !== null) out.push(m[1]);
  return out;
}

function walk(node: unknown, visit: (n: AnyNode) => void): void {
  if (!node || typeof node !== 'object') return;
  if (Array.isArray(node)) {
    for (const c of node) walk(c, visit);
    return;
  }
  const n = node as AnyNode;
  if (typeof n.type === 'string') visit(n);
  for (const key of Object.keys(n)) {
    if (key === 'loc' || key === 'range') continue;
    const v = (n as Record<string, unknown>)[key];
    if (v && typeof v === 'object') walk(v, visit);
  }
}

function propName(p: AnyNode): string | undefined {
  if (p.type !== 'Property') return undefined;
  if (p.key.type === 'Identifier') return p.key.name;
  if (p.key.type === 'Literal') return String(p.key.value);
  return undefined;
}

function prop(obj: AnyNode, name: string): AnyNode | undefined {
  const p = (obj.properties as AnyNode[]).find((q) => propName(q) === name);
  return p ? (p.value as AnyNode) : undefined;
}

/** The value of a literal property of an object expression (undefined when absent or not a literal). */
function literal(obj: AnyNode | undefined, name: string): unknown {
  const v = obj && obj.type === 'ObjectExpression' ? prop(obj, name) : undefined;
  return v && v.type === 'Literal' ? v.value : undefined;
}

/** The AST node type of a property's value (undefined when absent). */
function kindOf(obj: AnyNode | undefined, name: string): string | undefined {
  const v = obj && obj.type === 'ObjectExpression' ? prop(obj, name) : undefined;
  return v ? v.type : undefined;
}

interface Registration {
  type: unknown;
  def: AnyNode;
}

function registrations(html: string): Registration[] {
  const regs: Registration[] = [];
  for (const block of scriptBlocks(html)) {
    const ast = acorn.parse(block, { ecmaVersion: 2020 });
    walk(ast, (n) => {
      if (
        n.type === 'CallExpression' &&
        n.callee.type === 'MemberExpression' &&
        n.callee.property &&
        n.callee.property.name === 'registerType'
      ) {
        const [first, second] = n.arguments as AnyNode[];
        regs.push({ type: first && first.type === 'Literal' ? first.value : first, def: second });
      }
    });
  }
  return regs;
}

function lookup(catalog: any, key: string): unknown {
  return key
    .split('.')
    .filter((k) => k !== '')
    .reduce((o: any, k) => (o && typeof o === 'object' ? o[k] : undefined), catalog);
}

/** data-i18n="key", "[placeholder]key", "[html]key;[title]other" -> the keys, without other namespaces. */
function i18nKeys(html: string): string[] {
  const keys: string[] = [];
  const re = /data-i18n="([^"]+)"/g;
  let m: RegExpExecArray | null;
  while ((m = re.exec(html)) !== null) {
    for (const part of m[1].split(';')) {
      const key = part.replace(/^\[[^\]]*\]/, '').trim();
      if (key && !key.includes(':')) keys.push(key);
    }
  }
  return keys;
}

/** The typed module of a node type's dialog: every type has one (checked below). */
const dialogModule = (type: string): string => `src/nodes/${type}/editor.ts`;

/**
 * Catalog keys named in the editor scripts: the ones passed to the namespaced t('…') helper, and every string
 * literal that starts with "<type>." (the message keys given to the shared validators); in the html's inline
 * script and in the type's typed module (keys built from parts, such as `${type}.label.${prop}`, are checked by the
 * sandbox, which records every key the dialog asks for).
 */
function tKeys(html: string, type: string): string[] {
  const keys: string[] = [];
  for (const block of scriptBlocks(html)) {
    const re = /\bt\(\s*'([^']+)'/g;
    let m: RegExpExecArray | null;
    while ((m = re.exec(block)) !== null) keys.push(m[1]);
    walk(acorn.parse(block, { ecmaVersion: 2020 }), (n) => {
      if (
        n.type === 'Literal' &&
        typeof n.value === 'string' &&
        n.value.startsWith(`${type}.`) &&
        !/\.(svg|png)$/.test(n.value)
      ) {
        keys.push(n.value);
      }
    });
  }
  const module = dialogModule(type);
  if (exists(module)) {
    for (const m of readText(module).matchAll(/(['`])([\w-]+\.[\w.]+)\1/g)) {
      if (m[2].startsWith(`${type}.`)) keys.push(m[2]);
    }
  }
  return Array.from(new Set(keys));
}

// ---------------------------------------------------------------------------------------------------------
// The editor bundle (resources/tb-editor.js) and a sandbox that runs the node definitions against it.

/** The editor's one script (built from src/editor by npm run build): TbQuery, TbBuilder and TbEditor. */
const EDITOR_SCRIPT = 'resources/tb-editor.js';
const EDITOR_SRC = `resources/${pkg.name}/tb-editor.js`;
/** The builder's texts live in the tb-connection catalog, under "builder". */
const BUILDER_NS = `${pkg.name}/${CONFIG_TYPE}:${CONFIG_TYPE}.builder.`;

interface Sandbox {
  defs: Record<string, any>;
  /** Editor form inputs by id: present while "the dialog is open". */
  form: Record<string, { value: unknown; checkbox?: boolean }>;
  /** Config nodes RED.nodes.node() knows. */
  configs: Record<string, unknown>;
  /** Keys passed to RED._, namespace included. */
  keys: string[];
  window: Record<string, any>;
  run(code: string): void;
}

/** A minimal editor (RED, $ and window) in a vm context, enough to register nodes and run their validators. */
function editorSandbox(): Sandbox {
  const sb: Sandbox = { defs: {}, form: {}, configs: {}, keys: [], window: {}, run: () => undefined };
  const $ = (selector: string) => {
    const m = /^#([\w-]+)$/.exec(selector);
    if (!m) throw new Error(`the sandbox only selects by id (${selector})`);
    const input = sb.form[m[1]];
    return {
      length: input ? 1 : 0,
      is: (what: string) => !!(input && input.checkbox && what === ':checkbox'),
      prop: () => input && input.value,
      val: () => input && input.value,
    };
  };
  const RED = {
    _: (key: string, opts?: Record<string, unknown>) => {
      sb.keys.push(key);
      return opts ? `${key} ${JSON.stringify(opts)}` : key;
    },
    nodes: {
      node: (id: string) => sb.configs[id],
      registerType: (type: string, def: unknown) => {
        sb.defs[type] = def;
      },
    },
    validators: { typedInput: () => (_v: unknown, _opt: unknown) => true },
    utils: { validatePropertyExpression: () => true },
  };
  const context = vm.createContext({ RED, $, window: sb.window });
  sb.run = (code: string) => {
    vm.runInContext(code, context);
    // In a browser, window properties are globals.
    for (const k of Object.keys(sb.window)) (context as Record<string, unknown>)[k] = sb.window[k];
  };
  return sb;
}

/** A seeded PRNG (mulberry32), so that a failure can be replayed. */
function prng(seed: number): (n: number) => number {
  return (n: number) => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return Math.floor((((t ^ (t >>> 14)) >>> 0) / 4294967296) * n);
  };
}

/** Values to try on every property: types, enums, numbers, lists, ids, URLs and queries, good and bad. */
const UUID_SAMPLE = '0f8fad5b-d9cb-469f-a165-70867728950e';
const VALUE_CORPUS: unknown[] = [
  undefined,
  null,
  '',
  ' ',
  'x',
  true,
  false,
  'true',
  'false',
  0,
  1,
  5,
  10,
  11,
  -1,
  1.5,
  '0',
  '1',
  '24',
  '-3',
  '11',
  '1e3',
  'find',
  'keys',
  'count',
  'flat',
  'raw',
  'chart',
  'table',
  'json',
  'msg',
  'flow',
  'global',
  'jsonata',
  'env',
  'str',
  'entityData',
  'entityCount',
  'alarmData',
  'alarmCount',
  'minutes',
  'hours',
  'weeks',
  'NONE',
  'AVG',
  'password',
  'apiKey',
  'token',
  'same',
  'own',
  'view',
  'last',
  'fixed',
  'rows',
  'csv',
  'DEVICE',
  'TENANT',
  'SERVER_SCOPE, CLIENT_SCOPE',
  'SERVER_SCOPE,BAD',
  'a,,b',
  'a, b',
  'CRITICAL,MAJOR',
  'CRITICAL,FOO',
  UUID_SAMPLE,
  'http://tb:8080',
  'ftp://x',
  'Bearer abc',
  '1767225600000',
  '1767312000000',
  'c-ok',
  'c-invalid',
  'c-no-analytics',
  'missing',
  '_ADD_',
  'tls-ok',
  'tls-bad',
  '{',
  '[]',
  '{}',
  '{"entityFilter":{"type":"x"}}',
  '{"entityFilter":1}',
  '{"entityFilter":{"type":"x"},"pageLink":[]}',
  '{"entityFilter":{"type":"x"},"pageLink":{"pageSize":0}}',
  '{"entityFilter":{"type":"x"},"pageLink":{"page":-1}}',
  '{"statusList":["X"]}',
  '{"severityList":["FOO"]}',
  '{"entityFilter":{"type":"x"},"statusList":["X"]}',
  '{"entityFilter":{"type":"x"},"pageLink":{"severityList":["FOO"]}}',
  '{"pageLink":{"statusList":["X"]}}',
  '{"entityFilter":{"type":"x"},"keyFilters":{}}',
  '{"a":[1]}',
  '{"a":1}',
  // tb-alarm-action: its actions, sources and a fixed originator.
  'acknowledge',
  'clear',
  'assign',
  'unassign',
  'comment',
  'raise',
  'delete',
  'auto',
  'CRITICAL',
  `{"entityType":"DEVICE","id":"${'0f8fad5b-d9cb-469f-a165-70867728950e'}"}`,
  '{"temperature":31}',
  // tb-telemetry, tb-attributes, tb-rpc: operations, scopes, modes, durations and times, a list of entities.
  'save',
  'latest',
  'history',
  'read',
  'SERVER_SCOPE',
  'SHARED_SCOPE',
  'CLIENT_SCOPE',
  'any',
  'oneway',
  'twoway',
  'final',
  'accepted',
  'ASC',
  'DESC',
  'WEEK',
  'MILLISECONDS',
  '24h',
  '30s',
  '60000',
  '2026-01-01T00:00:00Z',
  'setGpio',
  `[{"entityType":"DEVICE","id":"${'0f8fad5b-d9cb-469f-a165-70867728950e'}"}]`,
  `{"entityType":"ASSET","id":"${'0f8fad5b-d9cb-469f-a165-70867728950e'}"}`,
  // tb-wait-until: what it waits for, key types, conditions, value sources, alarm states, a list to compare with.
  'value',
  'alarm',
  'TIME_SERIES',
  'SERVER_ATTRIBUTE',
  'ENTITY_FIELD',
  'temperature',
  'eq',
  'gte',
  'in',
  'nin',
  'changes',
  'num',
  'bool',
  'acknowledged',
  'cleared',
  'either',
  'all',
  '90s',
  '["online","idle"]',
  // tb-trigger: what it watches, when, alarm states, durations, and condition rows (fine, without a key, a value that
  // does not fit its comparison).
  'query',
  'entity',
  'message',
  'silence',
  'active',
  'unacknowledged',
  'gt',
  '10m',
  [],
  [{ keyType: 'TIME_SERIES', key: 'temperature', operator: 'gt', value: '25', valueType: 'num' }],
  [{ keyType: 'TIME_SERIES', key: '', operator: 'gt', value: '25', valueType: 'num' }],
  [{ keyType: 'TIME_SERIES', key: 'temperature', operator: 'gt', value: 'warm', valueType: 'str' }],
];
const CHECKBOXES = new Set([
  'allPages',
  'split',
  'keysTimeseries',
  'keysAttributes',
  'history',
  'parseNumbers',
  'sendInitial',
  'usetls',
]);
const SANDBOX_CONFIGS = {
  'c-ok': { type: CONFIG_TYPE, valid: true, analyticsUrl: 'http://tb:8888/apiTrendz/' },
  'c-invalid': { type: CONFIG_TYPE, valid: false },
  'c-no-analytics': { type: CONFIG_TYPE, valid: true, analyticsUrl: '' },
  'tls-ok': { type: 'tls-config', valid: true },
  'tls-bad': { type: 'tls-config', valid: false },
};

const htmlFiles = fs.readdirSync(path.join(root, 'nodes')).filter((f) => f.endsWith('.html'));
const htmlTypes = htmlFiles.map((f) => f.replace(/\.html$/, ''));
/** Types to check: the ones the package lists, plus editor files that exist ahead of their runtime. */
const allTypes = Array.from(new Set([...listedTypes, ...htmlTypes])).sort();

const exampleFiles: string[] = [];
(function collect(dir: string) {
  if (!fs.existsSync(dir)) return;
  for (const f of fs.readdirSync(dir)) {
    const full = path.join(dir, f);
    if (fs.statSync(full).isDirectory()) collect(full);
    else exampleFiles.push(full);
  }
})(path.join(root, 'examples'));

// ---------------------------------------------------------------------------------------------------------

describe('package scorecard (offline node-red-dev validate)', function () {
  it('P01: has a license', function () {
    assert.equal(typeof pkg.license, 'string');
    assert.ok(pkg.license.length > 0);
  });

  it('P03: has a repository or bugs link', function () {
    assert.ok(pkg.repository || pkg.bugs, 'package.json needs "repository" or "bugs"');
  });

  it('P04: the name is node-red-contrib-* or scoped', function () {
    assert.match(pkg.name, /^(@[a-z0-9-~][a-z0-9-._~]*\/.+|node-red-contrib-.+)$/);
  });

  it('P05: keywords include node-red and thingsboard', function () {
    assert.ok(Array.isArray(pkg.keywords));
    assert.ok(pkg.keywords.includes('node-red'));
    assert.ok(pkg.keywords.includes('thingsboard'));
  });

  it('P06: node-red.version is a valid range that admits 3.1.0, 4.1.8 and 5.0.7', function () {
    const range = pkg['node-red'] && pkg['node-red'].version;
    assert.equal(typeof range, 'string');
    assert.ok(semver.validRange(range), `invalid semver range ${range}`);
    for (const v of ['3.1.0', '4.1.8', '5.0.7']) assert.ok(semver.satisfies(v, range), `${range} does not admit ${v}`);
  });

  it('P07: engines.node admits 18.5.0 and 22.9.0 (the latest Node-RED floor)', function () {
    const range = pkg.engines && pkg.engines.node;
    assert.equal(typeof range, 'string');
    assert.ok(semver.validRange(range), `invalid semver range ${range}`);
    for (const v of ['18.5.0', '22.9.0']) assert.ok(semver.satisfies(v, range), `${range} does not admit ${v}`);
  });

  it('D01: at most 6 runtime dependencies', function () {
    assert.ok(Object.keys(pkg.dependencies || {}).length <= 6);
  });

  it('Dashboard 2 is a devDependency only: no runtime dependency, and no source file loads it', function () {
    const name = '@flowfuse/node-red-dashboard';
    assert.ok(pkg.devDependencies[name], `${name} is a devDependency (the demo and the browser tests use it)`);
    assert.equal((pkg.dependencies || {})[name], undefined);
    assert.equal((pkg.peerDependencies || {})[name], undefined);
    const loads = /(\bfrom|\bimport|\brequire)\s*\(?\s*['"]@flowfuse\/node-red-dashboard/;
    const loading: string[] = [];
    (function walk(dir: string) {
      for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
        const full = path.join(dir, e.name);
        if (e.isDirectory()) walk(full);
        else if (/\.(ts|js|html)$/.test(e.name) && loads.test(fs.readFileSync(full, 'utf8')))
          loading.push(path.relative(root, full));
      }
    })(path.join(root, 'src'));
    assert.deepEqual(loading, []);
  });

  it('D02: no agent-base older than 6 in package-lock.json', function () {
    const lock = readJson('package-lock.json');
    const bad: string[] = [];
    for (const [where, info] of Object.entries<any>(lock.packages || {})) {
      if (/(^|\/)node_modules\/agent-base$/.test(where) && info.version && !semver.gte(info.version, '6.0.0')) {
        bad.push(`${where}@${info.version}`);
      }
    }
    assert.deepEqual(bad, []);
  });

  it('lists the node set in node-red.nodes', function () {
    assert.ok(listedTypes.length > 0);
    assert.ok(listedTypes.includes(CONFIG_TYPE));
  });

  describe('N02: examples', function () {
    it('exist, and each file is a JSON array', function () {
      assert.ok(exampleFiles.length > 0, 'no examples found');
      for (const f of exampleFiles) {
        const flow = JSON.parse(fs.readFileSync(f, 'utf8'));
        assert.ok(Array.isArray(flow), `${path.basename(f)} is not a JSON array`);
      }
    });

    it('cover every non-config node type', function () {
      const used = new Set<string>();
      for (const f of exampleFiles) for (const n of JSON.parse(fs.readFileSync(f, 'utf8'))) used.add(n.type);
      const flowTypes = allTypes.filter((t) => t !== CONFIG_TYPE);
      const missing = flowTypes.filter((t) => !used.has(t));
      assert.deepEqual(missing, [], `no example uses ${missing.join(', ')}`);
    });

    it('share one connection node (same id, name and settings, no credentials): importing several asks for them once', function () {
      const conns = exampleFiles.map((f) =>
        JSON.parse(fs.readFileSync(f, 'utf8')).filter((n: any) => n.type === CONFIG_TYPE),
      );
      for (const [i, c] of conns.entries())
        assert.equal(c.length, 1, `${path.basename(exampleFiles[i])}: exactly one tb-connection config node`);
      const [first] = conns[0];
      assert.equal(first.name, 'My ThingsBoard');
      assert.equal(first.url, 'http://127.0.0.1:8080');
      assert.equal(first.authMode, 'password');
      assert.equal(first.analyticsUrl, '', 'no analytics URL: the report nodes say to fill it in');
      assert.equal(first.z, undefined, "a global config node, so that every example's tab can use it");
      for (const [i, [c]] of conns.entries())
        assert.deepEqual(c, first, `${path.basename(exampleFiles[i])}: the shared connection`);
    });

    for (const f of exampleFiles) {
      const name = path.relative(path.join(root, 'examples'), f);
      const label = path.basename(f).replace(/\.json$/, '');
      const flow: any[] = JSON.parse(fs.readFileSync(f, 'utf8'));
      const tab = flow[0] || {};
      const byId = new Map(flow.map((n) => [n.id, n]));
      /** Nodes on the canvas (a config node has no position). */
      const placed = flow.filter((n) => n.type !== 'tab' && 'x' in n && 'y' in n);

      it(`${name}: on its own tab named after it, starts with a comment, uses core nodes only, is self-contained`, function () {
        assert.equal(tab.type, 'tab', "the first node is the example's tab");
        assert.equal(tab.label, label, 'the tab is named after the example');
        assert.equal(flow.filter((n) => n.type === 'tab' || n.type === 'subflow').length, 1, 'one tab, no subflow');
        assert.equal(flow[1] && flow[1].type, 'comment', 'the first node on the tab is a comment node');
        const ids = new Set<string>();
        for (const n of flow) {
          assert.equal(typeof n.id, 'string');
          assert.ok(!ids.has(n.id), `duplicate id ${n.id}`);
          ids.add(n.id);
          assert.ok(
            n.type === 'tab' || CORE_TYPES.has(n.type) || DASHBOARD_TYPES.has(n.type) || allTypes.includes(n.type),
            `third-party node type ${n.type}`,
          );
          assert.ok(!('credentials' in n), `${n.type} ${n.id} carries credentials`);
        }
        for (const n of placed) assert.equal(n.z, tab.id, `${n.type} ${n.id} is on the example's tab`);
        if (flow.some((n) => DASHBOARD_TYPES.has(n.type)))
          assert.match(flow[1].info, /`@flowfuse\/node-red-dashboard`/, 'its comment names Dashboard 2, to install');
        const conns = flow.filter((n) => n.type === CONFIG_TYPE);
        assert.equal(conns.length, 1, 'exactly one tb-connection config node');
        for (const n of flow) {
          for (const port of n.wires || [])
            for (const target of port) assert.ok(ids.has(target), `${n.id} is wired to missing ${target}`);
          if (n.type !== CONFIG_TYPE && allTypes.includes(n.type)) {
            assert.equal(n.connection, conns[0].id, `${n.type} ${n.id} does not use the example's connection`);
          }
          // A catch or status node's scope lists node ids (tb-attributes has a scope of its own: a string).
          for (const target of Array.isArray(n.scope) ? n.scope : [])
            assert.ok(ids.has(target), `${n.id} scope names missing ${target}`);
        }
      });

      it(`${name}: reports nothing to the log while its connection is not set up`, function () {
        // A repeating inject that fires at deploy would fail at once (and then every interval) while the
        // connection has no credentials: it waits for its first interval, or a press of its button.
        for (const n of flow.filter((x) => x.type === 'inject')) {
          const repeats = [n.repeat, n.crontab].some((v) => v !== undefined && v !== null && String(v).trim() !== '');
          if (repeats) assert.equal(n.once, false, `inject "${n.name}" repeats: it must not also fire at deploy`);
        }
        // Every message error goes to a Catch node (which keeps it out of the log) and on to the debug sidebar.
        const catches = flow.filter(
          (n) => n.type === 'catch' && !n.d && (n.scope === null || n.scope === undefined) && !n.uncaught,
        );
        assert.ok(catches.length > 0, 'a Catch node for every node of the tab');
        const shown = catches.some((c) =>
          (c.wires || []).some((port: string[]) =>
            port.some((id) => {
              const d = byId.get(id);
              return d && d.type === 'debug' && d.active === true && d.tosidebar === true && !d.d;
            }),
          ),
        );
        assert.ok(shown, 'the Catch node is wired to an active debug node that shows in the sidebar');
      });

      it(`${name}: no change or function node moves a result into msg.entity (a query's Output to does it)`, function () {
        for (const n of flow.filter((x) => x.type === 'change')) {
          for (const r of n.rules || [])
            assert.ok(
              !(r.t === 'set' && (r.pt || 'msg') === 'msg' && /^(msg\.)?entity$/.test(r.p)),
              `change "${n.name}" sets msg.entity`,
            );
        }
        for (const n of flow.filter((x) => x.type === 'function'))
          assert.doesNotMatch(String(n.func), /msg\.entity\s*=[^=]/, `function "${n.name}" sets msg.entity`);
      });

      it(`${name}: no platform-specific paths (files are written where the user chooses)`, function () {
        const absolute = (v: string) => path.posix.isAbsolute(v) || path.win32.isAbsolute(v) || /^~[\\/]/.test(v);
        for (const n of flow.filter((x) => x.type === 'file' || x.type === 'file in')) {
          assert.equal(n.filenameType || 'str', 'str', `${n.type} "${n.name}": a file name the user edits in the node`);
          assert.ok(typeof n.filename === 'string' && n.filename.trim() !== '', `${n.type}: a default file name`);
          assert.ok(!absolute(n.filename), `${n.type}: "${n.filename}" is a path of one platform; use a relative name`);
          assert.doesNotMatch(
            n.filename,
            /[\\:*?"<>|]/,
            `${n.type}: "${n.filename}" is not a valid file name on Windows`,
          );
        }
        // Nothing else in the flow (its comments aside) names a path of one platform.
        const walk = (v: unknown, where: string): void => {
          if (typeof v === 'string') {
            assert.doesNotMatch(
              v,
              /(^|[\s"'`(=])(\/(tmp|home|var|usr|etc|Users|opt)\/|[A-Za-z]:\\)/,
              `${where}: a platform-specific path`,
            );
          } else if (v && typeof v === 'object') {
            for (const [k, x] of Object.entries(v)) walk(x, `${where}.${k}`);
          }
        };
        for (const n of flow) walk(n.type === 'comment' ? { ...n, info: '' } : n, `${n.type} ${n.id}`);
      });
    }
  });

  it('tb-connection.json holds every runtime status key', function () {
    const catalog = readJson('nodes/locales/en-US/tb-connection.json');
    for (const key of STATUS_KEYS) {
      const v = lookup(catalog, `tb-connection.status.${key}`);
      assert.equal(typeof v, 'string', `tb-connection.status.${key} is missing`);
      // Status texts stay within 20 characters with 5-digit numbers filled in (a few phrases within 26).
      const shown = (v as string).replace(/__\w+__/g, '12345');
      const max = LONG_STATUS_MAX[key] ?? (LONG_STATUS_KEYS.has(key) ? 26 : 20);
      assert.ok(
        shown.length > 0 && shown.length <= max,
        `tb-connection.status.${key} is empty or longer than ${max} ("${shown}")`,
      );
      if (LONG_STATUS_KEYS.has(key) && key !== 'noAlarmsYet') {
        const everyday = (v as string).replace(/__\w+__/g, '99');
        assert.ok(
          everyday.length <= 20,
          `tb-connection.status.${key} is longer than 20 with 2-digit numbers ("${everyday}")`,
        );
      }
    }
    // ...and the catalog holds no status text that no code uses any more.
    const unused = Object.keys(lookup(catalog, 'tb-connection.status') as object).filter(
      (k) => !STATUS_KEYS.includes(k),
    );
    assert.deepEqual(unused, [], 'status texts no StatusKey names');
  });

  it('every node type has a colour, and all share one colour', function () {
    const colours = new Set<unknown>();
    for (const t of htmlTypes) {
      const [reg] = registrations(readText(`nodes/${t}.html`));
      colours.add(reg ? literal(reg.def, 'color') : undefined);
    }
    assert.equal(colours.size, 1, `colours: ${Array.from(colours).join(', ')}`);
  });

  it('every icon is unique to its type', function () {
    const icons = htmlTypes.map((t) => {
      const [reg] = registrations(readText(`nodes/${t}.html`));
      return literal(reg.def, 'icon');
    });
    assert.equal(new Set(icons).size, icons.length);
  });

  describe('editor script (resources/tb-editor.js, built from src/editor)', function () {
    it("is built, and parses as an ES2019 script (Node-RED 3.1's browsers)", function () {
      assert.ok(exists(EDITOR_SCRIPT), `${EDITOR_SCRIPT} is missing: run \`npm run build\``);
      acorn.parse(readText(EDITOR_SCRIPT), { ecmaVersion: 2019 });
    });

    it('is shipped: package.json "files" lists it (the published files are checked below)', function () {
      assert.ok((pkg.files as string[]).includes(EDITOR_SCRIPT));
    });

    it('defines window.TbEditor once: a second run keeps the first', function () {
      const sb = editorSandbox();
      sb.run(readText(EDITOR_SCRIPT));
      const first = sb.window.TbEditor;
      assert.equal(typeof first, 'object');
      assert.equal(typeof first.dialog, 'function');
      sb.run(readText(EDITOR_SCRIPT));
      assert.equal(sb.window.TbEditor, first);
    });

    it('every node html includes it once, by a relative URL, before its definition script', function () {
      for (const file of htmlFiles) {
        const html = readText(`nodes/${file}`);
        const tags = html.match(/<script\b[^>]*\bsrc=[^>]*>/g) || [];
        assert.deepEqual(tags, [`<script src="${EDITOR_SRC}">`], `${file}: the editor script`);
        // The editor waits for relative script URLs (resources/...) before it runs the inline scripts.
        const at = html.indexOf(tags[0]!);
        const definition = html.search(/<script type="text\/javascript">/);
        assert.ok(definition > at, `${file}: the editor script comes before the definition`);
      }
    });
  });

  for (const type of allTypes) {
    describe(type, function () {
      const listed = listedTypes.includes(type);

      if (listed) {
        it('has nodes/<type>.js and nodes/<type>.html with the nodes-map basename', function () {
          assert.equal(nodesMap[type], `nodes/${type}.js`);
          assert.ok(exists(`nodes/${type}.js`), `nodes/${type}.js is missing`);
          assert.ok(exists(`nodes/${type}.html`), `nodes/${type}.html is missing`);
        });
      }

      it('registers itself once, statically parseable (literal type, inline definition)', function () {
        const regs = registrations(readText(`nodes/${type}.html`));
        assert.equal(regs.length, 1, 'exactly one registerType call');
        const { type: firstArg, def } = regs[0];
        assert.equal(firstArg, type, 'the first argument is a string literal equal to the nodes-map key');
        assert.equal(def && def.type, 'ObjectExpression', 'the second argument is an object literal');
        assert.equal(kindOf(def, 'defaults'), 'ObjectExpression', 'defaults is an inline object');
        const creds = prop(def, 'credentials');
        if (creds) assert.equal(creds.type, 'ObjectExpression', 'credentials is an inline object');
        for (const key of ['category', 'color', 'icon', 'inputs', 'outputs']) {
          assert.equal(kindOf(def, key), 'Literal', `${key} is a literal`);
        }
        assert.equal(literal(def, 'category'), type === CONFIG_TYPE ? 'config' : CATEGORY);
      });

      it(`registers from its typed module (${dialogModule(type)}): the html holds the registration only`, function () {
        assert.ok(
          exists(dialogModule(type)),
          `${dialogModule(type)} is missing: every dialog is TypeScript (CONTRIBUTING.md, "Editor code")`,
        );
        const blocks = scriptBlocks(readText(`nodes/${type}.html`));
        assert.equal(blocks.length, 1, 'one inline script');
        // (function () { var D = TbEditor.dialog('<type>'); RED.nodes.registerType('<type>', {...}); })();
        const [stmt] = acorn.parse(blocks[0], { ecmaVersion: 2020 }).body as AnyNode[];
        const body = stmt.expression.callee.body.body as AnyNode[];
        assert.equal(body.length, 2, 'var D = TbEditor.dialog(...) and the registerType call, nothing else');
        const init = body[0].declarations[0].init;
        assert.equal(blocks[0].slice(init.callee.start, init.callee.end), 'TbEditor.dialog');
        assert.equal(init.arguments[0].value, type, 'the dialog of its own type');
        const D = body[0].declarations[0].id.name;
        const [{ def }] = registrations(readText(`nodes/${type}.html`));
        const member = (n: AnyNode | undefined, name: string, arg?: string): boolean => {
          const callee = n && n.type === 'CallExpression' ? n.callee : n;
          const ok =
            !!callee && callee.type === 'MemberExpression' && callee.object.name === D && callee.property.name === name;
          return arg === undefined
            ? ok && n!.type === 'MemberExpression'
            : ok && n!.arguments.length === 1 && n!.arguments[0].value === arg;
        };
        for (const section of ['defaults', 'credentials']) {
          const sec = prop(def, section);
          for (const p of sec ? (sec.properties as AnyNode[]) : []) {
            const name = propName(p)!;
            assert.ok(
              member(prop(p.value, 'label'), 'label', name),
              `${section}.${name}: label: ${D}.label('${name}')`,
            );
            assert.ok(
              member(prop(p.value, 'validate'), 'validate', name),
              `${section}.${name}: validate: ${D}.validate('${name}')`,
            );
          }
        }
        // Labels, port labels and the dialog's functions come from the module, never written inline.
        for (const p of def.properties as AnyNode[]) {
          const name = propName(p)!;
          if (['category', 'color', 'icon', 'inputs', 'outputs', 'defaults', 'credentials'].includes(name)) continue;
          assert.ok(
            member(p.value, name === 'label' ? 'nodeLabel' : name),
            `${name}: ${D}.${name === 'label' ? 'nodeLabel' : name}`,
          );
        }
      });

      it('gives every default a label and a validator, a version, and required tb-connection refs', function () {
        const [{ def }] = registrations(readText(`nodes/${type}.html`));
        const defaults = prop(def, 'defaults')!;
        for (const p of defaults.properties as AnyNode[]) {
          const name = propName(p);
          assert.equal(p.value.type, 'ObjectExpression', `defaults.${name} is an object`);
          assert.ok(prop(p.value, 'label'), `defaults.${name} has a label`);
          assert.ok(prop(p.value, 'validate'), `defaults.${name} has validate`);
          if (literal(p.value, 'type') === CONFIG_TYPE) {
            assert.equal(literal(p.value, 'required'), true, `defaults.${name} is required`);
          }
        }
        const version = prop(defaults, 'version');
        assert.ok(version, 'a version default');
        // The version of the settings a new node saves: a whole number, raised when a migration comes.
        const v = literal(version, 'value');
        assert.ok(Number.isInteger(v) && (v as number) >= 1, `version ${String(v)}`);
        const creds = prop(def, 'credentials');
        for (const p of creds ? (creds.properties as AnyNode[]) : []) {
          assert.ok(prop(p.value, 'type'), `credentials.${propName(p)} has a type`);
        }
        if (type !== CONFIG_TYPE) {
          const conn = prop(defaults, 'connection');
          assert.ok(conn, 'a connection default');
          assert.equal(literal(conn, 'type'), CONFIG_TYPE);
          for (const key of ['label', 'paletteLabel', 'labelStyle', 'inputLabels', 'outputLabels']) {
            assert.ok(prop(def, key), `${key} is defined`);
          }
        }
      });

      it('has its icon (src/nodes/<type>/icon.svg) as a white-on-transparent SVG with a viewBox', function () {
        const [{ def }] = registrations(readText(`nodes/${type}.html`));
        const icon = literal(def, 'icon') as string;
        assert.equal(icon, `${type}.svg`);
        assert.ok(
          exists(`nodes/icons/${icon}`),
          `nodes/icons/${icon} is missing (built from src/nodes/${type}/icon.svg)`,
        );
        const svg = readText(`src/nodes/${type}/icon.svg`);
        const rootTag = /<svg\b[^>]*>/.exec(svg);
        assert.ok(rootTag, 'an <svg> root element');
        assert.match(rootTag![0], /viewBox="[^"]+"/);
        assert.match(rootTag![0], /xmlns="http:\/\/www\.w3\.org\/2000\/svg"/);
        const colours = svg.match(/(?:fill|stroke)="([^"]+)"/g) || [];
        for (const c of colours) assert.match(c, /="(#fff|#ffffff|white|none)"/i, `non-white colour ${c}`);
      });

      it('has a catalog and a help file in nodes/locales/en-US', function () {
        const catalog = readJson(`nodes/locales/en-US/${type}.json`);
        assert.ok(catalog[type] && typeof catalog[type] === 'object', `the catalog's top-level key is ${type}`);
        const help = readText(`nodes/locales/en-US/${type}.html`);
        assert.match(help, new RegExp(`<script type="text/html" data-help-name="${type}">`));
        const body = help.replace(/^[\s\S]*?data-help-name="[^"]+">/, '').trim();
        assert.match(body, /^<p>[^<]+/, 'the help opens with a tooltip paragraph');
        const sections =
          type === CONFIG_TYPE ? ['Details', 'References'] : ['Inputs', 'Outputs', 'Details', 'References'];
        let at = -1;
        for (const s of sections) {
          const i = help.indexOf(`<h3>${s}</h3>`);
          assert.ok(i > at, `<h3>${s}</h3> in order`);
          at = i;
        }
        if (type !== CONFIG_TYPE) assert.match(help, /<dl class="message-properties">/);
      });

      it('uses only catalog keys that exist (data-i18n and t())', function () {
        const html = readText(`nodes/${type}.html`);
        const catalog = readJson(`nodes/locales/en-US/${type}.json`);
        const missing: string[] = [];
        for (const key of i18nKeys(html)) if (typeof lookup(catalog, key) !== 'string') missing.push(key);
        for (const key of tKeys(html, type)) {
          const v = lookup(catalog, key);
          if (key.endsWith('.') ? !(v && typeof v === 'object') : typeof v !== 'string') missing.push(key);
        }
        assert.deepEqual(missing, []);
      });

      it('runs in an editor sandbox: (v, opt) validators, valid defaults, every editor message from its catalog', function () {
        const sb = editorSandbox();
        Object.assign(sb.configs, SANDBOX_CONFIGS);
        sb.run(readText(EDITOR_SCRIPT));
        for (const block of scriptBlocks(readText(`nodes/${type}.html`))) sb.run(block);
        const def = sb.defs[type];
        assert.ok(def, 'registerType ran');
        const props: Array<[string, string]> = [];
        for (const kind of ['defaults', 'credentials'])
          for (const p of Object.keys(def[kind] || {})) props.push([kind, p]);
        const names = props.map(([, p]) => p).sort();
        assert.deepEqual(
          [...sb.window.TbEditor.dialog(type).properties].sort(),
          names,
          `${dialogModule(type)}: a validator for each property, no other`,
        );
        for (const [kind, p] of props) {
          // Node-RED shows the returned string only for a validator declared with two parameters.
          assert.equal(def[kind][p].validate.length, 2, `${kind}.${p}.validate is function (v, opt)`);
        }

        // The defaults are valid once the fields a user must fill in are filled in (dialog closed).
        const node: Record<string, unknown> = { type };
        for (const p of Object.keys(def.defaults)) node[p] = def.defaults[p].value;
        Object.assign(node, {
          connection: 'c-ok',
          url: 'http://tb:8080',
          viewConfigId: UUID_SAMPLE,
          key: 'temperature',
          value: '21',
          conditions: [{ keyType: 'TIME_SERIES', key: 'temperature', operator: 'gt', value: '25', valueType: 'num' }],
        });
        for (const p of Object.keys(def.defaults)) {
          assert.equal(def.defaults[p].validate.call(node, node[p], {}), true, `the default of ${p} is valid`);
        }

        const check = (self: Record<string, unknown>, kind: string, p: string, v: unknown) => {
          const r = def[kind][p].validate.call(self, v, { label: def[kind][p].label });
          assert.ok(
            r === true || (typeof r === 'string' && r !== ''),
            `${p}=${JSON.stringify(v)} gave ${JSON.stringify(r)}`,
          );
        };
        // Every value of the corpus on every property, the dialog closed.
        sb.form = {};
        for (const [kind, p] of props) for (const v of VALUE_CORPUS) check(node, kind, p, v);

        // Random dialog states (open or closed), every property each time. Fields mostly hold a value they
        // accept, so that conditions such as "the auth mode is API key" come up.
        const prefix = type === CONFIG_TYPE ? 'node-config-input-' : 'node-input-';
        const accepted: Record<string, unknown[]> = {};
        for (const [kind, p] of props) {
          accepted[p] = VALUE_CORPUS.filter((v) => v !== undefined && def[kind][p].validate.call(node, v, {}) === true);
        }
        const rnd = prng(20260101);
        const pick = <T>(a: T[]): T => a[rnd(a.length)];
        const someValue = (p: string) =>
          rnd(4) > 0 && accepted[p] && accepted[p].length ? pick(accepted[p]) : pick(VALUE_CORPUS);
        for (let i = 0; i < 3000; i++) {
          const open = rnd(4) > 0;
          const self: Record<string, unknown> = { type };
          sb.form = {};
          for (const p of [...props.map(([, q]) => q), 'usetls']) {
            if (open && CHECKBOXES.has(p)) sb.form[prefix + p] = { checkbox: true, value: rnd(2) === 0 };
            else if (open && rnd(4) > 0) sb.form[prefix + p] = { value: someValue(p) };
            if (rnd(2)) self[p] = someValue(p);
          }
          for (const [kind, p] of props) check(self, kind, p, someValue(p));
        }

        const ns = `${pkg.name}/${type}:`;
        const catalog = readJson(`nodes/locales/en-US/${type}.json`);
        const keys = Array.from(new Set(sb.keys));
        const builderCatalog = readJson(`nodes/locales/en-US/${CONFIG_TYPE}.json`)[CONFIG_TYPE].builder;
        const known = (k: string) =>
          k.startsWith(ns)
            ? typeof lookup(catalog, k.slice(ns.length)) === 'string'
            : k.startsWith(BUILDER_NS) && typeof lookup(builderCatalog, k.slice(BUILDER_NS.length)) === 'string';
        const unknown = keys.filter((k) => !known(k));
        assert.deepEqual(unknown, [], 'keys missing from the catalog');
        // And every message of the catalog's errors section is one the editor can show.
        const reached = keys
          .filter((k) => k.startsWith(`${ns}${type}.errors.`))
          .map((k) => k.slice(`${ns}${type}.errors.`.length));
        assert.deepEqual(
          reached.sort().join(' '),
          Object.keys(catalog[type].errors || {})
            .sort()
            .join(' '),
          'errors the sandbox reached',
        );
      });

      it('has an edit template with an input for each default', function () {
        const html = readText(`nodes/${type}.html`);
        const m = new RegExp(`<script type="text/html" data-template-name="${type}">([\\s\\S]*?)</script>`).exec(html);
        assert.ok(m, 'an edit template');
        const prefix = type === CONFIG_TYPE ? 'node-config-input-' : 'node-input-';
        const [{ def }] = registrations(html);
        const names = (prop(def, 'defaults')!.properties as AnyNode[]).map(propName).filter((n) => n !== 'version');
        const creds = prop(def, 'credentials');
        if (creds) names.push(...(creds.properties as AnyNode[]).map(propName));
        for (const name of names) assert.ok(m![1].includes(`id="${prefix}${name}"`), `no #${prefix}${name}`);
      });
    });
  }
});

// ---------------------------------------------------------------------------------------------------------
// The published files: npm's own list (npm pack --dry-run), against what Node-RED loads from the package.

/** The files `npm pack` would publish (npm's own "files" logic), after `npm run build` (npm test runs it). */
function packedFiles(): string[] {
  // Under `npm test` the npm that runs the tests; otherwise the one on the PATH.
  const npmCli = process.env.npm_execpath;
  const args = ['pack', '--dry-run', '--json', '--ignore-scripts'];
  const out =
    npmCli && /\.c?js$/.test(npmCli)
      ? execFileSync(process.execPath, [npmCli, ...args], {
          cwd: root,
          encoding: 'utf8',
          stdio: ['ignore', 'pipe', 'ignore'],
        })
      : execFileSync('npm', args, {
          cwd: root,
          encoding: 'utf8',
          stdio: ['ignore', 'pipe', 'ignore'],
          shell: process.platform === 'win32',
        });
  const [result] = JSON.parse(out.slice(out.indexOf('[')));
  return (result.files as Array<{ path: string }>).map((f) => f.path.split(path.sep).join('/')).sort();
}

/** dist/ files a node shim loads, and the relative requires they make in turn (the runtime's whole module graph). */
function runtimeModules(): string[] {
  const seen = new Set<string>();
  const visit = (rel: string): void => {
    if (seen.has(rel)) return;
    assert.ok(exists(rel), `${rel} is missing: run \`npm run build\` (npm test does)`);
    seen.add(rel);
    for (const m of readText(rel).matchAll(/\brequire\((["'])(\.{1,2}\/[^"']+)\1\)/g)) {
      let target = path.posix.join(path.posix.dirname(rel), m[2]);
      if (!target.endsWith('.js')) target = exists(`${target}.js`) ? `${target}.js` : `${target}/index.js`;
      visit(target);
    }
  };
  for (const shim of Object.values(nodesMap)) {
    const m = /require\((["'])(\.\.\/dist\/[^"']+)\1\)/.exec(readText(shim));
    assert.ok(m, `${shim} re-exports a compiled module from dist/`);
    visit(path.posix.join('nodes', m![2]));
  }
  return [...seen].filter((f) => f.startsWith('dist/'));
}

describe('published files (npm pack --dry-run)', function () {
  this.timeout(60000);
  let packed: string[];

  before(function () {
    packed = packedFiles();
  });

  it('hold exactly what Node-RED loads from the package, and nothing else', function () {
    // The README and the changelog it links to, beside the package files Node-RED loads.
    const expected = new Set<string>(['package.json', 'README.md', 'CHANGELOG.md', 'LICENSE']);
    const locales = fs.readdirSync(path.join(root, 'nodes', 'locales'));
    for (const [type, js] of Object.entries(nodesMap)) {
      expected.add(js); // the shim ...
      expected.add(js.replace(/\.js$/, '.html')); // ... and its editor definition beside it
      for (const lang of locales)
        for (const ext of ['json', 'html']) expected.add(`nodes/locales/${lang}/${type}.${ext}`);
      const [reg] = registrations(readText(`nodes/${type}.html`));
      expected.add(`nodes/icons/${literal(reg.def, 'icon')}`); // where the loader looks, beside the .js
      // The editor scripts each node's html includes (served from resources/).
      for (const m of readText(`nodes/${type}.html`).matchAll(/<script\b[^>]*\bsrc="resources\/([^"]+)"/g)) {
        assert.ok(m[1].startsWith(`${pkg.name}/`), `${type}.html includes ${m[1]} from another module`);
        expected.add(`resources/${m[1].slice(pkg.name.length + 1)}`);
      }
    }
    for (const f of runtimeModules()) expected.add(f);
    for (const f of fs.readdirSync(path.join(root, 'resources', 'schemas'))) expected.add(`resources/schemas/${f}`);
    for (const f of exampleFiles) expected.add(path.relative(root, f).split(path.sep).join('/'));
    const missing = [...expected].filter((f) => !packed.includes(f)).sort();
    const extra = packed.filter((f) => !expected.has(f));
    assert.deepEqual({ missing, extra }, { missing: [], extra: [] });
  });

  it('hold no source maps, sources, tests, demo data, pictures or build scripts', function () {
    const unwanted = packed.filter(
      (f) => /\.(map|ts)$/.test(f) || /^(src|test|bench|scripts|docs|icons|\.demo|\.ci|node_modules)\//.test(f),
    );
    assert.deepEqual(unwanted, []);
    // A compiled module that points at a source map would point at a file that is not there.
    const mapped = packed.filter((f) => f.endsWith('.js') && /\/\/# sourceMappingURL=/.test(readText(f)));
    assert.deepEqual(mapped, []);
  });

  it('hold the JSON schema of every kind of query, and the README needs no picture from the package', function () {
    for (const f of ['entity-data-query', 'entity-count-query', 'alarm-data-query', 'alarm-count-query']) {
      assert.ok(packed.includes(`resources/schemas/${f}.json`), `resources/schemas/${f}.json`);
    }
    // The README's pictures (docs/images) are not published: the README loads them from the repository (absolute
    // addresses, see test/docs.test.ts), and the editor never shows the README.
    for (const m of readText('README.md').matchAll(/!\[[^\]]*\]\(([^)\s]+)/g)) {
      const file = m[1].replace(/^https:\/\/raw\.githubusercontent\.com\/[^/]+\/[^/]+\/[^/]+\//, '');
      assert.ok(!packed.includes(file), `${file} is published`);
    }
  });
});
