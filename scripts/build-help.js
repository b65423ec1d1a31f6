'use strict';
// Build step: each node's in-editor help, nodes/locales/en-US/<type>.html, generated from its reference page
// docs/nodes/<type>.md (the one place a node's reference is written). The page's shape is described in
// docs/README.md; the help follows Node-RED's help style guide:
// - the page's title (its H1) is left out: the sidebar shows the node's name;
// - the opening paragraph comes first: Node-RED shows it as the palette tooltip;
// - `## X` becomes <h3>, `### X` <h4> (the sidebar's own title is the largest heading);
// - the tables of Inputs and Outputs (Property | Type | What …) become <dl class="message-properties">, a
//   property marked *(optional)* a <dt class="optional">, its type a <span class="property-type">; the Settings
//   table (Setting | Property | Default | What it is) becomes such a list too, and any other table a list of its
//   rows: a table of several columns does not fit the sidebar (about 300 pixels wide);
// - several outputs (`### 1. <Port label>`, `### 2. …` under Outputs) become <ol class="node-ports">;
// - a relative link becomes its address on GitHub's main branch (the help is read inside the editor, where a
//   relative address means nothing), and pictures are left out (the sidebar is narrow; GitHub shows them);
// - a long code span is cut into one <code> per word, which the narrow sidebar can wrap (see LONG_CODE).
// Each help is checked with html-validate and the repository's .htmlvalidate.mjs before the build goes on.
const fs = require('fs');
const path = require('path');
const MarkdownIt = require('markdown-it');

const root = path.join(__dirname, '..');
const pkg = require(path.join(root, 'package.json'));

/** The repository's address on GitHub, from package.json `repository`, on the branch the documents live on. */
function blobBase() {
  const url = (pkg.repository && pkg.repository.url) || '';
  const m = /github\.com[/:]([^/]+\/[^/]+?)(\.git)?$/.exec(url);
  if (!m) throw new Error(`package.json "repository" is not a GitHub repository (${url})`);
  return `https://github.com/${m[1]}/blob/main/`;
}

const md = new MarkdownIt({ html: false, linkify: false, typographer: false });

/**
 * The sidebar never wraps a line inside <code> (Node-RED's style: white-space nowrap), so a long code span such as a
 * JSON example or a deep property path would run off it. One longer than this is written as one <code> per word,
 * which the sidebar wraps between words; a word still longer is cut after its dots, commas, colons, braces and dashes
 * (a path, compact JSON, an id) with a <wbr> between the pieces, where a line may break with nothing more copied.
 */
