/** tb-subscribe's dialog: a live subscription (entities, their count, alarms or their count) and the events it sends. */
import { dialog } from '../../editor/dialog/dialog';
import { forType, type EditorNode } from '../../editor/dialog/for-type';
import { blank, isOn, items } from '../../editor/dialog/predicates';
import { queryPart } from '../../editor/dialog/query-part';
import type { QueryMode } from '../../query-model/schema';

const E = forType('tb-subscribe');
const t = E.t;

const KINDS: readonly QueryMode[] = ['entityData', 'entityCount', 'alarmData', 'alarmCount'];
/** The events each kind can send (counts always send the number). */
const EVENTS: Record<QueryMode, readonly string[]> = {
  entityData: ['snapshot', 'update', 'added', 'removed'],
  entityCount: [],
  alarmData: ['snapshot', 'created', 'acknowledged', 'cleared', 'updated', 'removed'],
  alarmCount: [],
};
const UNITS = ['minutes', 'hours', 'days'];
const AGGS = ['NONE', 'AVG', 'MIN', 'MAX', 'SUM', 'COUNT'];

function kindOf(node: EditorNode): QueryMode {
  return (E.value(node, 'kind') || 'entityData') as QueryMode;
}
/** The kind as saved, for the labels (an unknown one reads as entity data). */
function savedKind(node: EditorNode): QueryMode {
  return KINDS.indexOf(node.kind as QueryMode) !== -1 ? (node.kind as QueryMode) : 'entityData';
}
// Time series and history settings are used by entity data subscriptions only.
function tsInUse(this: EditorNode): boolean {
  return kindOf(this) === 'entityData' && !blank(E.value(this, 'tsKeys'));
}
function historyInUse(this: EditorNode): boolean {
  return kindOf(this) === 'entityData' && isOn(E.value(this, 'history'));
}
/** A message's field: the setting's label (translated when the message is). */
function field(name: string): () => Record<string, unknown> {
  return () => ({ field: t(`tb-subscribe.label.${name}`) });
}

const query = queryPart(E, { mode: kindOf, operation: kindOf, live: true });

export default dialog(E, {
  validators: {
    name: E.any,
    connection: E.connection(),
    kind: E.oneOf(KINDS, 'tb-subscribe.errors.kind'),
    query: query.query,
    queryType: query.queryType,
    format: E.oneOf(['flat', 'raw'], 'tb-subscribe.errors.format'),
    events: function (v, opt) {
      // Empty = every event of the kind; otherwise names of that kind's events only.
      if (v === undefined || blank(v)) return true;
      const allowed = EVENTS[kindOf(this)] || [];
      const ok = allowed.length > 0 && items(v).every((e) => allowed.indexOf(e) !== -1);
      return ok ? true : t('tb-subscribe.errors.events', { allowed: allowed.join(', ') || '-' });
    },
    tsKeys: E.keyList('tb-subscribe.errors.keyList', field('tsKeys')),
    tsWindow: E.when(tsInUse, E.positive('tb-subscribe.errors.positive', field('tsWindow'))),
    tsWindowUnit: E.oneOf(UNITS, 'tb-subscribe.errors.unit', field('tsWindow')),
    tsLimit: E.when(tsInUse, E.whole(1, null, 'tb-subscribe.errors.wholeAtLeast1', field('tsLimit'))),
    history: E.bool('tb-subscribe.label.history'),
    historyKeys: E.all(E.keyList('tb-subscribe.errors.keyList', field('historyKeys')), function (v, opt) {
      return v !== undefined && historyInUse.call(this) && blank(v) ? t('tb-subscribe.errors.historyKeys') : true;
    }),
    historyRange: E.when(historyInUse, E.positive('tb-subscribe.errors.positive', field('historyRange'))),
    historyRangeUnit: E.oneOf(UNITS, 'tb-subscribe.errors.unit', field('historyRange')),
    historyInterval: E.when(
      historyInUse,
      E.all(E.whole(0, null, 'tb-subscribe.errors.historyInterval'), function (v, opt) {
        // Aggregation needs an interval.
        const agg = E.value(this, 'historyAgg') || 'NONE';
        return agg !== 'NONE' && Number(v) === 0 ? t('tb-subscribe.errors.historyAggInterval') : true;
      }),
    ),
    historyLimit: E.when(historyInUse, E.whole(1, null, 'tb-subscribe.errors.wholeAtLeast1', field('historyLimit'))),
    historyAgg: E.oneOf(AGGS, 'tb-subscribe.errors.historyAgg'),
    version: E.version(),
  },
  label() {
    return String(this.name || t(`tb-subscribe.defaultLabel.${savedKind(this)}`));
  },
  outputLabels() {
    return t(`tb-subscribe.outputLabel.${savedKind(this)}`);
  },
  oneditprepare() {
    const node = this;
    E.selectDefaults(node, {
      kind: 'entityData',
      format: 'flat',
      tsWindowUnit: 'hours',
      historyRangeUnit: 'hours',
      historyAgg: 'NONE',
    });
    query.prepare(node);

    // Which events to send: one check box per event of the kind; all checked is stored as '' (all).
    const eventsInput = E.input('events');
    const drawEvents = () => {
      const kind = kindOf(node);
      const box = $('#tb-subscribe-events').empty();
      const chosen = blank(eventsInput.val()) ? EVENTS[kind] : items(eventsInput.val());
      for (const ev of EVENTS[kind]) {
        const label = $(
          '<label class="tb-b-check" style="display: inline-flex; width: auto; margin-right: 10px;">',
        ).appendTo(box);
        $('<input type="checkbox" style="width: auto; margin: 0 4px 0 0;">')
          .attr('data-tb-event', ev)
          .prop('checked', chosen.indexOf(ev) !== -1)
          .appendTo(label)
          .on('change', () => {
            const on = box
              .find('input:checked')
              .map(function () {
                return $(this).attr('data-tb-event');
              })
              .get();
            eventsInput
              .val(on.length === EVENTS[kind].length ? '' : on.length ? on.join(',') : 'none')
              .trigger('change');
          });
        $('<span>')
          .text(t(`tb-subscribe.event.${ev}`))
          .appendTo(label);
      }
    };
    drawEvents();

    const update = E.showRows(() => {
      const kind = kindOf(node);
      const rules: Record<string, unknown> = {
        '.tb-row-format': kind === 'entityData' || kind === 'alarmData',
        '.tb-row-events': EVENTS[kind].length > 0,
        '.tb-row-entityData': kind === 'entityData',
        '.tb-row-ts': tsInUse.call(node),
        '.tb-row-history': historyInUse.call(node),
      };
      for (const k of KINDS) rules[`.tb-tip-${k}`] = k === kind;
      return rules;
    }, ['history', 'tsKeys']);

    E.input('kind').on('change', () => {
      // Keep the chosen events that the new kind has too; none left means all.
      const allowed = EVENTS[kindOf(node)];
      const kept = blank(eventsInput.val()) ? [] : items(eventsInput.val()).filter((e) => allowed.indexOf(e) !== -1);
      eventsInput.val(kept.length && kept.length < allowed.length ? kept.join(',') : '');
      drawEvents();
      query.modeChanged();
      update();
    });
  },
  oneditsave: query.close,
  oneditcancel: query.close,
  oneditresize: query.resize,
});
