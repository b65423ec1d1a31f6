/**
 * `window.TbEditor`: the node types' dialogs. `TbEditor.dialog('<type>')` is a node type's typed definition (the
 * default export of its folder's editor.ts), which its html registers. The bundle's entry, made by the build from the
 * node folders, hands them all to `defineDialogs`.
 */
import type { Dialog } from './dialog/dialog';
import { forType } from './dialog/for-type';

const dialogs: Record<string, Dialog> = {};

function dialog(type: string): Dialog {
  const d = dialogs[type];
  if (!d) throw new Error(`no dialog for ${type}: src/nodes/${type}/editor.ts`);
  return d;
}

const api = {
  dialog,
  // No html calls it any more (each dialog's module does); a browser test checks the shared script by it.
  forType,
};

declare global {
  interface Window {
    TbEditor?: typeof api;
  }
}

/** Registers the dialogs of the bundle, each under its own type; the first bundle loaded on a page defines TbEditor. */
export function defineDialogs(list: readonly Dialog[]): void {
  for (const d of list) {
    if (dialogs[d.type]) throw new Error(`two dialogs for ${d.type}`);
    dialogs[d.type] = d;
  }
  if (!window.TbEditor) window.TbEditor = api;
}
