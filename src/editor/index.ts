/**
 * What the editor's browser bundle, `resources/tb-editor.js`, defines besides the dialogs (the build makes it one
 * script, which every node's html includes, and adds every node's dialog). Three globals:
 * - `window.TbQuery`: its exports (tb-query.ts), the runtime's own query module;
 * - `window.TbBuilder`: the query builder and the pickers of the dialogs (builder/);
 * - `window.TbEditor`: the node types' dialogs, which each html registers with `TbEditor.dialog('<type>')`.
 */
export * from './tb-query';
import './builder';
