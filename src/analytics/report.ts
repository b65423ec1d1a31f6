/**
 * Analytics view reports (Trendz `publicApi/buildReport`): the request, its validation, and the output
 * formats (rows, the server's table, CSV). Pure: no I/O.
 */
import { TbInputError } from '../errors';
import { numberFromText } from '../protocol/format';
import { jsonText } from '../protocol/validate';

/** The body of POST publicApi/buildReport. */
export interface ReportRequest {
  viewConfigId: string;
  rangeStartTs?: number;
  rangeEndTs?: number;
  filters?: Record<string, string[]>;
}

/** The answer: column labels in order, and one object per row keyed by label. */
export interface ReportTable {
  columnLabels: string[];
  dataTable: Array<Record<string, unknown>>;
}

const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** A time as ms since the epoch: a number, a numeric string, or an ISO date text. */
function timestamp(v: unknown, field: string): number {
  let n: number | undefined;
  if (typeof v === 'number') n = v;
  else if (typeof v === 'string' && v.trim() !== '') {
    const t = v.trim();
    n = /^\d+$/.test(t) ? Number(t) : Date.parse(t);
  } else if (v instanceof Date) n = v.getTime();
  if (n === undefined || !Number.isFinite(n) || n < 0 || !Number.isInteger(Math.round(n))) {
    throw new TbInputError(
      field,
      `${field} must be a time in milliseconds since 1970 (a number such as 1767225600000, or an ISO date), ` +
        `got ${jsonText(v)}`,
    );
  }
  return Math.round(n);
}

/**
 * Checks and normalises a report request: `viewConfigId` a UUID; the range both or neither, start before
 * end; `filters` an object of string arrays (a single value is accepted and wrapped in an array). `fields`
 * names each part for the error message (e.g. "msg.payload.viewConfigId").
 */
export function prepareReportRequest(
  input: { viewConfigId: unknown; rangeStartTs?: unknown; rangeEndTs?: unknown; filters?: unknown },
  fields: { viewConfigId: string; rangeStartTs: string; rangeEndTs: string; filters: string },
): ReportRequest {
  const idRaw = input.viewConfigId;
  const id = typeof idRaw === 'string' ? idRaw.trim() : idRaw;
  if (typeof id !== 'string' || !UUID_RE.test(id)) {
    throw new TbInputError(
      fields.viewConfigId,
      `${fields.viewConfigId} must be the UUID of an analytics view (the id at the end of the view's link, e.g. ` +
        `3f1c2a4e-5b6d-11ee-8c99-0242ac120002), got ${jsonText(idRaw)}`,
    );
  }
  const out: ReportRequest = { viewConfigId: id };
  const hasStart = input.rangeStartTs !== undefined && input.rangeStartTs !== null && input.rangeStartTs !== '';
  const hasEnd = input.rangeEndTs !== undefined && input.rangeEndTs !== null && input.rangeEndTs !== '';
  if (hasStart !== hasEnd) {
    const missing = hasStart ? fields.rangeEndTs : fields.rangeStartTs;
    throw new TbInputError(
      missing,
      `${missing} is missing: give both ${fields.rangeStartTs} and ${fields.rangeEndTs}, or neither (the view's own ` +
        'range)',
    );
  }
  if (hasStart) {
    const start = timestamp(input.rangeStartTs, fields.rangeStartTs);
    const end = timestamp(input.rangeEndTs, fields.rangeEndTs);
    if (start >= end) {
      throw new TbInputError(
        fields.rangeStartTs,
        `${fields.rangeStartTs} (${start}) must be before ${fields.rangeEndTs} (${end})`,
      );
    }
    out.rangeStartTs = start;
    out.rangeEndTs = end;
  }
  const f = input.filters;
  if (f !== undefined && f !== null && f !== '') {
    let obj: unknown = f;
    if (typeof f === 'string') {
      try {
        obj = JSON.parse(f);
      } catch (e) {
        throw new TbInputError(fields.filters, `${fields.filters} is not valid JSON: ${(e as Error).message}`);
      }
    }
    if (!obj || typeof obj !== 'object' || Array.isArray(obj)) {
      throw new TbInputError(
        fields.filters,
        `${fields.filters} must be an object of filter name -> array of values, e.g. {"Building": ["Office A"]}`,
      );
    }
    const filters: Record<string, string[]> = {};
    for (const [name, values] of Object.entries(obj as Record<string, unknown>)) {
      const list = Array.isArray(values) ? values : [values];
      filters[name] = list.map((v, i) => {
        if (typeof v === 'string') return v;
        if (typeof v === 'number' || typeof v === 'boolean') return String(v);
        throw new TbInputError(
          `${fields.filters}.${name}[${i}]`,
          `${fields.filters}.${name}[${i}] must be a text value (got ${jsonText(v)})`,
        );
      });
    }
    if (Object.keys(filters).length) out.filters = filters;
  }
  return out;
}

/** Rows as objects whose keys follow the column order; numeric texts become numbers with parseNumbers. */
export function reportRows(t: ReportTable, parseNumbers: boolean): Array<Record<string, unknown>> {
  const labels = t.columnLabels;
  const rows = new Array<Record<string, unknown>>(t.dataTable.length);
  for (let r = 0; r < t.dataTable.length; r++) {
    const src = t.dataTable[r] ?? {};
    const row: Record<string, unknown> = {};
    for (const l of labels) row[l] = cell(src[l], parseNumbers);
    for (const k in src) if (!(k in row)) row[k] = cell(src[k], parseNumbers);
    rows[r] = row;
  }
  return rows;
}

function cell(v: unknown, parseNumbers: boolean): unknown {
  if (v === undefined) return null;
  if (parseNumbers && typeof v === 'string') {
    const n = numberFromText(v.trim());
    if (n !== undefined) return n;
  }
  return v;
}

/** One CSV field, quoted per RFC 4180 when it holds a comma, a quote or a line break. */
function csvField(v: unknown): string {
  if (v === null || v === undefined) return '';
  const s = typeof v === 'object' ? JSON.stringify(v) : String(v);
  return /[",\r\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}

/** CSV text: a header row with the column labels, then one line per row, CRLF line ends (RFC 4180). */
export function reportCsv(t: ReportTable, parseNumbers: boolean): string {
  const rows = reportRows(t, parseNumbers);
  const lines = [t.columnLabels.map(csvField).join(',')];
  for (const row of rows) lines.push(t.columnLabels.map((l) => csvField(row[l])).join(','));
  return lines.join('\r\n') + '\r\n';
}
