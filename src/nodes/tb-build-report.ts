/**
 * tb-build-report: the computed table of a saved analytics (Trendz) view, as rows, the server's table or
 * CSV. Wiring only: the request and formats are src/query/report, the client src/analytics.
 */
import type { Node, NodeAPI, NodeDef, NodeMessage, NodeMessageInFlow } from 'node-red';
import { TbConfigError, TbInputError } from '../errors';
import { prepareReportRequest, reportCsv, ReportFormat, reportRows, REPORT_FORMATS, ReportRequest } from '../query/report';
import { Activity, errorStatus, flag, intSetting, lookupConnection, noConnectionError, onClose, onInput, SendFn, setupProblem, status, tracked } from './support/common';
import { sendSplit } from './support/rest-node';

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

type JsonataExpr = ReturnType<NodeAPI['util']['prepareJSONataExpression']>;

export default function (RED: NodeAPI): void {
  function TbBuildReport(this: Node, config: BuildReportDef) {
    RED.nodes.createNode(this, config);
    const node = this;
    const conn = lookupConnection(RED, node, config.connection);
    const activity = new Activity(RED, node);
    const range = RANGES.includes(config.range) ? config.range : 'view';
    const format: ReportFormat = (REPORT_FORMATS as readonly string[]).includes(String(config.format)) ? (config.format as ReportFormat) : 'rows';
    const split = flag(config.split) && format !== 'table' && format !== 'csv';
    const parseNumbers = flag(config.parseNumbers);
    const maxRetries = Math.max(0, parseInt(String(config.maxRetries ?? 5), 10) || 0);
    const maxWaitMs = intSetting(config.maxWait, 120) * 1000;
    const viewType = config.viewConfigIdType || 'str';
    const filtersType = config.filtersType || 'json';
    let filtersExpr: JsonataExpr | undefined;
    let problem: Error | undefined;
    try {
      if (filtersType === 'jsonata') filtersExpr = RED.util.prepareJSONataExpression(config.filters || '{}', node);
      if (range === 'last' && !(Number(config.last) > 0)) throw new TbConfigError(`last must be a positive number of ${config.lastUnit || 'hours'} (got "${String(config.last)}")`);
    } catch (err) {
      problem = err instanceof TbConfigError ? err : new TbConfigError(`The filters JSONata expression is not valid: ${(err as Error).message}`);
      setupProblem(RED, node, problem);
    }
    if (conn) conn.register(node);

    const evaluate = (value: string, type: string, msg: NodeMessage): Promise<unknown> =>
      new Promise((resolve, reject) => {
        RED.util.evaluateNodeProperty(value, type, node, msg, (err: Error | null, v: unknown) => (err ? reject(err) : resolve(v)));
      });

    async function buildRequest(msg: NodeMessageInFlow): Promise<ReportRequest> {
      const viewField = viewType === 'str' ? 'viewConfigId' : `${viewType}.${config.viewConfigId}`;
      let viewConfigId: unknown;
      try {
        viewConfigId = await evaluate(config.viewConfigId ?? '', viewType, msg);
      } catch (err) {
        throw new TbInputError(viewField, `Cannot read ${viewField}: ${(err as Error).message}`);
      }
      let rangeStartTs: unknown;
      let rangeEndTs: unknown;
      let startField = 'rangeStartTs';
      let endField = 'rangeEndTs';
      if (range === 'last') {
        rangeEndTs = Date.now();
        rangeStartTs = (rangeEndTs as number) - Number(config.last) * (UNIT_MS[config.lastUnit ?? 'hours'] ?? UNIT_MS.hours);
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
      let filters: unknown;
      const filtersField = filtersType === 'msg' ? `msg.${config.filters}` : 'filters';
      if (filtersType === 'jsonata') {
        filters = await new Promise((resolve, reject) => {
          RED.util.evaluateJSONataExpression(filtersExpr as JsonataExpr, msg, (err: Error | null, v: unknown) =>
            err ? reject(new TbInputError(filtersField, `The filters expression failed: ${err.message}`)) : resolve(v),
          );
        });
      } else if (filtersType === 'msg') {
        filters = config.filters ? RED.util.getMessageProperty(msg, config.filters) : undefined;
      } else {
        filters = config.filters && config.filters.trim() ? config.filters : undefined;
      }
      const req = prepareReportRequest({ viewConfigId, rangeStartTs, rangeEndTs, filters }, { viewConfigId: viewField, rangeStartTs: startField, rangeEndTs: endField, filters: filtersField });
      if (range === 'msg' && req.rangeStartTs === undefined) {
        throw new TbInputError(startField, `${startField} and ${endField} must be set (ms since 1970) when the time range comes from the message`);
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
          onQueue: (state) => activity.show(status(RED, state === 'waiting' ? 'yellow' : 'blue', 'dot', state === 'waiting' ? 'queued' : 'building', { n: 0 })),
        });
        msg.columns = table.columnLabels;
        if (split) {
          sendSplit(RED, msg, send, reportRows(table, parseNumbers));
        } else {
          msg.payload = format === 'table' ? table : format === 'csv' ? reportCsv(table, parseNumbers) : reportRows(table, parseNumbers);
          send(msg);
        }
        const rows = table.dataTable.length;
        activity.end(rows === 0 ? status(RED, 'green', 'dot', 'noRows') : rows === 1 ? status(RED, 'green', 'dot', 'oneRow') : status(RED, 'green', 'dot', 'rows', { count: rows }));
      });
    });

    onClose(node, conn);
  }
  RED.nodes.registerType('tb-build-report', TbBuildReport);
}