const LONG_CODE = 24;
const codeInline = md.renderer.rules.code_inline;
const code = (text) => `<code>${md.utils.escapeHtml(text)}</code>`;
const longWord = (word) =>
  word.length <= LONG_CODE
    ? code(word)
    : word
        .split(/(?<=[./,:{-])(?=[^./,:{-])/)
        .map(code)
        .join('<wbr>');
md.renderer.rules.code_inline = (tokens, idx, options, env, self) => {
  const text = tokens[idx].content.trim();
  if (text.length <= LONG_CODE) return codeInline(tokens, idx, options, env, self);
  return text.split(/\s+/).map(longWord).join(' ');
};

/** Block tokens grouped into top-level blocks: a heading, a paragraph, a table, a list, a code block… */
function topLevelBlocks(tokens) {
  const blocks = [];
  let start = -1;
  for (let i = 0; i < tokens.length; i++) {
    const t = tokens[i];
    if (t.level !== 0) continue;
    if (t.nesting === 1) start = i;
    else if (t.nesting === -1) blocks.push(tokens.slice(start, i + 1));
    else blocks.push([t]);
  }
  return blocks;
}

const headingLevel = (block) => (block[0].type === 'heading_open' ? Number(block[0].tag.slice(1)) : 0);
const headingText = (block) => block[1].content.trim();

const blank = (inline) =>
  inline.children.every((c) => (c.type === 'text' && !c.content.trim()) || /break$/.test(c.type));

/** The tokens without pictures, wherever they are (in a list item too), nor a paragraph that held only pictures. */
function withoutPictures(tokens) {
  for (const t of tokens) if (t.type === 'inline') t.children = (t.children || []).filter((c) => c.type !== 'image');
  const out = [];
  for (let i = 0; i < tokens.length; i++) {
    // a paragraph is always its opening, its inline content and its closing
    if (tokens[i].type === 'paragraph_open' && blank(tokens[i + 1])) i += 2;
    else out.push(tokens[i]);
  }
  return out;
}

/** Makes a link relative to the page an absolute address on GitHub. */
function absolute(href, page, blob) {
  if (/^[a-z][a-z0-9+.-]*:/i.test(href)) return href;
  if (href.startsWith('#')) return `${blob}${page}${href}`;
  const [file, hash] = href.split(/(?=#)/);
  const target = path.posix.normalize(path.posix.join(path.posix.dirname(page), file));
  if (target.startsWith('..')) throw new Error(`${page}: the link ${href} leaves the repository`);
  return `${blob}${target}${hash || ''}`;
}

function rewriteLinks(inline, page, blob) {
  for (const c of inline.children || []) {
    if (c.type === 'link_open') c.attrSet('href', absolute(c.attrGet('href'), page, blob));
  }
}

const escapeHtml = (s) => md.utils.escapeHtml(s);

/** The cells of a table block: a list of rows, each a list of the cells' inline tokens (the header first). */
function tableRows(block) {
  const rows = [];
  for (const t of block) {
    if (t.type === 'tr_open') rows.push([]);
    else if (t.type === 'inline') rows[rows.length - 1].push(t);
  }
  return rows;
}

/** A table of Inputs or Outputs: three columns, the first named Property. */
function isPropertyTable(block) {
  if (block[0].type !== 'table_open') return false;
  const [header] = tableRows(block);
  return header.length === 3 && header[0].content.trim() === 'Property';
}

/**
 * The property cell as a <dt>: its names without the `msg.` prefix (as Node-RED's own help writes them), and
 * whether *(optional)* marks it. A cell that lists several properties (`msg.a`, `msg.b`) also gives them one by one
 * (`names`): the sidebar never wraps a <dt>, so each gets its own.
 */
function propertyTerm(cell) {
  const parts = cell.children || [];
  const optional = parts.some((c, i) => c.type === 'em_open' && /^\(optional\)$/.test((parts[i + 1] || {}).content));
  let name = '';
  const codes = [];
  let onlyCodes = true;
  for (let i = 0; i < parts.length; i++) {
    const c = parts[i];
    if (c.type === 'em_open' && /^\(optional\)$/.test((parts[i + 1] || {}).content)) i += 2;
    else if (c.type === 'code_inline') {
      const one = escapeHtml(c.content.replace(/^msg\./, ''));
      codes.push(one);
      name += one;
    } else if (c.type === 'text') {
      name += escapeHtml(c.content);
      if (!/^[\s,]*$/.test(c.content)) onlyCodes = false;
    } else {
      name += md.renderer.renderInline([c], md.options, {});
      onlyCodes = false;
    }
  }
  return { name: name.trim(), names: onlyCodes && codes.length > 1 ? codes : [name.trim()], optional };
}

function messageProperties(block) {
  const [, ...rows] = tableRows(block);
  const inline = (cell) => md.renderer.renderInline(cell.children, md.options, {}).trim();
  const items = rows.map(([prop, type, text]) => {
    const { names, optional } = propertyTerm(prop);
    const typeText = inline(type);
    // Several properties that share a description: one <dt> each, the type beside the first.
    const dts = names.map(
      (name, i) =>
        `<dt${optional ? ' class="optional"' : ''}>${name}${
          typeText && i === 0 ? ` <span class="property-type">${typeText}</span>` : ''
        }</dt>`,
    );
    return `${dts.join('\n')}\n<dd>${inline(text)}</dd>`;
  });
  return `<dl class="message-properties">\n${items.join('\n')}\n</dl>\n`;
}

/** The Settings table: Setting | Property | Default | What it is. */
function isSettingsTable(block) {
  if (block[0].type !== 'table_open') return false;
  const [header] = tableRows(block);
  return header.length === 4 && header[1].content.trim() === 'Property';
}

/**
 * The Settings table as a list: each setting's label, its property name beside it as Node-RED writes a property's
 * type, then the text and its default.
 */
function settingsList(block) {
  const [, ...rows] = tableRows(block);
  const inline = (cell) => md.renderer.renderInline(cell.children, md.options, {}).trim();
  const items = rows.map(([label, prop, dflt, text]) => {
    const name = propertyTerm(prop).name;
    const dd = [inline(text), dflt.content.trim() ? `Default: ${inline(dflt)}.` : ''].filter(Boolean).join(' ');
    // A setting's label is words, which the sidebar may wrap (its style keeps a <dt> on one line, for a property).
    return `<dt style="white-space: normal">${inline(label)}${
      name ? ` <span class="property-type">${name}</span>` : ''
    }</dt>\n<dd>${dd}</dd>`;
  });
  return `<dl class="message-properties">\n${items.join('\n')}\n</dl>\n`;
}

/**
 * Any other table as a list of its rows: the first cell a term, each other cell a description headed by its
 * column's name (an empty cell or a dash left out), so that it fits the sidebar whatever its number of columns.
 */
function rowList(block) {
  const [header, ...rows] = tableRows(block);
  const inline = (cell) => md.renderer.renderInline(cell.children, md.options, {}).trim();
  const items = rows.map(([first, ...rest]) => {
    const dds = rest
      .map((cell, i) => ({ head: inline(header[i + 1]), text: inline(cell) }))
      .filter((d) => d.text && d.text !== '—' && d.text !== '-')
      .map((d) => `<dd>${d.head ? `<b>${d.head}</b>: ` : ''}${d.text}</dd>`);
    return [`<dt>${inline(first)}</dt>`, ...dds].join('\n');
  });
  return `<dl>\n${items.join('\n')}\n</dl>\n`;
}

/** Renders the blocks of the section `name`: its tables as lists (no table of several columns fits the sidebar). */
function renderBlocks(blocks, name) {
  return blocks
    .map((b) => {
      if ((name === 'Inputs' || name === 'Outputs') && isPropertyTable(b)) return messageProperties(b);
      if (name === 'Settings' && isSettingsTable(b)) return settingsList(b);
      if (b[0].type === 'table_open') return rowList(b);
      return md.renderer.render(b, md.options, {});
    })
    .join('');
}

/** A port heading of Outputs: `### 1. Met`. */
const PORT = /^\d+\.\s+(.+)$/;

/**
 * Outputs with one `### N. <Port label>` subsection per output: the blocks before the first port, and each
 * port's label and blocks; null when the section has no port heading (one output).
 */
function outputPorts(blocks, page) {
  const first = blocks.findIndex((b) => headingLevel(b) === 3 && PORT.test(headingText(b)));
  if (first < 0) return null;
  const ports = [];
  for (const b of blocks.slice(first)) {
    if (headingLevel(b) === 3) {
      const m = PORT.exec(headingText(b));
      if (!m) throw new Error(`${page}: under Outputs, "### ${headingText(b)}" is not "### <n>. <Port label>"`);
      ports.push({ label: md.renderInline(m[1]), blocks: [] });
    } else ports[ports.length - 1].blocks.push(b);
  }
  return { before: blocks.slice(0, first), ports };
}

function renderPorts({ before, ports }) {
  let html = renderBlocks(before, 'Outputs');
  html += '<ol class="node-ports">\n';
  for (const p of ports) html += `<li>${p.label}\n${renderBlocks(p.blocks, 'Outputs')}</li>\n`;
  return `${html}</ol>\n`;
}

/**
 * The help file of one node: the page `markdown` (docs/nodes/<type>.md, the `page` path relative to the
 * repository, for the links) turned into the body of Node-RED's
 * `<script type="text/html" data-help-name="<type>">`.
 */
function renderHelp(type, markdown, page = `docs/nodes/${type}.md`, blob = blobBase()) {
  const tokens = md.parse(markdown, {});
  for (const t of tokens) {
    if (t.type !== 'inline') continue;
    rewriteLinks(t, page, blob);
  }
  let blocks = topLevelBlocks(withoutPictures(tokens));
  if (headingLevel(blocks[0] || []) !== 1) throw new Error(`${page}: the page must start with its title (# …)`);
  if (blocks.some((b, i) => i > 0 && headingLevel(b) === 1)) throw new Error(`${page}: one title (# …) only`);
  blocks = blocks.slice(1);
  if (!blocks[0] || blocks[0][0].type !== 'paragraph_open') {
    throw new Error(`${page}: the title must be followed by the opening paragraph (the palette tooltip)`);
  }
  // Sections: the introduction, then one per `## X`.
  const sections = [{ name: '', blocks: [] }];
  for (const b of blocks) {
    if (headingLevel(b) === 2) sections.push({ name: headingText(b), heading: b, blocks: [] });
    else sections[sections.length - 1].blocks.push(b);
  }
  // Found by their levels on the page, rendered one level down: `##` as <h3>, `###` as <h4>.
  const ports = sections.map((s) => (s.name === 'Outputs' ? outputPorts(s.blocks, page) : null));
  for (const b of blocks) {
    for (const t of b) if (/^heading_/.test(t.type)) t.tag = `h${Math.min(Number(t.tag.slice(1)) + 1, 6)}`;
  }
  let body = '';
  sections.forEach((s, i) => {
    if (s.heading) body += md.renderer.render(s.heading, md.options, {});
    body += ports[i] ? renderPorts(ports[i]) : renderBlocks(s.blocks, s.name);
  });
  if (/<\/script/i.test(body)) throw new Error(`${page}: the help may not contain "</script"`);
  return (
    `<!-- Generated from ${page} by scripts/build-help.js at build time: edit the page, not this file. -->\n` +
    `<script type="text/html" data-help-name="${type}">\n${body}</script>\n`
  );
}

/**
 * Checks help files with html-validate and the repository's configuration (.htmlvalidate.mjs, wherever the
 * files are); throws naming every problem.
 */
async function validate(files) {
  const { HtmlValidate, StaticConfigLoader } = require('html-validate');
  const { pathToFileURL } = require('url');
  const { default: config } = await import(pathToFileURL(path.join(root, '.htmlvalidate.mjs')).href);
  const htmlvalidate = new HtmlValidate(new StaticConfigLoader(config));
  const problems = [];
  for (const file of files) {
    const report = await htmlvalidate.validateFile(file);
    for (const r of report.results)
      for (const m of r.messages)
        problems.push(`${path.relative(root, file)}:${m.line}:${m.column}: ${m.message} (${m.ruleId})`);
  }
  if (problems.length) throw new Error(`the generated help is not valid HTML:\n${problems.join('\n')}`);
}

/**
 * Writes the help of every node type of package.json from its page, after removing the help files of a
 * previous build (a node type that no longer exists leaves no help behind).
 */
async function buildHelp({ docsDir = path.join(root, 'docs', 'nodes'), outDir, types } = {}) {
  outDir = outDir || path.join(root, 'nodes', 'locales', 'en-US');
  types = types || Object.keys(pkg['node-red'].nodes);
  const pages = fs.existsSync(docsDir) ? fs.readdirSync(docsDir).filter((f) => f.endsWith('.md')) : [];
  const missing = types.filter((t) => !pages.includes(`${t}.md`));
  const strays = pages.filter((f) => !types.includes(f.replace(/\.md$/, '')));
  if (missing.length || strays.length) {
    throw new Error(
      [
        ...missing.map((t) => `node type ${t} has no reference page ${path.relative(root, docsDir)}/${t}.md`),
        ...strays.map((f) => `${path.relative(root, docsDir)}/${f} is the page of no node type of package.json`),
      ].join('\n'),
    );
  }
  fs.mkdirSync(outDir, { recursive: true });
  for (const f of fs.readdirSync(outDir)) if (f.endsWith('.html')) fs.rmSync(path.join(outDir, f));
  const written = [];
  for (const type of types) {
    const file = path.join(docsDir, `${type}.md`);
    const out = path.join(outDir, `${type}.html`);
    fs.writeFileSync(out, renderHelp(type, fs.readFileSync(file, 'utf8')));
    written.push(out);
  }
  await validate(written);
  return written;
}

module.exports = { renderHelp, buildHelp, validate };

if (require.main === module) {
  buildHelp().catch((err) => {
    console.error(`build-help: ${err.message}`);
    process.exitCode = 1;
  });
}
