/**
 * The alarm filter part (alarm queries, counts and live alarm tables): status and severity check boxes,
 * alarm type chips, assignee, propagated alarms, and the time (any time, the last N, or from / to). The
 * fields live in `pageLink` for alarm data queries and at the top level for alarm counts.
 */
import { durationSetting, parseDuration } from '../../protocol/duration';
import { ALARM_SEARCH_STATUSES, ALARM_SEVERITIES } from '../../protocol/types';
import { MODE_SCHEMA } from '../../query-model/schema';
import { selectsAnyStatus } from '../../query-model/summary';
import { bindable, isBound } from './bind';
import { wholeBinding } from './bound';
import { checkbox, fromLocalInput, row, t, textInput, toLocalInput } from './dom';
import { isObj, str, type Ctx, type Path } from './model';
import { chips, completions, entityPicker } from './widgets';

type TimeMode = 'any' | 'last' | 'range';

/** The time mode a person chose in this dialog (kept across re-draws even before a value is typed). */
const chosenTime = new WeakMap<Ctx['model'], TimeMode>();

function base(ctx: Ctx): Path {
  return MODE_SCHEMA[ctx.mode].alarmFilterAt === 'pageLink' ? ['pageLink'] : [];
}

function prefix(ctx: Ctx): string {
  const b = base(ctx);
  return b.length ? `${b.join('.')}.` : '';
}

function timeMode(ctx: Ctx): TimeMode {
  const b = base(ctx);
  const tw = ctx.model.get([...b, 'timeWindow']);
  const start = ctx.model.get([...b, 'startTs']);
  const end = ctx.model.get([...b, 'endTs']);
  const set = (v: unknown) => (typeof v === 'number' && v > 0) || isBound(v);
  const found: TimeMode = set(tw) ? 'last' : set(start) || set(end) ? 'range' : 'any';
  const chosen = chosenTime.get(ctx.model);
  return found === 'any' && chosen ? chosen : found;
}

export function renderAlarm(ctx: Ctx): JQuery {
  const m = ctx.model;
  const b = base(ctx);
  const p = prefix(ctx);
  const section = $('<div class="tb-b-section" data-tb-part="alarm">');
  $('<div class="tb-b-title">').text(t('part.alarm')).appendTo(section);

  const list = (name: string, control: () => JQuery) =>
    bindable(ctx, { at: [...b, name], field: `${p}${name}`, list: true }, control);
  section.append(
    row(
      t('alarm.status'),
      list('statusList', () => enumChecks(ctx, [...b, 'statusList'], ALARM_SEARCH_STATUSES, 'alarmStatus')),
    ),
  );
  section.append(
    row(
      t('alarm.severity'),
      list('severityList', () => enumChecks(ctx, [...b, 'severityList'], ALARM_SEVERITIES, 'alarmSeverity')),
    ),
  );

  const types = m.list([...b, 'typeList']);
  section.append(
    row(
      t('alarm.types'),
      list('typeList', () =>
        chips({
          field: `${p}typeList`,
          items: types.map((v) => ({ value: str(v) })),
          placeholder: t('addAlarmType'),
          suggest: async (text) => completions(await ctx.lookups.alarmTypes(text)),
          known: async (i) => {
            const all = await ctx.lookups.alarmTypes('');
            return all ? all.includes(str(types[i])) : null;
          },
          add: (v) => {
            m.push([...b, 'typeList'], v);
            ctx.rerender();
          },
          remove: (i) => {
            m.removeAt([...b, 'typeList'], i);
            ctx.rerender();
          },
        }),
      ),
    ),
  );

  const assignee = m.get([...b, 'assigneeId']);
  const assigneeBind = {
    at: [...b, 'assigneeId', 'id'],
    field: `${p}assigneeId.id`,
    holder: { path: [...b, 'assigneeId'], value: (ph: string) => ({ entityType: 'USER', id: ph }) },
  };
  section.append(
    row(
      t('alarm.assignee'),
      bindable(ctx, assigneeBind, () =>
        entityPicker({
          field: `${p}assigneeId`,
          entityType: () => 'USER',
          id: isObj(assignee) ? assignee.id : assignee,
          entities: (et, s) => ctx.lookups.entities(et, s),
          names: (et, ids) => ctx.lookups.names(et, ids),
          placeholder: t('anyAssignee'),
          change: (id) => m.set([...b, 'assigneeId'], id === undefined ? undefined : { entityType: 'USER', id }),
        }),
      ),
    ),
  );

  const prop = checkbox(
    `${p}searchPropagatedAlarms`,
    m.get([...b, 'searchPropagatedAlarms']) === true,
    t('searchPropagated'),
  );
  prop.find('input').on('change', (e) => m.set([...b, 'searchPropagatedAlarms'], $(e.target).prop('checked') === true));
  section.append(row('', prop));

  section.append(row(t('alarm.time'), timeControls(ctx, b, p)));
  return section;
}

/** Does a status list select alarms of any status, as the summary says (a list from the message is no fixed choice)? */
function anyStatus(list: readonly unknown[]): boolean {
  return !list.some((v) => wholeBinding(v) !== undefined) && selectsAnyStatus(list);
}

