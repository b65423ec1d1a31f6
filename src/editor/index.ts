/**
 * What the editor's browser bundle, `resources/tb-editor.js`, defines besides the dialogs (scripts/bundle-editor.js
 * builds it with esbuild into one IIFE script, which every nodes/<type>.html includes, and adds every node's
 * src/nodes/<type>/editor.ts). Three globals:
 * - `window.TbQuery`: its exports (tb-query.ts), the runtime's own query module;
 * - `window.TbBuilder`: the query builder and the pickers of the dialogs (builder/);
 * - `window.TbEditor`: the node types' dialogs, which each html registers with `TbEditor.dialog('<type>')`.
 */
export * from './tb-query';
import './builder';
