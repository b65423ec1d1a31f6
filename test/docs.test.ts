/**
 * The documentation against the code and against itself. The README (what npm and the Node-RED flow library show)
 * names every document and picture by its address on the main branch; the pages of docs/ link relatively. Every
 * link and picture resolves, to a file and to a heading of it. Each node type has its page in docs/nodes/, in the
 * shape the help generator reads, with every property the node saves in its Settings table, and a row in the
 * README's table of nodes. The status texts of the runtime's catalog and the error codes have their rows in
 * docs/troubleshooting.md; CONTRIBUTING.md gives the two set-up commands; the changelog has its sections.
 */
import { strict as assert } from 'node:assert';
import fs from 'node:fs';
import path from 'node:path';
import * as acorn from 'acorn';
import MarkdownIt from 'markdown-it';
import type { NodeDeclaration } from '../src/settings/declare';

type Token = ReturnType<MarkdownIt['parse']>[number];

const ROOT = path.join(__dirname, '..');
const read = (f: string) => fs.readFileSync(path.join(ROOT, f), 'utf8');
const exists = (f: string) => fs.existsSync(path.join(ROOT, f));
const pkg = JSON.parse(read('package.json')) as {
  version: string;
  files: string[];
  repository: { url: string };
  'node-red': { nodes: Record<string, string> };
};
const TYPES = Object.keys(pkg['node-red'].nodes);
/** owner/name of the GitHub repository package.json names. */
const REPO = /github\.com[/:]([^/]+\/[^/]+?)(\.git)?$/.exec(pkg.repository.url)?.[1];
/**
 * The repository's branch. The README's pictures and documents are absolute addresses on it: the Node-RED flow
 * library (routes/nodes.js of node-red/flow-library) rewrites a relative picture or link to the `master` branch,
 * which this repository does not have, while npm and GitHub would resolve a relative one on `main`.
 */
const BRANCH = 'main';
const RAW = `https://raw.githubusercontent.com/${REPO}/${BRANCH}/`;
const BLOB = `https://github.com/${REPO}/blob/${BRANCH}/`;

const md = new MarkdownIt();
const parsed = new Map<string, Token[]>();
/** A markdown file's tokens (code blocks are single tokens: a `#` or a `](` in them is no heading or link). */
function tokens(file: string): Token[] {
  if (!parsed.has(file)) parsed.set(file, md.parse(read(file), {}));
  return parsed.get(file)!;
}

/** README.md and every page of docs/. */
function markdownFiles(dir: string): string[] {
  return fs
    .readdirSync(path.join(ROOT, dir), { withFileTypes: true })
    .flatMap((e) =>
      e.isDirectory() ? markdownFiles(`${dir}/${e.name}`) : e.name.endsWith('.md') ? [`${dir}/${e.name}`] : [],
    );
}
const DOCS = markdownFiles('docs');
const ALL = ['README.md', ...DOCS];

/** An inline token's text as GitHub reads it for a heading's anchor: text and code, without the markup. */
const plain = (inline: Token) =>
  (inline.children ?? []).map((c) => (c.type === 'text' || c.type === 'code_inline' ? c.content : '')).join('');

/** GitHub's anchor for a heading: lower case, punctuation dropped, each space a hyphen. */
function slug(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}_\- ]/gu, '')
    .replace(/ /g, '-');
}

interface Heading {
  level: number;
  text: string;
  /** Where the heading starts in the token list. */
  at: number;
}
function headings(toks: Token[]): Heading[] {
  return toks.flatMap((t, i) =>
    t.type === 'heading_open' ? [{ level: Number(t.tag.slice(1)), text: plain(toks[i + 1]), at: i }] : [],
  );
}

/** The anchors of a markdown file's headings, a repeated one numbered as GitHub numbers it (-1, -2…). */
function anchors(file: string): Set<string> {
  const seen = new Map<string, number>();
  const out = new Set<string>();
  for (const h of headings(tokens(file))) {
    const base = slug(h.text);
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    out.add(n ? `${base}-${n}` : base);
  }
  return out;
}

