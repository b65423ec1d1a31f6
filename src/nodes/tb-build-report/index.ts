/**
 * tb-build-report: the computed table of a saved analytics (Trendz) view, as rows, the server's table or
 * CSV. Wiring only: the request and formats are src/query/report, the client src/analytics.
 */
import type { Node, NodeAPI, NodeDef, NodeMessageInFlow } from 'node-red';
import {
  prepareReportRequest,
  reportCsv,
  ReportFormat,
  reportRows,
  REPORT_FORMATS,
  ReportRequest,
} from '../../analytics/report';
import { TbConfigError, TbInputError } from '../../errors';
import { sendSplit } from '../../families/query-node';
import { lookupConnection, noConnectionError } from '../../node-red/connection';
import { Activity, onClose, onInput, SendFn, tracked } from '../../node-red/input';
import { errorStatus, setupProblem, status } from '../../node-red/status';
import { TypedInput } from '../../node-red/typed-input';
import { flag, intSetting } from '../../settings/read';
import type { ValueType } from '../../settings/value-rows';

interface BuildReportDef extends NodeDef {
  connection: string;
  viewConfigId: string;
  viewConfigIdType: string;
  range: string;
  last?: string | number;
  lastUnit?: string;
  rangeStartTs?: string | number;
  rangeEndTs?: string | number;
  filters?: string;
  filtersType?: string;
  format?: string;
  split?: boolean | string;
  parseNumbers?: boolean | string;
  maxRetries?: string | number;
  maxWait?: string | number;
}

const UNIT_MS: Record<string, number> = { minutes: 60000, hours: 3600000, days: 86400000 };
const RANGES: readonly string[] = ['view', 'last', 'fixed', 'msg'];

export default function (RED: NodeAPI): void {
  function TbBuildReport(this: Node, config: BuildReportDef) {
    RED.nodes.createNode(this, config);
    const node = this;
    const conn = lookupConnection(RED, node, config.connection);
    const activity = new Activity(RED, node);
    const range = RANGES.includes(config.range) ? config.range : 'view';
    const format: ReportFormat = (REPORT_FORMATS as readonly string[]).includes(String(config.format))
      ? (config.format as ReportFormat)
      : 'rows';
    const split = flag(config.split) && format !== 'table' && format !== 'csv';
    const parseNumbers = flag(config.parseNumbers);
    const maxRetries = Math.max(0, parseInt(String(config.maxRetries ?? 5), 10) || 0);
    const maxWaitMs = intSetting(config.maxWait, 120) * 1000;
    // The dialog offers str / msg / flow / global / env (a str id is taken as it is, placeholders are not read); a type
    // of a hand-edited flow that no TypedInput type is, is read by RED.util.evaluateNodeProperty, as before.
    const view = new TypedInput(RED, node, (config.viewConfigIdType || 'str') as ValueType, config.viewConfigId, {
      name: 'viewConfigId',
    });
    const filtersType = config.filtersType || 'json';
    // A json filter stays text for prepareReportRequest, which reads it for each message (TB_INVALID_INPUT naming
    // filters), and an unnamed msg filter is no filter: only a named msg property and JSONata are read as a TypedInput.
    const filtersInput =
      filtersType === 'jsonata' || (filtersType === 'msg' && config.filters)
        ? new TypedInput(RED, node, filtersType, filtersType === 'jsonata' ? config.filters || '{}' : config.filters, {
            name: 'filters',
            jsonata: {
              invalid: 'The filters JSONata expression is not valid',
              failed: 'The filters expression failed',
              field: 'filters',
            },
            rawMsgErrors: true,
          })
        : undefined;
    let problem: Error | undefined = view.problem ?? filtersInput?.problem;
    if (!problem && range === 'last' && !(Number(config.last) > 0))
      problem = new TbConfigError(
        `last must be a positive number of ${config.lastUnit || 'hours'} (got "${String(config.last)}")`,
      );
    if (problem) setupProblem(RED, node, problem);
    if (conn) conn.register(node);

    async function buildRequest(msg: NodeMessageInFlow): Promise<ReportRequest> {
      const { value: viewConfigId, field: viewField } = await view.read(msg);
      let rangeStartTs: unknown;
      let rangeEndTs: unknown;
      let startField = 'rangeStartTs';
      let endField = 'rangeEndTs';
      if (range === 'last') {
        rangeEndTs = Date.now();
        rangeStartTs =
          (rangeEndTs as number) - Number(config.last) * (UNIT_MS[config.lastUnit ?? 'hours'] ?? UNIT_MS.hours);
      } else if (range === 'fixed') {
        rangeStartTs = config.rangeStartTs;
        rangeEndTs = config.rangeEndTs;
      } else if (range === 'msg') {
        const p = (msg.payload ?? {}) as Record<string, unknown>;
        rangeStartTs = p.rangeStartTs;
        rangeEndTs = p.rangeEndTs;
        startField = 'msg.payload.rangeStartTs';
        endField = 'msg.payload.rangeEndTs';
      }
      const filtersField = filtersType === 'msg' ? `msg.${config.filters}` : 'filters';
      const filters = filtersInput
        ? (await filtersInput.read(msg)).value
        : filtersType === 'msg' || !config.filters?.trim()
          ? undefined
          : config.filters;
      const req = prepareReportRequest(
        { viewConfigId, rangeStartTs, rangeEndTs, filters },
        { viewConfigId: viewField, rangeStartTs: startField, rangeEndTs: endField, filters: filtersField },
      );
      if (range === 'msg' && req.rangeStartTs === undefined) {
        throw new TbInputError(
          startField,
          `${startField} and ${endField} must be set (ms since 1970) when the time range comes from the message`,
        );
      }
      return req;
    }

    onInput(node, async (msg, send: SendFn) => {
      let req: ReportRequest;
      let client;
      try {
        if (problem) throw problem;
        if (!conn) throw noConnectionError();
        if (conn.configError) throw conn.configError;
        client = conn.analytics();
        req = await buildRequest(msg);
      } catch (err) {
        activity.immediate(errorStatus(RED, err));
        throw err;
      }
      await tracked(RED, activity, async () => {
        activity.show(status(RED, 'blue', 'dot', 'building'));
        const table = await client.buildReport(req, {
          retry: { retries: maxRetries, initialMs: 1000, maxMs: 30000, jitter: 0.2, maxTotalMs: maxWaitMs },
          onRetry: (n) => activity.show(status(RED, 'yellow', 'ring', 'queued', { n })),
          onQueue: (state) =>
            activity.show(
              status(RED, state === 'waiting' ? 'yellow' : 'blue', 'dot', state === 'waiting' ? 'queued' : 'building', {
                n: 0,
              }),
            ),
        });
        msg.columns = table.columnLabels;
        if (split) {
          sendSplit(RED, msg, send, reportRows(table, parseNumbers));
        } else {
          msg.payload =
            format === 'table'
              ? table
              : format === 'csv'
                ? reportCsv(table, parseNumbers)
                : reportRows(table, parseNumbers);
          send(msg);
        }
        const rows = table.dataTable.length;
        activity.end(
          rows === 0
            ? status(RED, 'green', 'dot', 'noRows')
            : rows === 1
              ? status(RED, 'green', 'dot', 'oneRow')
              : status(RED, 'green', 'dot', 'rows', { count: rows }),
        );
      });
    });

    onClose(node, conn);
  }
  RED.nodes.registerType('tb-build-report', TbBuildReport);
}
