/**
 * `window.TbBuilder`: the dialog helpers of node-red-contrib-thingsboard-query that need more than a few
 * lines — the query builder, and the small server-backed helpers of the other dialogs (dialogs.ts: connection
 * test, entity pickers, suggestions, view link). Loaded by every node's html from resources/ (built by
 * scripts/bundle-editor.js).
 */
import { compactQuery } from '../../query/json-text';
import { defaultQuery, type QueryMode } from '../../query/schema';
import { actionProblem, fixedEntities, targetEntityTypes, validateSetting } from './action-settings';
import { keysInput } from './actions';
import { attach, type Builder } from './builder';
import { addConnection, alarmTypeInput, connectionTest, entityInput, entityJsonInput, userInput, viewIdFromLink } from './dialogs';
import { jsonProblem, validateText } from './validation';
import { isUuid } from './widgets';

/** The builder of the dialog that is open (one query dialog at a time). */
let current: Builder | undefined;

/**
 * Opens the builder in a query node's dialog: attaches the builder to `#node-input-query` (already a TypedInput) in the dialog's `#tb-builder` div.
 */
function open(o: { nodeType: string; query?: string; mode(): QueryMode; operation(): string; live?: boolean }): Builder {
  close();
  current = attach({
    nodeType: o.nodeType,
    input: '#node-input-query',
    container: '#tb-builder',
    mode: o.mode,
    operation: o.operation,
    connection: () => String($('#node-input-connection').val() ?? '') || undefined,
    live: o.live,
    text: o.query,
  });
  return current;
}

/** Writes the query back and releases the builder (oneditsave / oneditcancel). */
function close(): void {
  current?.close();
  current = undefined;
}

const api = {
  jsonProblem,
  attach,
  open,
  close,
  resize: () => current?.resize(),
  modeChanged: () => current?.modeChanged(),
  /** `options.live` for tb-subscribe's query (a live subscription); REST without it. */
  validateText: (mode: QueryMode, text: string, options?: { live?: boolean }) => validateText(mode, text, options),
  defaultText: (mode: QueryMode) => compactQuery(defaultQuery(mode)),
  addConnection,
  connectionTest,
  entityInput,
  entityJsonInput,
  alarmTypeInput,
  userInput,
  viewIdFromLink,
  isUuid,
  // The device actions (tb-telemetry, tb-attributes, tb-rpc).
  actionProblem,
  validateSetting,
  fixedEntities,
  keysInput,
  targetEntityTypes,
};

declare global {
  interface Window {
    TbBuilder?: typeof api;
  }
}

if (!window.TbBuilder) window.TbBuilder = api;
