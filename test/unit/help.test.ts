/**
 * The help generator (scripts/build-help.js): a node's reference page in markdown becomes the body of Node-RED's
 * `<script type="text/html" data-help-name="…">` in the shape of Node-RED's help style guide, and every help it
 * writes passes html-validate with the repository's configuration. Small pages written here stand in for
 * docs/nodes/<type>.md.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

// A build script (CommonJS, untyped): typed here by what the tests use.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const help = require('../../scripts/build-help.js') as {
  renderHelp(type: string, markdown: string, page?: string, blob?: string): string;
  buildHelp(options: { docsDir: string; outDir: string; types: string[] }): Promise<string[]>;
  validate(files: string[]): Promise<void>;
};

const BLOB = 'https://github.com/owner/repo/blob/main/';
const render = (md: string, type = 'tb-x') => help.renderHelp(type, md, `docs/nodes/${type}.md`, BLOB);
/** The help's body: what Node-RED shows in the sidebar. */
const body = (html: string) => /<script type="text\/html" data-help-name="[^"]+">\n([\s\S]*)<\/script>/.exec(html)![1];

const PAGE = `# thing (\`tb-x\`)

Does one thing to a ThingsBoard device.

A second paragraph of introduction.

![A picture of the dialog](../images/x.png)

## Settings

| Setting | Property | Default | What it is |
|---|---|---|---|
| Name | \`name\` | | The node's label. |
| Mode | \`mode\` | \`twoway\` | *Two-way* waits for the reply. |

## Inputs

| Property | Type | What it does |
|---|---|---|
| \`msg.payload\` | object | The values. |
| \`msg.timeout\` *(optional)* | string or number | How long, see [the rules](../values-from-the-message.md#placeholders). |

## Outputs

The incoming message, plus:

| Property | Type | What it holds |
|---|---|---|
| \`msg.result\` | array | What came back. |

## Details

### Which entity

- An item of a list, with a picture under it:

  ![The dialog](../images/y.png)

Text with a [link to a section](#which-entity), a [page](tb-y.md) and [ThingsBoard](https://thingsboard.io/docs/).

| Error | What to do | Nodes |
|---|---|---|
| \`TB_X\` | Fix it. | — |
| \`TB_Y\` *(rare)* | | all |

#### Deeper

\`\`\`json
{ "a": 1 }
\`\`\`

## References

- [Reliability](../reliability.md)
`;

