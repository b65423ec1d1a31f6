/**
 * Offline scorecard: what `node-red-dev validate` checks (it needs the network, see node-red-reference §2),
 * plus the layout rules the Node-RED loader and the Flow Library rely on. Reads package.json at test time,
 * so it tests whatever node set is listed there.
 */
import { strict as assert } from 'node:assert';
import fs from 'node:fs';
import path from 'node:path';
import * as acorn from 'acorn';

// semver is a dependency of node-red (a devDependency here); no type package is installed for it.
// eslint-disable-next-line @typescript-eslint/no-var-requires
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

/** Runtime status keys the node files pass to RED._ (they live in the tb-connection catalog). */
const STATUS_KEYS = [
  'requesting', 'found', 'truncated', 'count', 'keys', 'invalidInput', 'noConnection', 'configError',
  'authFailed', 'needsApiKey', 'tokenExpired', 'rateLimited', 'retrying', 'unreachable', 'timeout', 'httpError',
  'error', 'connecting', 'subscribed', 'subscribedCount', 'disconnected', 'refused', 'reconnecting', 'idle',
  'unsubscribed', 'watching', 'active', 'inactive', 'building', 'queued', 'rows',
];

/** Core node types an example may use (no third-party nodes in examples). */
const CORE_TYPES = new Set([
  'comment', 'inject', 'debug', 'function', 'switch', 'change', 'template', 'join', 'split', 'catch', 'status',
  'complete', 'file', 'file in', 'delay', 'trigger', 'range', 'json', 'csv', 'link in', 'link out', 'link call',
  'sort', 'batch', 'rbe', 'filter', 'exec', 'junction', 'group',
]);

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
      if (n.type === 'CallExpression' && n.callee.type === 'MemberExpression' && n.callee.property &&
          n.callee.property.name === 'registerType') {
        const [first, second] = n.arguments as AnyNode[];
        regs.push({ type: first && first.type === 'Literal' ? first.value : first, def: second });
      }
    });
  }
  return regs;
}

function lookup(catalog: any, key: string): unknown {
  return key.split('.').filter((k) => k !== '').reduce((o: any, k) => (o && typeof o === 'object' ? o[k] : undefined), catalog);
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

/** Keys passed to the editor-side t('…') helper (a namespaced RED._). */
function tKeys(html: string): string[] {
  const keys: string[] = [];
  for (const block of scriptBlocks(html)) {
    const re = /\bt\(\s*'([^']+)'/g;
    let m: RegExpExecArray | null;
    while ((m = re.exec(block)) !== null) keys.push(m[1]);
  }
  return keys;
}

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

    for (const f of exampleFiles) {
      const name = path.relative(path.join(root, 'examples'), f);
      it(`${name}: starts with a comment, uses core nodes only, is self-contained`, function () {
        const flow: any[] = JSON.parse(fs.readFileSync(f, 'utf8'));
        assert.equal(flow[0] && flow[0].type, 'comment', 'the first node is a comment node');
        const ids = new Set<string>();
        for (const n of flow) {
          assert.equal(typeof n.id, 'string');
          assert.ok(!ids.has(n.id), `duplicate id ${n.id}`);
          ids.add(n.id);
          assert.ok(CORE_TYPES.has(n.type) || allTypes.includes(n.type), `third-party node type ${n.type}`);
          assert.ok(!('credentials' in n), `${n.type} ${n.id} carries credentials`);
        }
        const conns = flow.filter((n) => n.type === CONFIG_TYPE);
        assert.equal(conns.length, 1, 'exactly one tb-connection config node');
        assert.equal(conns[0].url, 'http://127.0.0.1:8080');
        assert.equal(conns[0].authMode, 'password');
        for (const n of flow) {
          for (const port of n.wires || []) for (const target of port) assert.ok(ids.has(target), `${n.id} is wired to missing ${target}`);
          if (n.type !== CONFIG_TYPE && allTypes.includes(n.type)) {
            assert.equal(n.connection, conns[0].id, `${n.type} ${n.id} does not use the example's connection`);
          }
          for (const target of n.scope || []) assert.ok(ids.has(target), `${n.id} scope names missing ${target}`);
        }
      });
    }
  });

  it('tb-connection.json holds every runtime status key', function () {
    const catalog = readJson('nodes/locales/en-US/tb-connection.json');
    for (const key of STATUS_KEYS) {
      const v = lookup(catalog, `tb-connection.status.${key}`);
      assert.equal(typeof v, 'string', `tb-connection.status.${key} is missing`);
      // Status texts stay within 20 characters with 5-digit numbers filled in.
      const shown = (v as string).replace(/__\w+__/g, '12345');
      assert.ok(shown.length > 0 && shown.length <= 20, `tb-connection.status.${key} is empty or longer than 20 ("${shown}")`);
    }
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
        assert.equal(literal(version, 'value'), 1);
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

      it('has its icon in icons/ as a white-on-transparent SVG with a viewBox', function () {
        const [{ def }] = registrations(readText(`nodes/${type}.html`));
        const icon = literal(def, 'icon') as string;
        assert.match(icon, /^[\w.-]+\.svg$/);
        assert.ok(exists(`icons/${icon}`), `icons/${icon} is missing`);
        const svg = readText(`icons/${icon}`);
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
        const sections = type === CONFIG_TYPE ? ['Details', 'References'] : ['Inputs', 'Outputs', 'Details', 'References'];
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
        for (const key of tKeys(html)) {
          const v = lookup(catalog, key);
          if (key.endsWith('.') ? !(v && typeof v === 'object') : typeof v !== 'string') missing.push(key);
        }
        assert.deepEqual(missing, []);
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