/** One check box per enum value; the list keeps its order, a value is appended or removed. */
function enumChecks(ctx: Ctx, path: Path, values: readonly string[], labelNs: string): JQuery {
  const m = ctx.model;
  const wrap = $('<span class="tb-b-controls">');
  const current = m.list(path);
  // The status list's ANY box says what the summary says: ticked whenever the list selects any status (an empty
  // list of a flow saved before included). Ticking it clears the other statuses; ticking one of them clears ANY.
  const statuses = values.includes('ANY');
  const ticked = (v: string, list: readonly unknown[]) =>
    statuses && v === 'ANY' ? anyStatus(list) : list.includes(v);
  const boxes = new Map<string, JQuery>();
  for (const v of values) {
    const c = checkbox(path.join('.'), ticked(v, current), t(`${labelNs}.${v}`), v).appendTo(wrap);
    const input = c.find('input');
    boxes.set(v, input);
    input.on('change', (e) => {
      let list = m.list(path).slice();
      const on = $(e.target).prop('checked') === true;
      if (statuses && v === 'ANY') {
        // Any status: no other status applies (values from the message are kept).
        list = on ? [...list.filter((x) => wholeBinding(x) !== undefined), 'ANY'] : list.filter((x) => x !== 'ANY');
      } else {
        if (statuses && on) list = list.filter((x) => x !== 'ANY');
        const at = list.indexOf(v);
        if (on && at < 0) list.push(v);
        if (!on && at >= 0) list.splice(at, 1);
      }
      // Unticking ANY of a list that selects any status anyway changes nothing (an absent list stays absent).
      if (JSON.stringify(list) !== JSON.stringify(m.list(path))) m.set(path, list);
      if (statuses) for (const [w, box] of boxes) box.prop('checked', ticked(w, list));
    });
  }
  // Items from the message (typed in the JSON view) are kept, and shown as such.
  for (const v of current) {
    const ref = wholeBinding(v);
    if (ref)
      $('<span class="tb-b-chip tb-b-chip-bound">')
        .attr('data-tb-chip-binding', ref.text)
        .attr('title', t('bind.chip', { ref: ref.text }))
        .append('<i class="fa fa-envelope"></i>', $('<span>').text(ref.text))
        .appendTo(wrap);
  }
  return wrap;
}

function timeControls(ctx: Ctx, b: Path, p: string): JQuery {
  const m = ctx.model;
  const mode = timeMode(ctx);
  const wrap = $('<div>').css('flex', '1');
  const radios = $('<div class="tb-b-controls">').appendTo(wrap);
  const name = `tb-b-time-${Math.random().toString(36).slice(2)}`;
  for (const tm of ['any', 'last', 'range'] as const) {
    const l = $('<label class="tb-b-check">').appendTo(radios);
    $('<input type="radio">')
      .attr('name', name)
      .attr('data-tb-time', tm)
      .prop('checked', tm === mode)
      .appendTo(l)
      .on('change', () => {
        chosenTime.set(m, tm);
        m.delete([...b, 'timeWindow']);
        m.delete([...b, 'startTs']);
        m.delete([...b, 'endTs']);
        if (tm === 'last') m.set([...b, 'timeWindow'], 86400000);
        ctx.rerender();
      });
    $('<span>')
      .text(t(`time.${tm}`))
      .appendTo(l);
  }
  if (mode === 'last') {
    const window = bindable(ctx, { at: [...b, 'timeWindow'], field: `${p}timeWindow`, note: t('bind.ms') }, () =>
      lastN(ctx, b, p),
    );
    $('<div class="tb-b-controls">')
      .append($('<span>').text(t('time.lastN')), window)
      .appendTo(wrap);
  } else if (mode === 'range') {
    const from = bindable(ctx, { at: [...b, 'startTs'], field: `${p}startTs`, note: t('bind.ms') }, () => {
      const i = $('<input type="datetime-local" class="tb-b-text">')
        .attr('data-tb-field', `${p}startTs`)
        .val(toLocalInput(m.get([...b, 'startTs'])));
      return i.on('change', () => m.set([...b, 'startTs'], fromLocalInput(String(i.val() ?? ''))));
    });
    const to = bindable(ctx, { at: [...b, 'endTs'], field: `${p}endTs`, note: t('bind.ms') }, () => {
      const i = $('<input type="datetime-local" class="tb-b-text">')
        .attr('data-tb-field', `${p}endTs`)
        .val(toLocalInput(m.get([...b, 'endTs'])));
      return i.on('change', () => m.set([...b, 'endTs'], fromLocalInput(String(i.val() ?? ''))));
    });
    $('<div class="tb-b-controls">')
      .append($('<span>').text(t('time.from')), from, $('<span>').text(t('time.to')), to)
      .appendTo(wrap);
  }
  return wrap;
}

/**
 * "The last [24h]": a duration as every node's duration settings take it (30m, 24h, 7d; a number alone is ms),
 * written into the query as milliseconds. Text that is not a duration is written as it is, for the query's check to
 * flag.
 */
function lastN(ctx: Ctx, b: Path, p: string): JQuery {
  const m = ctx.model;
  const tw = m.get([...b, 'timeWindow']);
  const shown = typeof tw === 'number' && tw > 0 ? durationSetting(tw) : typeof tw === 'string' ? tw : '';
  const n = textInput(`${p}timeWindow`, shown, t('time.lastPlaceholder')).addClass('tb-b-num');
  n.on('change input', () => {
    const text = String(n.val() ?? '').trim();
    const ms = parseDuration(text);
    m.set([...b, 'timeWindow'], text === '' ? undefined : (ms ?? text));
  });
  return n;
}
