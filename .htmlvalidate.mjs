// html-validate for Node-RED's editor files: the dialogs (src/nodes/<type>/editor.html; npm run lint) and the help
// pages the build generates from docs/nodes/<type>.md (scripts/build-help.js validates each one).
// The templates and help texts live inside <script type="text/html" data-template-name|data-help-name="…">, which
// an HTML parser reads as opaque text: the transformer below yields each such body as a source of its own, at its
// place in the file (so the lines reported are the file's), beside the file itself.

const TEMPLATE = /<script type="text\/html" data-(?:template|help)-name="[^"]*">([\s\S]*?)<\/script>/g;

function nodeRedTemplates(source) {
  const sources = [source];
  for (const m of source.data.matchAll(TEMPLATE)) {
    const start = m.index + m[0].indexOf('>') + 1;
    const lines = source.data.slice(0, start).split('\n');
    const last = lines[lines.length - 1].length;
    sources.push({
      ...source,
      data: m[1],
      offset: source.offset + start,
      line: source.line + lines.length - 1,
      column: lines.length === 1 ? source.column + last : last + 1,
      originalData: source.originalData || source.data,
    });
  }
  return sources;
}
nodeRedTemplates.api = 1;

export default {
  extends: ['html-validate:recommended'],
  transform: { '^.*\\.html$': nodeRedTemplates },
  rules: {
    // Node-RED's own form: registerType in <script type="text/javascript"> (the style guide, rule 3).
    'script-type': 'off',
    // Dialog rows are laid out with inline widths, as in Node-RED's core nodes (its stylesheet has no classes for it).
    'no-inline-style': 'off',
    // A label names the node property, held by a hidden input that a TypedInput or the query builder stands in for.
    'valid-for': 'off',
    // Texts come from the catalog at run time (data-i18n fills the element), so they are empty in the file.
    'text-content': 'off',
  },
};
