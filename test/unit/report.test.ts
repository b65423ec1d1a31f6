import assert from 'node:assert/strict';
import { prepareReportRequest, reportCsv, reportRows } from '../../src/analytics/report';
import { TbInputError } from '../../src/errors';

const F = { viewConfigId: 'viewConfigId', rangeStartTs: 'rangeStartTs', rangeEndTs: 'rangeEndTs', filters: 'filters' };
const VIEW = '3f1c2a4e-5b6d-11ee-8c99-0242ac120002';

function fails(fn: () => unknown, field: string, text: RegExp): void {
  assert.throws(fn, (e: unknown) => e instanceof TbInputError && e.field === field && text.test(e.message));
}

describe('report request and formats', () => {
  it("accepts a bare view id (the view's own range)", () => {
    assert.deepEqual(prepareReportRequest({ viewConfigId: ` ${VIEW} ` }, F), { viewConfigId: VIEW });
  });

  it('rejects a view id that is not a UUID, naming the field', () => {
    fails(() => prepareReportRequest({ viewConfigId: 'energy' }, F), 'viewConfigId', /UUID of an analytics view/);
    fails(
      () => prepareReportRequest({ viewConfigId: 42 }, { ...F, viewConfigId: 'msg.payload.viewConfigId' }),
      'msg.payload.viewConfigId',
      /msg\.payload\.viewConfigId must be/,
    );
  });

  it('takes a range as numbers, numeric texts or ISO dates, and needs start before end', () => {
    assert.deepEqual(prepareReportRequest({ viewConfigId: VIEW, rangeStartTs: '1000', rangeEndTs: 2000 }, F), {
      viewConfigId: VIEW,
      rangeStartTs: 1000,
      rangeEndTs: 2000,
    });
    const r = prepareReportRequest(
      { viewConfigId: VIEW, rangeStartTs: '2026-01-01T00:00:00Z', rangeEndTs: '2026-01-02T00:00:00Z' },
      F,
    );
    assert.equal(r.rangeEndTs! - r.rangeStartTs!, 86400000);
    fails(
      () => prepareReportRequest({ viewConfigId: VIEW, rangeStartTs: 5, rangeEndTs: 5 }, F),
      'rangeStartTs',
      /must be before/,
    );
    fails(() => prepareReportRequest({ viewConfigId: VIEW, rangeStartTs: 5 }, F), 'rangeEndTs', /give both/);
    fails(
      () => prepareReportRequest({ viewConfigId: VIEW, rangeStartTs: 'yesterday', rangeEndTs: 5 }, F),
      'rangeStartTs',
      /milliseconds/,
    );
  });

  it('names the field for values JSON cannot write (found by the fuzzer: these were TypeErrors)', () => {
    const cyclic: Record<string, unknown> = { a: 1 };
    cyclic.self = cyclic;
    fails(
      () => prepareReportRequest({ viewConfigId: cyclic }, F),
      'viewConfigId',
      /UUID of an analytics view .*got an object$/,
    );
    fails(
      () => prepareReportRequest({ viewConfigId: VIEW, rangeStartTs: 1, rangeEndTs: [cyclic] }, F),
      'rangeEndTs',
      /got an array$/,
    );
    fails(
      () => prepareReportRequest({ viewConfigId: VIEW, rangeStartTs: BigInt(1), rangeEndTs: 5 }, F),
      'rangeStartTs',
      /got 1$/,
    );
    fails(
      () => prepareReportRequest({ viewConfigId: VIEW, filters: { B: [cyclic] } }, F),
      'filters.B[0]',
      /text value \(got an object\)/,
    );
    fails(() => prepareReportRequest({ viewConfigId: 'x'.repeat(1000) }, F), 'viewConfigId', /got "x{198}…$/);
  });

  it('checks filters: an object of text arrays; single values are wrapped', () => {
    const r = prepareReportRequest({ viewConfigId: VIEW, filters: { Building: ['A', 'B'], Floor: 3 } }, F);
    assert.deepEqual(r.filters, { Building: ['A', 'B'], Floor: ['3'] });
    assert.deepEqual(prepareReportRequest({ viewConfigId: VIEW, filters: '{"x":["1"]}' }, F).filters, { x: ['1'] });
    assert.equal(prepareReportRequest({ viewConfigId: VIEW, filters: {} }, F).filters, undefined);
    fails(() => prepareReportRequest({ viewConfigId: VIEW, filters: ['A'] }, F), 'filters', /object of filter name/);
    fails(
      () => prepareReportRequest({ viewConfigId: VIEW, filters: { B: [{ a: 1 }] } }, F),
      'filters.B[0]',
      /text value/,
    );
    fails(() => prepareReportRequest({ viewConfigId: VIEW, filters: '{nope' }, F), 'filters', /not valid JSON/);
  });

  const table = {
    columnLabels: ['Date', 'Building', 'energy'],
    dataTable: [
      { energy: '412.5', Building: 'Office "A", east', Date: 1606773600000 },
      { Date: '1606860000000', Building: 'Line\nbreak', energy: 7 },
      { Date: 1606946400000, Building: null },
    ],
  };

  it('rows follow the column order; numeric texts become numbers only with parseNumbers', () => {
    const rows = reportRows(table, false);
    assert.deepEqual(Object.keys(rows[0]), ['Date', 'Building', 'energy']);
    assert.equal(rows[0].energy, '412.5');
    assert.equal(rows[2].energy, null);
    const parsed = reportRows(table, true);
    assert.equal(parsed[0].energy, 412.5);
    assert.equal(parsed[1].Date, 1606860000000);
    assert.equal(parsed[0].Building, 'Office "A", east');
  });

  it('CSV has a header row, RFC 4180 quoting and CRLF line ends', () => {
    const csv = reportCsv(table, true);
    assert.equal(
      csv,
      'Date,Building,energy\r\n1606773600000,"Office ""A"", ' +
        'east",412.5\r\n1606860000000,"Line\nbreak",7\r\n1606946400000,,\r\n',
    );
  });
});
