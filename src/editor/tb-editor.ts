/**
 * `window.TbEditor`: the node types' dialogs. `TbEditor.dialog('<type>')` is a node type's typed definition
 * (src/editor/nodes/<type>.ts), which its html registers.
 */
import { DIALOGS } from './nodes';
import type { Dialog } from './common/dialog';
import { forType } from './common/for-type';

function dialog(type: string): Dialog {
  const d = DIALOGS[type];
  if (!d) throw new Error(`no dialog for ${type} in src/editor/nodes`);
  return d;
}

const api = {
  dialog,
  // No html calls it any more (each dialog's module does); test/browser/editor.browser.ts checks the shared script
  // by it. Drop it when that check asks for `dialog` instead.
  forType,
};

declare global {
  interface Window {
    TbEditor?: typeof api;
  }
}

if (!window.TbEditor) window.TbEditor = api;
