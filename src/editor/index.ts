/**
 * Entry of the editor's browser bundle, `resources/tb-editor.js` (built by scripts/bundle-editor.js with esbuild:
 * one IIFE script, which every nodes/<type>.html includes). It defines three globals:
 * - `window.TbQuery`: its exports (tb-query.ts), the runtime's own query module;
 * - `window.TbBuilder`: the query builder and the pickers of the dialogs (builder/);
 * - `window.TbEditor`: the node types' dialogs (nodes/, on the shared parts in common/), which each html
 *   registers with `TbEditor.dialog('<type>')`.
 */
export * from './tb-query';
import './builder';
import './tb-editor';