describe('help generator', function () {
  it('drops the title and opens with the opening paragraph (the palette tooltip)', function () {
    const b = body(render(PAGE));
    assert.ok(b.startsWith('<p>Does one thing to a ThingsBoard device.</p>\n<p>A second paragraph'), b.slice(0, 80));
    assert.doesNotMatch(b, /<h1|thing \(/);
  });

  it('cuts a long code span into one <code> per word, which the narrow sidebar can wrap; a short one stays whole', function () {
    const b = body(
      render(
        '# t (`tb-x`)\n\nOpening.\n\n## Details\n\nSends `{ "entityType": "DEVICE", "id": "…" }` or `{"pin": 7}`.\n',
      ),
    );
    assert.match(
      b,
      /Sends <code>\{<\/code> <code>&quot;entityType&quot;:<\/code> <code>&quot;DEVICE&quot;,<\/code> <code>&quot;id&quot;:<\/code> <code>&quot;…&quot;<\/code> <code>\}<\/code> or <code>\{&quot;pin&quot;: 7\}<\/code>\./,
    );
  });

  it('a long word of code (a path, compact JSON, an id) may break after its dots, commas, colons, braces, dashes', function () {
    const b = body(render('# t (`tb-x`)\n\nOpening.\n\n## Details\n\nSee `msg.payload.pageLink.statusList[1]`.\n'));
    assert.match(
      b,
      /See <code>msg\.<\/code><wbr><code>payload\.<\/code><wbr><code>pageLink\.<\/code><wbr><code>statusList\[1\]<\/code>\./,
    );
  });

  it('several properties of one row of Inputs get one <dt> each, the type beside the first', function () {
    const page = PAGE.replace(
      '| `msg.payload` | object | The values. |',
      '| `msg.payload` | object | The values. |\n| `msg.mode`, `msg.timeout` *(optional)* | various | Settings. |',
    );
    assert.match(
      body(render(page)),
      /<dt class="optional">mode <span class="property-type">various<\/span><\/dt>\n<dt class="optional">timeout<\/dt>\n<dd>Settings\.<\/dd>/,
    );
  });

  it('wraps the help in a script element named by the node type, after a comment that it is generated', function () {
    const html = render(PAGE, 'tb-x');
    assert.match(
      html,
      /^<!-- Generated from docs\/nodes\/tb-x\.md[^\n]*-->\n<script type="text\/html" data-help-name="tb-x">\n/,
    );
    assert.match(html, /<\/script>\n$/);
  });

  it('moves every heading one level down: ## to <h3>, ### to <h4>, #### to <h5>', function () {
    const b = body(render(PAGE));
    const headings = [...b.matchAll(/<(h\d)>([^<]+)</g)].map((m) => `${m[1]} ${m[2]}`);
    assert.deepEqual(headings, [
      'h3 Settings',
      'h3 Inputs',
      'h3 Outputs',
      'h3 Details',
      'h4 Which entity',
      'h5 Deeper',
      'h3 References',
    ]);
  });

  it('turns the Inputs and Outputs tables into message-properties lists, optional and typed', function () {
    const b = body(render(PAGE));
    const inputs = /<h3>Inputs<\/h3>\n([\s\S]*?)<h3>/.exec(b)![1];
    assert.equal(
      inputs,
      '<dl class="message-properties">\n' +
        '<dt>payload <span class="property-type">object</span></dt>\n<dd>The values.</dd>\n' +
        '<dt class="optional">timeout <span class="property-type">string or number</span></dt>\n' +
        `<dd>How long, see <a href="${BLOB}docs/values-from-the-message.md#placeholders">the rules</a>.</dd>\n` +
        '</dl>\n',
    );
    const outputs = /<h3>Outputs<\/h3>\n([\s\S]*?)<h3>/.exec(b)![1];
    assert.match(outputs, /^<p>The incoming message, plus:<\/p>\n<dl class="message-properties">\n<dt>result /);
    assert.doesNotMatch(b, /<table/);
  });

  it('turns the Settings table into a list: each setting, its property, its text and its default', function () {
    const settings = /<h3>Settings<\/h3>\n([\s\S]*?)<h3>/.exec(body(render(PAGE)))![1];
    assert.equal(
      settings,
      '<dl class="message-properties">\n' +
        '<dt style="white-space: normal">Name <span class="property-type">name</span></dt>\n<dd>The node\'s label.</dd>\n' +
        '<dt style="white-space: normal">Mode <span class="property-type">mode</span></dt>\n' +
        '<dd><em>Two-way</em> waits for the reply. Default: <code>twoway</code>.</dd>\n' +
        '</dl>\n',
    );
  });

  it('turns any other table into a list of its rows, each cell under its column name, empty ones left out', function () {
    const details = /<h4>Which entity<\/h4>\n([\s\S]*?)<h5>/.exec(body(render(PAGE)))![1];
    const list =
      '<dl>\n<dt><code>TB_X</code></dt>\n<dd><b>What to do</b>: Fix it.</dd>\n' +
      '<dt><code>TB_Y</code> <em>(rare)</em></dt>\n<dd><b>Nodes</b>: all</dd>\n</dl>\n';
    assert.ok(details.includes(list), details);
  });

  it('gives each output of a node with several its own item of a node-ports list', function () {
    const page = `# wait (\`tb-w\`)

Waits.

## Outputs

Each message leaves by one output.

### 1. Met

| Property | Type | What it holds |
|---|---|---|
| \`msg.waited\` | object | The value that met it. |

### 2. Timed *out*

On timeout:

| Property | Type | What it holds |
|---|---|---|
| \`msg.waited\` | object | The last value seen. |

## Details

Text.
`;
    const outputs = /<h3>Outputs<\/h3>\n([\s\S]*?)<h3>/.exec(body(render(page, 'tb-w')))![1];
    assert.equal(
      outputs,
      '<p>Each message leaves by one output.</p>\n<ol class="node-ports">\n' +
        '<li>Met\n<dl class="message-properties">\n' +
        '<dt>waited <span class="property-type">object</span></dt>\n<dd>The value that met it.</dd>\n</dl>\n</li>\n' +
        '<li>Timed <em>out</em>\n<p>On timeout:</p>\n<dl class="message-properties">\n' +
        '<dt>waited <span class="property-type">object</span></dt>\n<dd>The last value seen.</dd>\n</dl>\n</li>\n' +
        '</ol>\n',
    );
  });

  it('makes relative links absolute on GitHub and leaves other links as they are', function () {
    const b = body(render(PAGE));
    const hrefs = [...b.matchAll(/href="([^"]+)"/g)].map((m) => m[1]);
    assert.deepEqual(hrefs, [
      `${BLOB}docs/values-from-the-message.md#placeholders`,
      `${BLOB}docs/nodes/tb-x.md#which-entity`,
      `${BLOB}docs/nodes/tb-y.md`,
      'https://thingsboard.io/docs/',
      `${BLOB}docs/reliability.md`,
    ]);
  });

  it('leaves pictures out, with the paragraph that held only a picture', function () {
    const b = body(render(PAGE));
    assert.doesNotMatch(b, /<img|\.png|A picture|The dialog/);
    assert.doesNotMatch(b, /<p>\s*<\/p>/);
    assert.match(b, /<li>\n<p>An item of a list, with a picture under it:<\/p>\n<\/li>/);
  });

  it('refuses a page without its title or its opening paragraph', function () {
    assert.throws(() => render('Text first.\n'), /must start with its title/);
    assert.throws(() => render('# t (`tb-x`)\n\n## Settings\n'), /opening paragraph/);
    assert.throws(() => render('# t (`tb-x`)\n\nText.\n\n# again\n'), /one title/);
  });

  it('refuses an Outputs subsection that is not a numbered port when others are', function () {
    const page = '# t (`tb-x`)\n\nText.\n\n## Outputs\n\n### 1. Met\n\nA.\n\n### Notes\n\nB.\n';
    assert.throws(() => render(page), /"### Notes" is not "### <n>\. <Port label>"/);
  });

  it('escapes what a page says and never lets raw HTML through', function () {
    const b = body(render('# t (`tb-x`)\n\nCompares `a < b` and <b>bold</b> & more.\n'));
    assert.equal(b, '<p>Compares <code>a &lt; b</code> and &lt;b&gt;bold&lt;/b&gt; &amp; more.</p>\n');
  });

  describe('building and validating', function () {
    let dir: string;
    beforeEach(function () {
      dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tb-help-'));
      fs.mkdirSync(path.join(dir, 'docs'));
      fs.mkdirSync(path.join(dir, 'out'));
    });
    afterEach(function () {
      fs.rmSync(dir, { recursive: true, force: true });
    });

    it('writes one valid help per node type and removes the help of a type that no longer exists', async function () {
      this.timeout(30000);
      fs.writeFileSync(path.join(dir, 'docs', 'tb-x.md'), PAGE);
      fs.writeFileSync(path.join(dir, 'out', 'tb-gone.html'), '<p>stale</p>');
      const written = await help.buildHelp({
        docsDir: path.join(dir, 'docs'),
        outDir: path.join(dir, 'out'),
        types: ['tb-x'],
      });
      assert.deepEqual(written, [path.join(dir, 'out', 'tb-x.html')]);
      assert.deepEqual(fs.readdirSync(path.join(dir, 'out')), ['tb-x.html']);
      assert.match(fs.readFileSync(written[0], 'utf8'), /data-help-name="tb-x"/);
    });

    it('refuses a node type without a page, and a page of no node type', async function () {
      fs.writeFileSync(path.join(dir, 'docs', 'tb-stray.md'), PAGE);
      await assert.rejects(
        help.buildHelp({ docsDir: path.join(dir, 'docs'), outDir: path.join(dir, 'out'), types: ['tb-x'] }),
        (err: Error) =>
          /tb-x has no reference page/.test(err.message) && /tb-stray\.md is the page of no/.test(err.message),
      );
    });

    it('validates with the repository configuration, inside the help script', async function () {
      this.timeout(30000);
      const bad = path.join(dir, 'out', 'bad.html');
      fs.writeFileSync(bad, '<script type="text/html" data-help-name="x">\n<p>a</p>\n<dl><p>b</p></dl>\n</script>\n');
      await assert.rejects(help.validate([bad]), /bad\.html:3:\d+: <p> element is not permitted as content under <dl>/);
    });
  });
});
