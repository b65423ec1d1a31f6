/**
 * tb-subscribe's dialog: a live subscription (entities, their count, alarms or their count) and the events it sends.
 */
import { dialog } from '../../editor/dialog/dialog';
import { forType, type EditorNode } from '../../editor/dialog/for-type';
import { blank, isOn, items } from '../../editor/dialog/predicates';
import { queryPart } from '../../editor/dialog/query-part';
import { parseDuration } from '../../protocol/duration';
import { knownKind, label, savedKind } from './label';
import { MIGRATIONS } from './migrations';
import {
  CHOOSABLE_EVENTS,
  FORMAT_KIND,
  SUBSCRIBE_FORMATS,
  SUBSCRIBE_KINDS,
  TB_SUBSCRIBE,
  type QueryKind,
  type SubscribeFormat,
  type SubscribeKind,
} from './settings';

const E = forType('tb-subscribe');
const t = E.t;

/**
 * The everyday choices of a live alarm subscription, as the events they send: every change (the first alarms, then
 * each change), only new alarms, new and cleared ones. Any other choice of events is "choose the events".
 */
const ALARM_PICKS: Readonly<Record<string, string>> = {
  all: '',
  created: 'created',
  createdCleared: 'created,cleared',
};

/** The pick that sends these events (the saved setting), or custom. */
function alarmPick(events: string): string {
  const chosen = blank(events) ? '' : items(events).sort().join(',');
  for (const [pick, ev] of Object.entries(ALARM_PICKS)) if (ev.split(',').sort().join(',') === chosen) return pick;
  return 'custom';
}

/** The events a kind can send that a node may choose (counts always send the number). */
function eventsOf(kind: SubscribeKind): readonly string[] {
  return kind === 'entityData' || kind === 'alarmData' || kind === 'notifications' ? CHOOSABLE_EVENTS[kind] : [];
}

