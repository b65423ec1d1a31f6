/**
 * The README against the code: the newcomer's two commands, the status table against the runtime's catalog
 * (nodes/locales/en-US/tb-connection.json, the texts the nodes show), the pictures (present in the repository,
 * not in the published package) and the links inside the README and to the other documents.
 */
import { strict as assert } from 'node:assert';
import fs from 'node:fs';
import path from 'node:path';

const ROOT = path.join(__dirname, '..');
const read = (f: string) => fs.readFileSync(path.join(ROOT, f), 'utf8');
const readme = read('README.md');
/** The README without its code blocks (a `#` or a `](` in a code block is no heading or link). */
const prose = readme.replace(/^```[\s\S]*?^```/gm, '');

/** Catalog keys that no node shows (kept for translations): the README's table leaves them out. */
const NOT_SHOWN = ['disconnected'];

/** The body of a README section, from its heading to the next heading of the same or a higher level. */
function section(heading: string): string {
  const lines = readme.split('\n');
  const start = lines.findIndex((l) => l.replace(/^#+ /, '') === heading && /^#+ /.test(l));
  assert.ok(start >= 0, `README has a section "${heading}"`);
  const level = lines[start].indexOf(' ');
  const end = lines.findIndex((l, i) => i > start && /^#+ /.test(l) && l.indexOf(' ') <= level);
  return lines.slice(start + 1, end < 0 ? undefined : end).join('\n');
}

/** GitHub's anchor for a heading: lower case, punctuation dropped, each space a hyphen. */
function anchor(heading: string): string {
  return heading.trim().toLowerCase().replace(/[^\p{L}\p{N}_\- ]/gu, '').replace(/ /g, '-');
}

describe('README and the other documents', function () {
  it('gives a newcomer exactly the two set-up commands, each in a code block of its own', function () {
    const blocks = [...readme.matchAll(/^```[^\n]*\n([\s\S]*?)^```/gm)].map((m) => m[1].trim());
    assert.ok(blocks.includes('npm install && npm start'), 'a code block holding only "npm install && npm start"');
    assert.ok(blocks.includes('npm test'), 'a code block holding only "npm test"');
  });

  describe('the status table (Troubleshooting) against the catalog', function () {
    const catalog: Record<string, string> = JSON.parse(read('nodes/locales/en-US/tb-connection.json'))['tb-connection'].status;
    const table = section('What the status texts mean');
    /** The status texts of the table: every `code` in the first cell of each row. */
    const documented = table
      .split('\n')
      .filter((l) => l.startsWith('| `'))
      .flatMap((l) => [...l.split('|')[1].matchAll(/`([^`]+)`/g)].map((m) => m[1]));
    /** A catalog text as a pattern: each __variable__ is a number; a __status__ is an HTTP status or an RPC's state (QUEUED, SENT…). */
    const pattern = (tpl: string) =>
      new RegExp(`^${tpl.replace(/[.*+?^${}()|[\]\\]/g, '\\$&').replace(/__status__/g, '(\\d+|[A-Z]+)').replace(/__\w+__/g, '\\d+')}$`);

    it('explains every text a node can show', function () {
      assert.ok(documented.length > 40, `rows found (${documented.length})`);
      const missing = Object.entries(catalog)
        .filter(([key]) => !NOT_SHOWN.includes(key))
        .filter(([, tpl]) => !documented.some((t) => pattern(tpl).test(t)))
        .map(([key, tpl]) => `${key}: "${tpl}"`);
      assert.deepEqual(missing, [], 'catalog texts without a row in the README');
    });

    it('shows each text exactly as the catalog spells it', function () {
      const unknown = documented.filter((t) => !Object.values(catalog).some((tpl) => pattern(tpl).test(t)));
      assert.deepEqual(unknown, [], 'README status texts that no catalog entry gives');
    });

    it('leaves out only texts that no node shows', function () {
      const src = (dir: string): string[] =>
        fs.readdirSync(path.join(ROOT, dir), { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? src(path.join(dir, e.name)) : e.name.endsWith('.ts') ? [path.join(dir, e.name)] : []));
      const code = src('src/nodes').map(read).join('\n');
      for (const key of NOT_SHOWN) {
        assert.ok(key in catalog, `"${key}" is still in the catalog (else take it off NOT_SHOWN)`);
        assert.doesNotMatch(code, new RegExp(`status\\([^)]*'${key}'`), `a node shows "${key}": document it in the README`);
      }
    });
  });

  it('the help names examples that exist, and each device action points to its examples', function () {
    const dir = path.join(ROOT, 'nodes', 'locales', 'en-US');
    const named = new Map<string, string[]>();
    for (const f of fs.readdirSync(dir).filter((x) => x.endsWith('.html'))) {
      const help = read(`nodes/locales/en-US/${f}`);
      const line = /<li>Examples?:([\s\S]*?)<\/li>/.exec(help);
      named.set(f.replace(/\.html$/, ''), line ? [...line[1].matchAll(/<i>([^<]+)<\/i>/g)].map((m) => m[1]) : []);
    }
    for (const [type, names] of named) {
      for (const n of names) assert.ok(fs.existsSync(path.join(ROOT, 'examples', `${n}.json`)), `${type} help names the example "${n}", which does not exist`);
    }
    assert.deepEqual(named.get('tb-telemetry'), ['Record a computed value', 'Last 24 hours, hourly average']);
    assert.deepEqual(named.get('tb-attributes'), ['Set the target temperature of every thermostat']);
    assert.deepEqual(named.get('tb-rpc'), ['Command a device and wait for its answer']);
  });

  it('links only to sections it has', function () {
    const headings = new Set([...prose.matchAll(/^#{1,6} (.+)$/gm)].map((m) => anchor(m[1])));
    const broken = [...prose.matchAll(/\]\(#([^)]+)\)/g)].map((m) => m[1]).filter((a) => !headings.has(a));
    assert.deepEqual(broken, [], 'links to sections the README does not have');
  });

  it('links to CONTRIBUTING.md and CHANGELOG.md, which exist; the changelog has Unreleased and 0.1.0', function () {
    for (const f of ['CONTRIBUTING.md', 'CHANGELOG.md']) {
      assert.match(prose, new RegExp(`\\]\\(${f.replace('.', '\\.')}\\)`), `README links to ${f}`);
      assert.ok(fs.existsSync(path.join(ROOT, f)), `${f} exists`);
    }
    const changelog = read('CHANGELOG.md');
    assert.match(changelog, /^## \[Unreleased\]$/m);
    assert.match(changelog, /^## \[0\.1\.0\] - \d{4}-\d{2}-\d{2}$/m);
    const version = JSON.parse(read('package.json')).version as string;
    assert.match(changelog, new RegExp(`^## \\[${version.replace(/\./g, '\\.')}\\]`, 'm'), `a section for package.json's version ${version}`);
  });

  it('shows pictures that are in docs/images, and docs/ is not published', function () {
    const images = [...prose.matchAll(/!\[[^\]]*\]\(([^)]+)\)/g)].map((m) => m[1]);
    assert.ok(images.length >= 5, 'the README has its pictures');
    for (const img of images) {
      assert.match(img, /^docs\/images\/[\w-]+\.png$/, `${img}: a picture in docs/images`);
      assert.ok(fs.existsSync(path.join(ROOT, img)), `${img} exists`);
    }
    for (const f of ['palette', 'flow', 'connection', 'query', 'debug']) {
      assert.ok(images.includes(`docs/images/getting-started-${f}.png`), `the getting-started walkthrough shows getting-started-${f}.png`);
    }
    const files = JSON.parse(read('package.json')).files as string[];
    for (const f of files) {
      assert.doesNotMatch(f, /^(\.\/)?docs\b/, `package.json "files" publishes ${f}`);
      assert.doesNotMatch(f, /^(\.\/)?\*/, `package.json "files" entry ${f} would publish docs/ too`);
    }
  });
});