/** The tokens of a section: from its heading to the next heading of the same or a higher level. */
function section(toks: Token[], title: string, level?: number): Token[] {
  const all = headings(toks);
  const h = all.find((x) => x.text === title && (level === undefined || x.level === level));
  assert.ok(h, `a section "${title}"`);
  const next = all.find((x) => x.at > h!.at && x.level <= h!.level);
  return toks.slice(h!.at + 3, next ? next.at : undefined);
}

/** The links and pictures of some tokens: each address, and whether it is a picture. */
function links(toks: Token[]): Array<{ url: string; image: boolean }> {
  return toks.flatMap((t) =>
    (t.children ?? []).flatMap((c): Array<{ url: string; image: boolean }> => {
      if (c.type === 'link_open') return [{ url: c.attrGet('href')!, image: false }];
      if (c.type === 'image') return [{ url: c.attrGet('src')!, image: true }];
      return [];
    }),
  );
}

/** The rows of the tables in some tokens, each a list of its cells' inline tokens; header rows left out. */
function tableRows(toks: Token[]): Token[][] {
  const rows: Token[][] = [];
  let inBody = false;
  for (const t of toks) {
    if (t.type === 'tbody_open') inBody = true;
    else if (t.type === 'tbody_close') inBody = false;
    else if (inBody && t.type === 'tr_open') rows.push([]);
    else if (inBody && t.type === 'inline') rows[rows.length - 1].push(t);
  }
  return rows;
}

/** The `code` spans of an inline token. */
const codes = (inline: Token) => (inline.children ?? []).filter((c) => c.type === 'code_inline').map((c) => c.content);