function kindOf(node: EditorNode): SubscribeKind {
  return knownKind(E.value(node, 'kind'));
}
/** The query's kind (the notifications kind has no query: the builder, hidden then, keeps entity data). */
function queryKind(node: EditorNode): QueryKind {
  const k = kindOf(node);
  return k === 'notifications' ? 'entityData' : k;
}
function watchesQuery(this: EditorNode): boolean {
  return kindOf(this) !== 'notifications';
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

const query = queryPart(E, { mode: queryKind, operation: queryKind, live: true });

export default dialog(E, {
  declaration: TB_SUBSCRIBE,
  migrations: MIGRATIONS,
  // What the kinds of its settings do not say (the choices and the check box are checked by their kind).
  validators: {
    query: E.when(watchesQuery, query.query),
    format: function (v) {
      // A dashboard format is for one kind only (a chart's points for entities, a table's rows for alarms).
      if (v === undefined) return true;
      if (!(SUBSCRIBE_FORMATS as readonly unknown[]).includes(v)) return t('tb-subscribe.errors.format');
      const forKind = FORMAT_KIND[v as SubscribeFormat];
      return forKind === undefined || forKind === kindOf(this)
        ? true
        : t('tb-subscribe.errors.formatKind', {
            format: t(`tb-subscribe.format.${String(v)}`),
            kind: t(`tb-subscribe.kind.${forKind}`),
          });
    },
    events: function (v, opt) {
      // Empty = every event of the kind; otherwise names of that kind's events only.
      if (v === undefined || blank(v)) return true;
      const allowed = eventsOf(kindOf(this));
      const ok = allowed.length > 0 && items(v).every((e) => allowed.indexOf(e) !== -1);
      return ok ? true : t('tb-subscribe.errors.events', { allowed: allowed.join(', ') || '-' });
    },
    tsKeys: E.keyList('tb-subscribe.errors.keyList', field('tsKeys')),
    tsWindow: E.when(tsInUse, E.duration('tb-subscribe.errors.tsWindow', 0, true)),
    tsLimit: E.when(tsInUse, E.whole(1, null, 'tb-subscribe.errors.wholeAtLeast1', field('tsLimit'))),
    historyKeys: E.all(E.keyList('tb-subscribe.errors.keyList', field('historyKeys')), function (v, opt) {
      return v !== undefined && historyInUse.call(this) && blank(v) ? t('tb-subscribe.errors.historyKeys') : true;
    }),
    historyRange: E.when(historyInUse, E.duration('tb-subscribe.errors.historyRange', 0, true)),
    historyInterval: E.when(
      historyInUse,
      E.all(
        E.when((v) => !blank(v), E.duration('tb-subscribe.errors.historyInterval')),
        function (v, opt) {
          // Aggregation needs an interval.
          const agg = E.value(this, 'historyAgg') || TB_SUBSCRIBE.settings.historyAgg.default;
          return agg !== 'NONE' && !parseDuration(blank(v) ? 0 : String(v))
            ? t('tb-subscribe.errors.historyAggInterval')
            : true;
        },
      ),
    ),
    historyLimit: E.when(historyInUse, E.whole(1, null, 'tb-subscribe.errors.wholeAtLeast1', field('historyLimit'))),
  },
  unnamed: label,
  outputLabels() {
    return t(`tb-subscribe.outputLabel.${savedKind(this)}`);
  },
  oneditprepare() {
    const node = this;
    query.prepare(node);

    // Which events to send: one check box per event of the kind; all checked is stored as '' (all). Alarms offer the
    // everyday choices as one pick first (the check boxes come with "choose the events").
    const eventsInput = E.input('events');
    let custom = false;
    const drawEvents = () => {
      const kind = kindOf(node);
      const box = $('#tb-subscribe-events').empty();
      const all = eventsOf(kind);
      const chosen = blank(eventsInput.val()) ? all : items(eventsInput.val());
      if (kind === 'alarmData') {
        const picked = custom ? 'custom' : alarmPick(String(eventsInput.val() ?? ''));
        const select = $('<select style="width: 100%;" data-tb-events-pick>').appendTo(box);
        for (const p of [...Object.keys(ALARM_PICKS), 'custom'])
          $('<option>')
            .val(p)
            .text(t(`tb-subscribe.alarmPick.${p}`))
            .appendTo(select);
        select.val(picked).on('change', () => {
          const p = String(select.val());
          custom = p === 'custom';
          if (!custom) eventsInput.val(ALARM_PICKS[p]).trigger('change');
          drawEvents();
        });
        if (picked !== 'custom') return;
      }
      const ticks = kind === 'alarmData' ? $('<div style="margin-top: 6px;">').appendTo(box) : box;
      for (const ev of all) {
        const label = $(
          '<label class="tb-b-check" style="display: inline-flex; width: auto; margin-right: 10px;">',
        ).appendTo(ticks);
        $('<input type="checkbox" style="width: auto; margin: 0 4px 0 0;">')
          .attr('data-tb-event', ev)
          .prop('checked', chosen.indexOf(ev) !== -1)
          .appendTo(label)
          .on('change', () => {
            const on = ticks
              .find('input:checked')
              .map(function () {
                return $(this).attr('data-tb-event');
              })
              .get();
            eventsInput.val(on.length === all.length ? '' : on.length ? on.join(',') : 'none').trigger('change');
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
        '.tb-row-format': kind === 'entityData' || kind === 'alarmData' || kind === 'notifications',
        '.tb-row-query, #tb-builder': kind !== 'notifications',
        '.tb-row-notifications': kind === 'notifications',
        '.tb-row-events': eventsOf(kind).length > 0,
        '.tb-row-entityData': kind === 'entityData',
        '.tb-row-ts': tsInUse.call(node),
        '.tb-row-history': historyInUse.call(node),
      };
      for (const k of SUBSCRIBE_KINDS) rules[`.tb-tip-${k}`] = k === kind;
      // The dashboard formats of this kind only.
      for (const [f, k] of Object.entries(FORMAT_KIND)) rules[`#node-input-format option[value="${f}"]`] = k === kind;
      return rules;
    }, ['history', 'tsKeys']);

    E.input('kind').on('change', () => {
      custom = false;
      // Keep the chosen events that the new kind has too; none left means all.
      const allowed = eventsOf(kindOf(node));
      const kept = blank(eventsInput.val()) ? [] : items(eventsInput.val()).filter((e) => allowed.indexOf(e) !== -1);
      eventsInput.val(kept.length && kept.length < allowed.length ? kept.join(',') : '');
      // A dashboard format of another kind (hidden now) becomes simple objects.
      const format = E.input('format');
      const forKind = FORMAT_KIND[String(format.val()) as SubscribeFormat];
      if (forKind !== undefined && forKind !== kindOf(node)) format.val('flat').trigger('change');
      drawEvents();
      query.modeChanged();
      update();
    });
  },
  oneditsave: query.close,
  oneditcancel: query.close,
  oneditresize: query.resize,
});
