/**
 * `window.TbBuilder`: the dialog helpers of node-red-contrib-thingsboard-query that need more than a few
 * lines — the query builder, and the small server-backed helpers of the other dialogs (dialogs.ts: connection
 * test, entity pickers, suggestions, view link). Loaded by every node's html from resources/ (the editor bundle).
 */
import { compactQuery } from '../../query-model/json-text';
import { defaultQuery, type QueryMode } from '../../query-model/schema';
import { actionProblem, fixedEntities, targetEntityTypes, validateSetting } from './action-settings';
import { keysInput } from './actions';
import { attach } from './builder';
import {
  addConnection,
  alarmTypeInput,
  connectionTest,
  entityInput,
  entityJsonInput,
  userInput,
  viewIdFromLink,
} from './dialogs';
import { close, modeChanged, open, resize } from './session';
import { jsonProblem, validateText } from './validation';
import { isUuid } from './widgets';

const api = {
  jsonProblem,
  attach,
  open,
  close,
  resize,
  modeChanged,
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
