/** tb-build-report's dialog: a Trendz view's report over a time range, as rows, a table or CSV. */
import { viewIdFromLink } from '../../editor/builder/dialogs';
import { dialog } from '../../editor/dialog/dialog';
import { forType, type Validator } from '../../editor/dialog/for-type';
import { blank, isPlainObject, isUuid, wholeAtLeast } from '../../editor/dialog/predicates';
import { label } from './label';
import { MIGRATIONS } from './migrations';
import { FILTER_TYPES, REPORT_FORMATS, TB_BUILD_REPORT, VIEW_TYPES } from './settings';

const E = forType('tb-build-report');
const t = E.t;
const DEFAULTS = TB_BUILD_REPORT.settings;

/** A setting's value, or its default when it has none (a node saved without it shows the default). */
function current(node: Record<string, unknown>, prop: 'viewConfigIdType' | 'filtersType' | 'range' | 'format'): string {
  return String(E.value(node, prop) || DEFAULTS[prop].default);
}
const listed = (values: readonly string[], v: string): boolean => values.indexOf(v) !== -1;

function rangeIs(range: string) {
  return function (this: Record<string, unknown>): boolean {
    return current(this, 'range') === range;
  };
}
/** A fixed range's end: a whole number of milliseconds (the message names the field, translated when it runs). */
function timestamp(field: 'rangeStartTs' | 'rangeEndTs'): Validator {
  return E.whole(0, null, 'tb-build-report.errors.rangeTs', () => ({ field: t(`tb-build-report.label.${field}`) }));
}
function checkFilters(text: string): true | string {
  let f: unknown;
  try {
    f = JSON.parse(text);
  } catch (e) {
    return t('tb-build-report.errors.filtersJson', { error: (e as Error).message });
  }
  if (!isPlainObject(f)) return t('tb-build-report.errors.filters');
  for (const k of Object.keys(f)) {
    if (!Array.isArray(f[k])) return t('tb-build-report.errors.filterValues', { name: k });
  }
  return true;
}
// The date a millisecond timestamp stands for, shown beside the fixed range inputs.
function describeTs(v: unknown): string {
  if (blank(v) || !isFinite(Number(v))) return '';
  const d = new Date(Number(v));
  return isNaN(d.getTime()) ? '' : d.toLocaleString();
}

export default dialog(E, {
  declaration: TB_BUILD_REPORT,
  migrations: MIGRATIONS,
  // What the kinds of its settings do not say (the choices, check boxes and whole numbers are checked by their kind).
  validators: {
    connection: E.connection((cfg) => (blank(cfg.analyticsUrl) ? t('tb-build-report.errors.noAnalytics') : true)),
    viewConfigId: function (v, opt) {
      const type = current(this, 'viewConfigIdType');
      if (!listed(VIEW_TYPES, type)) return t('tb-build-report.errors.viewConfigIdType');
      if (type === 'str') return isUuid(String(v || '').trim()) ? true : t('tb-build-report.errors.viewConfigId');
      if (blank(v)) return t('tb-build-report.errors.viewConfigIdEmpty');
      return RED.validators.typedInput('viewConfigIdType').call(this, v, opt);
    },
    // Checked only while the range uses it.
    last: E.when(rangeIs('last'), E.duration('tb-build-report.errors.last', 0, true)),
    rangeStartTs: E.when(rangeIs('fixed'), timestamp('rangeStartTs')),
    rangeEndTs: E.when(
      rangeIs('fixed'),
      E.all(timestamp('rangeEndTs'), function (v, opt) {
        if (v === undefined) return true;
        const start = E.value(this, 'rangeStartTs');
        const ordered = !wholeAtLeast(start, 0) || Number(start) < Number(v);
        return ordered ? true : t('tb-build-report.errors.rangeOrder');
      }),
    ),
    filters: function (v, opt) {
      if (v === undefined) return true;
      const type = current(this, 'filtersType');
      if (!listed(FILTER_TYPES, type)) return t('tb-build-report.errors.filtersType');
      if (type === 'json') return blank(v) ? true : checkFilters(String(v));
      return RED.validators.typedInput('filtersType').call(this, v, opt);
    },
  },
  unnamed: label,
  outputLabels() {
    const f = listed(REPORT_FORMATS, String(this.format)) ? this.format : DEFAULTS.format.default;
    return f === 'rows' && this.split ? t('tb-build-report.outputLabel.split') : t(`tb-build-report.outputLabel.${f}`);
  },
  oneditprepare() {
    const node = this;
    const view = E.typedInput('viewConfigId', VIEW_TYPES, 'payload.viewConfigId');
    E.typedInput('filters', FILTER_TYPES, 'payload.filters');
    view.on('change', () => {
      // Accept a pasted link to the view: keep the id at its end.
      if (view.typedInput('type') !== 'str') return;
      const text = view.typedInput('value') || '';
      const id = viewIdFromLink(text);
      if (id !== text && isUuid(id)) view.typedInput('value', id);
    });

    const showDates = () => {
      $('#tb-rangeStartTs-date').text(describeTs(E.input('rangeStartTs').val()));
      $('#tb-rangeEndTs-date').text(describeTs(E.input('rangeEndTs').val()));
    };
    E.showRows(() => {
      const range = current(node, 'range');
      return {
        '.tb-row-last': range === 'last',
        '.tb-row-fixed': range === 'fixed',
        '.tb-tip-msg': range === 'msg',
        '.tb-row-split': current(node, 'format') === 'rows',
      };
    }, ['range', 'format']);
    E.input('rangeStartTs').add(E.input('rangeEndTs')).on('change keyup paste', showDates);
    showDates();
    $('#tb-fixed-now').on('click', (e) => {
      e.preventDefault();
      const end = Date.now();
      E.input('rangeEndTs').val(String(end)).trigger('change');
      E.input('rangeStartTs')
        .val(String(end - 24 * 3600 * 1000))
        .trigger('change');
    });
  },
});
