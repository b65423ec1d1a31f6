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
const pkg = JSON.parse(read('package.json')) as {
  version: string;
  files: string[];
  repository: { url: string };
  'node-red': { nodes: Record<string, string> };
};
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
  return heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}_\- ]/gu, '')
    .replace(/ /g, '-');
}

describe('README and the other documents', function () {
  it('gives a newcomer exactly the two set-up commands, each in a code block of its own', function () {
    const blocks = [...readme.matchAll(/^```[^\n]*\n([\s\S]*?)^```/gm)].map((m) => m[1].trim());
    assert.ok(blocks.includes('npm install && npm start'), 'a code block holding only "npm install && npm start"');
    assert.ok(blocks.includes('npm test'), 'a code block holding only "npm test"');
  });

  describe('the status table (Troubleshooting) against the catalog', function () {
    const catalog: Record<string, string> = JSON.parse(read('nodes/locales/en-US/tb-connection.json'))['tb-connection']
      .status;
    const table = section('What the status texts mean');
    /** The status texts of the table: every `code` in the first cell of each row. */
    const documented = table
      .split('\n')
      .filter((l) => l.startsWith('| `'))
      .flatMap((l) => [...l.split('|')[1].matchAll(/`([^`]+)`/g)].map((m) => m[1]));
    /** A catalog text as a pattern: each __variable__ is a number; a __status__ is an HTTP status or an RPC's state (QUEUED, SENT…). */
    const pattern = (tpl: string) =>
      new RegExp(
        `^${tpl
          .replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
          .replace(/__status__/g, '(\\d+|[A-Z]+)')
          .replace(/__\w+__/g, '\\d+')}$`,
      );

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
        fs
          .readdirSync(path.join(ROOT, dir), { withFileTypes: true })
          .flatMap((e) =>
            e.isDirectory() ? src(path.join(dir, e.name)) : e.name.endsWith('.ts') ? [path.join(dir, e.name)] : [],
          );
      const code = src('src').map(read).join('\n');
      for (const key of NOT_SHOWN) {
        assert.ok(key in catalog, `"${key}" is still in the catalog (else take it off NOT_SHOWN)`);
        assert.doesNotMatch(
          code,
          new RegExp(`status\\([^)]*'${key}'`),
          `a node shows "${key}": document it in the README`,
        );
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
      for (const n of names)
        assert.ok(
          fs.existsSync(path.join(ROOT, 'examples', `${n}.json`)),
          `${type} help names the example "${n}", which does not exist`,
        );
    }
    assert.deepEqual(named.get('tb-telemetry'), ['Record a computed value', 'Last 24 hours, hourly average']);
    assert.deepEqual(named.get('tb-attributes'), ['Set the target temperature of every thermostat']);
    assert.deepEqual(named.get('tb-rpc'), ['Command a device and wait for its answer']);
    // the values-from-the-message examples are named where a user looks for them
    assert.ok(named.get('tb-entity-query')?.includes('Reply with the state of the device named in a request'));
    assert.ok(named.get('tb-alarm-query')?.includes('Count the alarms of the site named in a message'));
    assert.ok(named.get('tb-subscribe')?.includes('Follow the device chosen by a message'));
  });

  it('links only to sections it has', function () {
    const headings = new Set([...prose.matchAll(/^#{1,6} (.+)$/gm)].map((m) => anchor(m[1])));
    const broken = [...prose.matchAll(/\]\(#([^)]+)\)/g)].map((m) => m[1]).filter((a) => !headings.has(a));
    assert.deepEqual(broken, [], 'links to sections the README does not have');
  });

  it("links to CONTRIBUTING.md and CHANGELOG.md, which exist; the changelog has Unreleased, then package.json's version, newest first", function () {
    for (const f of ['CONTRIBUTING.md', 'CHANGELOG.md']) {
      assert.ok(prose.includes(`](${BLOB}${f})`), `README links to ${f} (${BLOB}${f})`);
      assert.ok(fs.existsSync(path.join(ROOT, f)), `${f} exists`);
    }
    const changelog = read('CHANGELOG.md');
    const sections = [...changelog.matchAll(/^## \[([^\]]+)\](.*)$/gm)].map((m) => ({ name: m[1], rest: m[2] }));
    assert.equal(sections[0]?.name, 'Unreleased', 'the changelog starts with "## [Unreleased]"');
    assert.equal(sections[1]?.name, pkg.version, `the newest version section is package.json's version ${pkg.version}`);
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

  it("links to documents and pictures by absolute addresses on the repository's branch (the flow library rewrites relative ones to master)", function () {
    assert.ok(REPO, `package.json "repository" is a GitHub repository (${pkg.repository.url})`);
    const relative = [...prose.matchAll(/\]\(([^)#][^)]*)\)/g)]
      .map((m) => m[1])
      .filter((u) => !/^(https?:|mailto:)/.test(u));
    assert.deepEqual(relative, [], 'relative links or pictures in the README');
    for (const [, url] of prose.matchAll(/\]\((https:\/\/github\.com\/[^)]+)\)/g)) {
      if (!url.startsWith(`https://github.com/${REPO}/`)) continue;
      assert.ok(url.startsWith(BLOB), `${url}: on the ${BRANCH} branch (${BLOB})`);
      const file = url.slice(BLOB.length).replace(/#.*$/, '');
      assert.ok(fs.existsSync(path.join(ROOT, file)), `${url}: ${file} exists`);
    }
  });

  it('shows every picture of docs/images, each there, and docs/ is not published', function () {
    const urls = [...prose.matchAll(/!\[[^\]]*\]\(([^)]+)\)/g)].map((m) => m[1]);
    assert.ok(urls.length >= 5, 'the README has its pictures');
    const images = urls.map((url) => {
      assert.ok(url.startsWith(RAW), `${url}: a picture of the repository's ${BRANCH} branch (${RAW}…)`);
      const img = url.slice(RAW.length);
      assert.match(img, /^docs\/images\/[\w-]+\.png$/, `${img}: a picture in docs/images`);
      assert.ok(fs.existsSync(path.join(ROOT, img)), `${img} exists`);
      return img;
    });
    for (const f of ['palette', 'flow', 'connection', 'query', 'debug']) {
      assert.ok(
        images.includes(`docs/images/getting-started-${f}.png`),
        `the getting-started walkthrough shows getting-started-${f}.png`,
      );
    }
    const unused = fs
      .readdirSync(path.join(ROOT, 'docs', 'images'))
      .filter((f) => !images.includes(`docs/images/${f}`));
    assert.deepEqual(
      unused,
      [],
      'pictures in docs/images that the README does not show (show them, or stop taking them)',
    );
    const files = pkg.files;
    for (const f of files) {
      assert.doesNotMatch(f, /^(\.\/)?docs\b/, `package.json "files" publishes ${f}`);
      assert.doesNotMatch(f, /^(\.\/)?\*/, `package.json "files" entry ${f} would publish docs/ too`);
    }
  });

  it("Getting started counts the palette's nodes as package.json lists them (the configuration nodes have no entry)", function () {
    const WORDS = [
      'zero',
      'one',
      'two',
      'three',
      'four',
      'five',
      'six',
      'seven',
      'eight',
      'nine',
      'ten',
      'eleven',
      'twelve',
      'thirteen',
      'fourteen',
      'fifteen',
    ];
    const inPalette = Object.values(pkg['node-red'].nodes).filter(
      (js) => !/\bcategory:\s*['"]config['"]/.test(read(js.replace(/\.js$/, '.html'))),
    );
    const said = /category of the palette[^.]*?now holds (\w+) nodes/.exec(section('Getting started'));
    assert.ok(said, 'Getting started says how many nodes the palette category holds');
    assert.equal(
      WORDS.indexOf(said![1]) >= 0 ? WORDS.indexOf(said![1]) : Number(said![1]),
      inPalette.length,
      `"${said![1]} nodes": package.json lists ${inPalette.length} with a palette entry`,
    );
  });
});