/** What a link points at in the repository: the file (relative to the root) and the anchor, or null if outside. */
function target(from: string, url: string): { file: string; anchor?: string } | null {
  const [address, anchor] = url.split(/#(.*)$/s);
  let file: string;
  if (url.startsWith('#')) file = from;
  else if (address.startsWith(BLOB)) file = address.slice(BLOB.length);
  else if (address.startsWith(RAW)) file = address.slice(RAW.length);
  else if (/^[a-z][a-z0-9+.-]*:/i.test(address)) return null;
  else file = path.posix.normalize(path.posix.join(path.posix.dirname(from), decodeURI(address)));
  return { file: file.replace(/\/$/, ''), anchor: anchor || undefined };
}

// ---- the nodes' registrations (nodes/<type>.html) ------------------------------------------------------------

interface Registration {
  /** Every property the node saves: `defaults`, then `credentials`. */
  properties: string[];
  inputs: number;
  outputs: number;
  config: boolean;
}

type AnyNode = { type: string; [key: string]: any }; // eslint-disable-line @typescript-eslint/no-explicit-any

function walk(n: unknown, visit: (n: AnyNode) => void): void {
  if (!n || typeof n !== 'object') return;
  if (Array.isArray(n)) return n.forEach((c) => walk(c, visit));
  const node = n as AnyNode;
  if (typeof node.type === 'string') visit(node);
  for (const v of Object.values(node)) if (v && typeof v === 'object') walk(v, visit);
}

/** The definition a node's html hands to RED.nodes.registerType, read without running it. */
function registration(type: string): Registration {
  const html = read(`nodes/${type}.html`);
  let def: AnyNode | undefined;
  for (const [, script] of html.matchAll(/<script type="text\/javascript">([\s\S]*?)<\/script>/g)) {
    walk(acorn.parse(script, { ecmaVersion: 2022 }), (n) => {
      if (n.type === 'CallExpression' && n.callee.property?.name === 'registerType' && n.arguments[0]?.value === type)
        def = n.arguments[1];
    });
  }
  assert.ok(def && def.type === 'ObjectExpression', `nodes/${type}.html registers ${type} with an object`);
  const prop = (name: string) => def!.properties.find((p: AnyNode) => (p.key.name ?? p.key.value) === name)?.value;
  const keys = (name: string): string[] =>
    prop(name)?.type === 'ObjectExpression' ? prop(name).properties.map((p: AnyNode) => p.key.name ?? p.key.value) : [];
  return {
    properties: [...keys('defaults'), ...keys('credentials')],
    inputs: prop('inputs')?.value ?? 0,
    outputs: prop('outputs')?.value ?? 0,
    config: prop('category')?.value === 'config',
  };
}

/** The node's declared settings (its settings.ts), when it declares them. */
function declarationOf(type: string): NodeDeclaration | undefined {
  const file = path.join(ROOT, 'src', 'nodes', type, 'settings.ts');
  if (!fs.existsSync(file)) return undefined;
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- the settings module of that node's folder
  const mod = require(file) as Record<string, unknown>;
  return Object.values(mod).find((v) => (v as NodeDeclaration | undefined)?.type === type) as NodeDeclaration;
}

const catalog = (type: string) => JSON.parse(read(`src/nodes/${type}/locale.json`))[type];

// ---- the tests -------------------------------------------------------------------------------------------------

describe('the documentation', function () {
  describe('README.md', function () {
    const readme = () => tokens('README.md');

    it("links to documents and pictures by absolute addresses on the repository's branch (the flow library rewrites relative ones to master)", function () {
      assert.ok(REPO, `package.json "repository" is a GitHub repository (${pkg.repository.url})`);
      const relative = links(readme())
        .map((l) => l.url)
        .filter((u) => !/^(https?:|mailto:|#)/.test(u));
      assert.deepEqual(relative, [], 'relative links or pictures in the README');
      const otherBranch = links(readme())
        .map((l) => l.url)
        .filter((u) => u.includes(`/${REPO}/`) && !u.startsWith(BLOB) && !u.startsWith(RAW));
      assert.deepEqual(otherBranch, [], `addresses of this repository not on ${BRANCH} (${BLOB}…, ${RAW}…)`);
    });

    it('shows the five pictures of the getting-started walkthrough, by their address on main', function () {
      const pictures = links(readme()).filter((l) => l.image);
      for (const { url } of pictures) {
        assert.ok(url.startsWith(RAW), `${url}: a picture of the repository's ${BRANCH} branch (${RAW}…)`);
        assert.match(url.slice(RAW.length), /^docs\/images\/[\w-]+\.png$/, `${url}: a picture in docs/images`);
      }
      const shown = section(readme(), 'Getting started').filter((t) => t.type === 'inline');
      for (const f of ['palette', 'flow', 'connection', 'query', 'debug']) {
        assert.ok(
          links(shown).some((l) => l.image && l.url === `${RAW}docs/images/getting-started-${f}.png`),
          `Getting started shows getting-started-${f}.png`,
        );
      }
    });

    it("Getting started counts the palette's nodes as package.json lists them (the configuration nodes have no entry)", function () {
      const WORDS = ['zero', 'one', 'two', 'three', 'four', 'five', 'six', 'seven', 'eight', 'nine', 'ten'].concat([
        'eleven',
        'twelve',
        'thirteen',
        'fourteen',
        'fifteen',
        'sixteen',
        'seventeen',
        'eighteen',
        'nineteen',
      ]);
      const inPalette = TYPES.filter((t) => !registration(t).config);
      const text = section(readme(), 'Getting started')
        .filter((t) => t.type === 'inline')
        .map((t) => t.content)
        .join('\n');
      const said = /category of the palette[^.]*?now holds (\w+) nodes/.exec(text);
      assert.ok(said, 'Getting started says how many nodes the palette category holds');
      const n = WORDS.indexOf(said![1]) >= 0 ? WORDS.indexOf(said![1]) : Number(said![1]);
      assert.equal(
        n,
        inPalette.length,
        `"${said![1]} nodes": package.json lists ${inPalette.length} with a palette entry`,
      );
    });

    it("has one row per node type in its table of nodes, named as in the palette and linking to the node's page", function () {
      const rows = tableRows(section(readme(), 'The nodes'));
      const byType = new Map<string, string>();
      for (const [name] of rows) {
        const pages = links([name]).map((l) => /\/docs\/nodes\/([\w-]+)\.md$/.exec(l.url)?.[1]);
        assert.equal(pages.length, 1, `the row "${name.content}" links to one node page`);
        assert.ok(!byType.has(pages[0]!), `one row for ${pages[0]}`);
        byType.set(pages[0]!, plain(name));
      }
      assert.deepEqual([...byType.keys()].sort(), [...TYPES].sort(), 'a row for every node type of package.json');
      for (const type of TYPES.filter((t) => !registration(t).config)) {
        assert.equal(byType.get(type), catalog(type).paletteLabel, `${type}: its palette label names the row`);
      }
    });

    it("links to CONTRIBUTING.md and CHANGELOG.md; the changelog has Unreleased, then package.json's version, newest first", function () {
      const urls = links(readme()).map((l) => l.url);
      for (const f of ['CONTRIBUTING.md', 'CHANGELOG.md']) {
        assert.ok(urls.includes(`${BLOB}${f}`), `README links to ${f} (${BLOB}${f})`);
      }
      const changelog = read('CHANGELOG.md');
      const sections = [...changelog.matchAll(/^## \[([^\]]+)\](.*)$/gm)].map((m) => ({ name: m[1], rest: m[2] }));
      assert.equal(sections[0]?.name, 'Unreleased', 'the changelog starts with "## [Unreleased]"');
      assert.equal(
        sections[1]?.name,
        pkg.version,
        `the newest version section is package.json's version ${pkg.version}`,
      );
      for (const v of sections.slice(1)) assert.match(v.rest, /^ - \d{4}-\d{2}-\d{2}$/, `${v.name} has a date`);
      assert.ok(
        sections.some((v) => v.name === '0.1.0'),
        'the first version, 0.1.0, is there',
      );
      for (const v of sections)
        assert.match(
          changelog,
          new RegExp(`^\\[${v.name.replace(/\./g, '\\.')}\\]: https://`, 'm'),
          `a link for [${v.name}]`,
        );
    });
  });

  describe('links and pictures', function () {
    it('every link and picture of README.md and docs/ resolves: its file exists, its #anchor is a heading there', function () {
      const broken: string[] = [];
      for (const file of ALL) {
        for (const { url } of links(tokens(file))) {
          const to = target(file, url);
          if (!to) continue; // another site: not fetched
          if (to.file.startsWith('..') || !exists(to.file)) broken.push(`${file}: ${url} (no ${to.file})`);
          else if (to.anchor && to.file.endsWith('.md') && !anchors(to.file).has(to.anchor))
            broken.push(`${file}: ${url} (no heading #${to.anchor} in ${to.file})`);
        }
      }
      assert.deepEqual(broken, []);
    });

    it('the pages of docs/ link relatively within the repository (GitHub shows them on the branch being read)', function () {
      const absolute = DOCS.flatMap((file) =>
        links(tokens(file))
          .filter((l) => l.url.startsWith(`https://github.com/${REPO}/`) || l.url.startsWith(RAW))
          .map((l) => `${file}: ${l.url}`),
      );
      assert.deepEqual(absolute, []);
    });

    it('every picture of docs/images is shown by the README or a page of docs/, and docs/ is not published', function () {
      const shown = new Set(
        ALL.flatMap((file) =>
          links(tokens(file))
            .filter((l) => l.image)
            .map((l) => target(file, l.url)?.file),
        ),
      );
      const unused = fs.readdirSync(path.join(ROOT, 'docs', 'images')).filter((f) => !shown.has(`docs/images/${f}`));
      assert.deepEqual(unused, [], 'pictures in docs/images that no document shows (show them, or stop taking them)');
      for (const f of pkg.files) {
        assert.doesNotMatch(f, /^(\.\/)?docs\b/, `package.json "files" publishes ${f}`);
        assert.doesNotMatch(f, /^(\.\/)?\*/, `package.json "files" entry ${f} would publish docs/ too`);
      }
    });

    it('docs/README.md links every page of docs/', function () {
      const linked = new Set(links(tokens('docs/README.md')).map((l) => target('docs/README.md', l.url)?.file));
      assert.deepEqual(
        DOCS.filter((f) => f !== 'docs/README.md' && !linked.has(f)),
        [],
      );
    });
  });

  describe('the node pages (docs/nodes/<type>.md)', function () {
    /** The sections of a node page, in their order (docs/README.md, "Writing a node's page"). */
    const ORDER = ['Settings', 'Inputs', 'Outputs', 'Details', 'Examples', 'References'];

    for (const type of TYPES) {
      describe(type, function () {
        const page = `docs/nodes/${type}.md`;
        const toks = () => {
          assert.ok(exists(page), `${page} exists`);
          return tokens(page);
        };

        it('has a title, an opening paragraph, and its sections in order', function () {
          const t = toks();
          const reg = registration(type);
          const all = headings(t);
          assert.equal(all[0]?.level, 1, 'the page starts with its title');
          assert.equal(all.filter((h) => h.level === 1).length, 1, 'one title');
          assert.match(all[0].text, new RegExp(` \\(${type}\\)$`), `the title ends with (\`${type}\`)`);
          if (!reg.config) assert.equal(all[0].text, `${catalog(type).paletteLabel} (${type})`, 'the palette label');
          const opening = t.slice(3);
          assert.equal(opening[0]?.type, 'paragraph_open', 'the opening paragraph follows the title');
          assert.ok(
            !(opening[1].children ?? []).some((c) => c.type === 'link_open' || c.type === 'image'),
            'no link or picture in the opening paragraph (it is the palette tooltip)',
          );
          const sections = all.filter((h) => h.level === 2).map((h) => h.text);
          const unknown = sections.filter((s) => !ORDER.includes(s));
          assert.deepEqual(unknown, [], `sections other than ${ORDER.join(', ')}`);
          assert.deepEqual(
            sections,
            ORDER.filter((s) => sections.includes(s)),
            'the sections in order, each once',
          );
          const needed = [
            'Settings',
            'Details',
            ...(reg.inputs ? ['Inputs'] : []),
            ...(reg.outputs ? ['Outputs'] : []),
          ];
          for (const s of needed) assert.ok(sections.includes(s), `a section ${s}`);
          if (reg.outputs > 1) {
            const ports = headings(section(t, 'Outputs', 2)).filter((h) => h.level === 3);
            assert.deepEqual(
              ports.map((h) => /^(\d+)\. \S/.exec(h.text)?.[1]),
              Array.from({ length: reg.outputs }, (_, i) => String(i + 1)),
              `under Outputs, "### 1. <Port label>" to "### ${reg.outputs}. …", one per output`,
            );
          }
        });

        it('lists every property the node saves in its Settings table, and no other', function () {
          const settings = section(toks(), 'Settings', 2);
          const rows = tableRows(settings);
          assert.ok(rows.length, 'a Settings table');
          const head = settings.slice(settings.findIndex((x) => x.type === 'thead_open'));
          const header = head
            .slice(
              0,
              head.findIndex((x) => x.type === 'thead_close'),
            )
            .filter((x) => x.type === 'inline');
          const column = header.findIndex((x) => x.content.trim() === 'Property');
          assert.ok(column >= 0, 'a Property column');
          const listed = rows.flatMap((r) => codes(r[column]));
          const saved = registration(type).properties;
          assert.deepEqual(
            saved.filter((p) => !listed.includes(p)),
            [],
            `properties of nodes/${type}.html (defaults, credentials) without a Settings row`,
          );
          assert.deepEqual(
            listed.filter((p) => !saved.includes(p)),
            [],
            'Settings rows of properties the node does not have',
          );
        });

        it('shows the declared default of every setting, and every value a choice allows', function () {
          const decl = declarationOf(type);
          if (!decl) return;
          const settings = section(toks(), 'Settings', 2);
          const head = settings.slice(settings.findIndex((x) => x.type === 'thead_open'));
          const header = head
            .slice(
              0,
              head.findIndex((x) => x.type === 'thead_close'),
            )
            .filter((x) => x.type === 'inline');
          const col = (name: string) => header.findIndex((x) => x.content.trim() === name);
          const [property, dflt] = [col('Property'), col('Default')];
          assert.ok(dflt >= 0, 'a Default column');
          const rows = tableRows(settings);
          for (const [name, s] of Object.entries(decl.settings)) {
            const row = rows.find((r) => codes(r[property]).includes(name));
            if (!row) continue; // the test above names it
            const cell = row[dflt].content.trim();
            const d = s.default;
            if (s.kind === 'query' || Array.isArray(d)) continue; // a query or a list of rows is told in words
            const shown = d === '' ? '' : typeof d === 'boolean' ? (d ? 'on' : 'off') : `\`${String(d)}\``;
            assert.equal(cell, shown, `the Default of ${name} (the declaration says ${JSON.stringify(d)})`);
            if (s.kind === 'choice') {
              const named = row.flatMap((c) => codes(c));
              const missing = s.values.filter((v) => v !== '' && !named.includes(v));
              assert.deepEqual(missing, [], `values of ${name} its row does not name`);
            }
          }
        });

        it('names in Examples only example flows that exist, by their title', function () {
          if (!headings(toks()).some((h) => h.level === 2 && h.text === 'Examples')) return;
          for (const title of exampleTitles(type))
            assert.ok(exists(`examples/${title}.json`), `the example "${title}" (examples/${title}.json) exists`);
        });
      });
    }

    it('each device action, and each query node that takes values from the message, names its examples', function () {
      const expected: Record<string, string[]> = {
        'tb-telemetry': ['Record a computed value', 'Last 24 hours, hourly average'],
        'tb-attributes': ['Set the target temperature of every thermostat'],
        'tb-rpc': ['Command a device and wait for its answer'],
        'tb-rule-engine': ['Ask a rule chain for an answer'],
        'tb-entity-query': ['Reply with the state of the device named in a request'],
        'tb-alarm-query': ['Count the alarms of the site named in a message'],
        'tb-subscribe': ['Follow the device chosen by a message'],
      };
      for (const [type, titles] of Object.entries(expected)) {
        const named = exampleTitles(type);
        for (const t of titles) assert.ok(named.includes(t), `${type}'s page names the example "${t}"`);
      }
    });

    it('docs/README.md lists every example flow, and only those', function () {
      const examples = section(tokens('docs/README.md'), 'Examples');
      // the list's items: the paragraphs around it name other things in italics (the connection the examples bring)
      const listed = examples
        .filter((t, i) => t.type === 'inline' && examples[i - 2]?.type === 'list_item_open')
        .flatMap(emphasised);
      const flows = fs
        .readdirSync(path.join(ROOT, 'examples'))
        .filter((f) => f.endsWith('.json'))
        .map((f) => f.replace(/\.json$/, ''));
      assert.deepEqual(flows.filter((f) => !listed.includes(f)).sort(), [], 'examples not listed');
      assert.deepEqual(
        listed.filter((f) => !flows.includes(f)),
        [],
        'listed examples that do not exist',
      );
    });
  });

  describe('troubleshooting (docs/troubleshooting.md)', function () {
    const page = () => tokens('docs/troubleshooting.md');

    describe('the status texts against the catalog', function () {
      const statuses = (): Record<string, string> => catalog('tb-connection').status;
      /** Catalog keys that no node shows (kept for translations): the table leaves them out. */
      const NOT_SHOWN = ['disconnected'];
      /** The status texts of the tables: every `code` in the first cell of each row. */
      const documented = () => tableRows(section(page(), 'Status texts', 2)).flatMap(([first]) => codes(first));
      /**
       * A catalog text as a pattern: each __variable__ is a number; a __status__ is an HTTP status or an RPC's state
       * (QUEUED, SENT…).
       */
      const pattern = (tpl: string) =>
        new RegExp(
          `^${tpl
            .replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
            .replace(/__status__/g, '(\\d+|[A-Z]+)')
            .replace(/__\w+__/g, '\\d+')}$`,
        );

      it('explains every text a node can show', function () {
        assert.ok(documented().length > 40, `rows found (${documented().length})`);
        const missing = Object.entries(statuses())
          .filter(([key]) => !NOT_SHOWN.includes(key))
          .filter(([, tpl]) => !documented().some((t) => pattern(tpl).test(t)))
          .map(([key, tpl]) => `${key}: "${tpl}"`);
        assert.deepEqual(missing, [], 'catalog texts without a row in the status tables');
      });

      it('shows each text exactly as the catalog spells it', function () {
        const unknown = documented().filter((t) => !Object.values(statuses()).some((tpl) => pattern(tpl).test(t)));
        assert.deepEqual(unknown, [], 'status texts that no catalog entry gives');
      });

      it('leaves out only texts that no node shows', function () {
        const src = (dir: string): string[] =>
          fs
            .readdirSync(path.join(ROOT, dir), { withFileTypes: true })
            .flatMap((e) =>
              e.isDirectory() ? src(path.join(dir, e.name)) : e.name.endsWith('.ts') ? [path.join(dir, e.name)] : [],
            );
        const code = src('src').map(read).join('\n');
        for (const key of NOT_SHOWN) {
          assert.ok(key in statuses(), `"${key}" is still in the catalog (else take it off NOT_SHOWN)`);
          assert.doesNotMatch(
            code,
            new RegExp(`status\\([^)]*'${key}'`),
            `a node shows "${key}": document it in docs/troubleshooting.md`,
          );
        }
      });
    });

    it('has a row, with what to do, for every error code a Catch node can receive', function () {
      const src = (dir: string): string[] =>
        fs
          .readdirSync(path.join(ROOT, dir), { withFileTypes: true })
          .flatMap((e) =>
            e.isDirectory() ? src(`${dir}/${e.name}`) : e.name.endsWith('.ts') ? [`${dir}/${e.name}`] : [],
          );
      /** The union's lines: `export type TbErrorCode =`, then one `| 'TB_…'` per line. */
      const declaration = src('src')
        .map((f) => read(f).split('\n'))
        .map((lines) => {
          const at = lines.findIndex((l) => l.startsWith('export type TbErrorCode ='));
          if (at < 0) return undefined;
          const end = lines.findIndex((l, i) => i > at && !l.trim().startsWith('|'));
          return lines.slice(at, end < 0 ? undefined : end).join('\n');
        })
        .find(Boolean);
      const all = [...declaration!.matchAll(/'(TB_[A-Z0-9_]+)'/g)].map((m) => m[1]);
      assert.ok(all.length > 20, `codes found (${all.length})`);
      const rows = tableRows(section(page(), 'Errors at a Catch node', 2));
      const documented = rows.flatMap(([first]) => codes(first));
      assert.deepEqual(
        all.filter((c) => !documented.includes(c)),
        [],
        'error codes without a row',
      );
      assert.deepEqual(
        documented.filter((c) => !all.includes(c)),
        [],
        'rows of codes that do not exist',
      );
      for (const r of rows) assert.ok(r[1]?.content.trim(), `${r[0].content}: what to do`);
    });
  });

  for (const doc of ['README.md', 'CONTRIBUTING.md']) {
    it(`${doc} gives exactly the two set-up commands, each in a code block of its own`, function () {
      const blocks = tokens(doc)
        .filter((t) => t.type === 'fence')
        .map((t) => t.content.trim());
      assert.ok(blocks.includes('npm install && npm start'), 'a code block holding only "npm install && npm start"');
      assert.ok(blocks.includes('npm test'), 'a code block holding only "npm test"');
    });
  }
});

/** The emphasised texts of an inline token (`*Title*`, `**Title**`): how the pages name an example. */
function emphasised(inline: Token): string[] {
  const out: string[] = [];
  const kids = inline.children ?? [];
  kids.forEach((c, i) => {
    if (c.type === 'em_open' || c.type === 'strong_open') {
      const close = c.type.replace('_open', '_close');
      const end = kids.findIndex((k, j) => j > i && k.type === close);
      out.push(
        kids
          .slice(i + 1, end)
          .map((k) => (k.type === 'softbreak' ? ' ' : k.content))
          .join(''),
      );
    }
  });
  return out;
}

/**
 * The examples a node page names: in its Examples section, each item of a list names one, by its title in italics
 * (or bold, or as a link's text) at the start of the item.
 */
function exampleTitles(type: string): string[] {
  const page = `docs/nodes/${type}.md`;
  assert.ok(exists(page), `${page} exists`);
  const toks = section(tokens(page), 'Examples', 2);
  const titles: string[] = [];
  toks.forEach((t, i) => {
    if (t.type !== 'list_item_open') return;
    const inline = toks.slice(i).find((x) => x.type === 'inline')!;
    const first = (inline.children ?? []).find((c) => c.type !== 'text' || c.content.trim());
    const kids = inline.children ?? [];
    const at = kids.indexOf(first!);
    let title: string | undefined;
    if (first && /^(em|strong|link)_open$/.test(first.type)) {
      const close = first.type.replace('_open', '_close');
      const end = kids.findIndex((k, j) => j > at && k.type === close);
      title = kids
        .slice(at + 1, end)
        .map((k) => (k.type === 'softbreak' ? ' ' : k.content))
        .join('');
    }
    assert.ok(title, `${page}: the Examples item "${inline.content}" starts with an example's title`);
    titles.push(title!);
  });
  return titles;
}
