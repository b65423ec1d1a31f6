/**
 * tb-build-report: the computed table of a saved analytics (Trendz) view, as rows, the server's table or CSV. Wiring
 * only: its settings are settings.ts; the request, its checks and the output formats belong to the analytics client.
 */
import type { Node, NodeAPI, NodeDef, NodeMessageInFlow } from 'node-red';
import { prepareReportRequest, reportCsv, ReportRequest, reportRows } from '../../analytics/report';
import { TbInputError } from '../../errors';
import { sendSplit } from '../../families/query-node';
import { lookupConnection, noConnectionError } from '../../node-red/connection';
import { Activity, onClose, onInput, SendFn, tracked } from '../../node-red/input';
import { nodeSettings } from '../../node-red/settings';
import { errorStatus, setupProblem, status } from '../../node-red/status';
import { TypedInput } from '../../node-red/typed-input';
import { label } from './label';
import { MIGRATIONS } from './migrations';
import { TB_BUILD_REPORT } from './settings';
const DEFAULT_FILTERS = TB_BUILD_REPORT.settings.filters.default;

export default function (RED: NodeAPI): void {
  function TbBuildReport(this: Node, config: NodeDef) {
    RED.nodes.createNode(this, config);
    const node = this;
    const settings = nodeSettings(node, TB_BUILD_REPORT, MIGRATIONS, config, { RED, label });
    const s = settings.values;
    const conn = lookupConnection(RED, node, s.connection);
    const activity = new Activity(RED, node);
    const range = s.range;
    const format = s.format;
    const split = s.split && format !== 'table' && format !== 'csv';
    // Within their range (their default when the saved one is not).
    const maxRetries = s.maxRetries as number;
    const maxWaitMs = s.maxWait as number;
    // str (the id as it is: placeholders are not read), msg, flow, global or env.
    const view = new TypedInput(RED, node, s.viewConfigIdType, s.viewConfigId, { name: 'viewConfigId' });
    const filtersType = s.filtersType;
    // A json filter stays text for prepareReportRequest, which reads it for each message (TB_INVALID_INPUT naming
    // filters), and an unnamed msg filter is no filter: only a named msg property and JSONata are read as a TypedInput.
    // An empty JSONata filter evaluates the setting's default (no filter).
    const filtersInput =
      filtersType === 'jsonata' || (filtersType === 'msg' && s.filters)
        ? new TypedInput(RED, node, filtersType, filtersType === 'jsonata' ? s.filters || DEFAULT_FILTERS : s.filters, {
            name: 'filters',
            jsonata: {
              invalid: 'The filters JSONata expression is not valid',
              failed: 'The filters expression failed',
              field: 'filters',
            },
            rawMsgErrors: true,
          })
        : undefined;
    const problem: Error | undefined = settings.problems[0] ?? view.problem ?? filtersInput?.problem;
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
        rangeStartTs = (rangeEndTs as number) - (s.last as number);
      } else if (range === 'fixed') {
        rangeStartTs = s.rangeStartTs;
        rangeEndTs = s.rangeEndTs;
      } else if (range === 'msg') {
        const p = (msg.payload ?? {}) as Record<string, unknown>;
        rangeStartTs = p.rangeStartTs;
        rangeEndTs = p.rangeEndTs;
        startField = 'msg.payload.rangeStartTs';
        endField = 'msg.payload.rangeEndTs';
      }
      const filtersField = filtersType === 'msg' ? `msg.${s.filters}` : 'filters';
      const filters = filtersInput
        ? (await filtersInput.read(msg)).value
        : filtersType === 'msg' || !s.filters.trim()
          ? undefined
          : s.filters;
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
          sendSplit(RED, msg, send, reportRows(table, s.parseNumbers));
        } else {
          msg.payload =
            format === 'table'
              ? table
              : format === 'csv'
                ? reportCsv(table, s.parseNumbers)
                : reportRows(table, s.parseNumbers);
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
