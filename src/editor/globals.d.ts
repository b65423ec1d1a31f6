/**
 * What the editor code uses of the Node-RED editor page: jQuery (with Node-RED's widgets) and the `RED`
 * global. Only the members it calls are declared, with the shapes Node-RED 3.1, 4.1 and 5.x share.
 */

/** One suggestion of Node-RED's autoComplete widget. */
interface TbCompletion {
  value: string;
  label: string | JQuery;
}

interface JQuery {
  typedInput(method: 'type'): string;
  typedInput(method: 'value'): string;
  typedInput(method: 'type' | 'value', value: string): JQuery;
  typedInput(method: 'width', value: string | number): JQuery;
  typedInput(method: 'validate'): boolean;
  typedInput(options: Record<string, unknown>): JQuery;
  autoComplete(options: {
    search: (value: string, done: (items: TbCompletion[]) => void) => void;
    minLength?: number;
  }): JQuery;
  autoComplete(method: 'destroy'): JQuery;
  editableList(options: Record<string, unknown>): JQuery;
  editableList(method: 'addItem', data: unknown): JQuery;
}

/** The editor's code editor (monaco or ace behind one API). */
interface TbCodeEditor {
  getValue(): string;
  setValue(text: string, cursor?: number): void;
  on(event: 'change' | 'blur' | 'focus', cb: () => void): void;
  resize(): void;
  destroy(): void;
  focus(): void;
  gotoLine?(row: number, column: number): void;
  /** Monaco only. */
  getModel?(): { uri: { toString(): string } } | null;
  /** ace only. */
  getSession?(): { setAnnotations?(a: Array<{ row: number; column: number; text: string; type: string }>): void };
}

/** A node as `RED.nodes.node(id)` returns it (a config node's validity is what the dialogs check). */
interface TbConfigNode {
  id: string;
  type: string;
  changed?: boolean;
  name?: string;
  _def?: { category?: string };
  valid?: boolean;
  validationErrors?: unknown[];
  /** Its settings (such as a connection's analyticsUrl). */
  [prop: string]: unknown;
}

interface TbRed {
  _(key: string, options?: Record<string, unknown>): string;
  nodes: {
    node(id: string): TbConfigNode | null;
    /** The flow last loaded or deployed (Node-RED 3.1 to 5.x). */
    originalFlow?(): unknown;
    eachConfig(cb: (n: { id: string; type: string; d?: boolean }) => boolean | void): void;
    dirty(): boolean;
    dirty(value: boolean): void;
    /** The wires into or out of a node. */
    filterLinks(filter: { source?: unknown; target?: unknown }): Array<{ source: unknown; target: unknown }>;
  };
  /** The undo history (an edit made outside the node's own dialog). */
  history: { push(event: Record<string, unknown>): void };
  view: { redraw(full?: boolean): void };
  editor: {
    createEditor(options: {
      element?: HTMLElement;
      id?: string;
      mode: string;
      value: string;
      stateId?: boolean | string;
      minimap?: { enabled: boolean };
    }): TbCodeEditor;
    /** Checks a node's settings again (its red triangle). */
    validateNode(node: unknown): boolean;
  };
  notify(text: string, options?: string | Record<string, unknown>): void;
  popover?: { tooltip(target: JQuery, content: string): unknown };
  settings: { get(name: string, fallback?: unknown): unknown };
  utils: {
    /** Node-RED's check of a message property path (such as `payload` or `data.list`). */
    validatePropertyExpression(str: string): boolean;
    /** A node's label as the canvas shows it. */
    getNodeLabel(node: unknown, defaultLabel?: string): string;
  };
  validators: {
    /** Node-RED's check of a TypedInput's value for the type held in the `typeField` property. */
    typedInput(typeField: string): (this: unknown, v: unknown, opt?: unknown) => boolean | string;
  };
}

declare const RED: TbRed;
