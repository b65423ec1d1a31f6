/**
 * tb-notify's dialog: send through the notification center (the targets and a template picked by name from the
 * server, or a subject and a text, typed here or the message's, with the delivery methods the server offers), or mark
 * the user's notifications read. A line under the settings reads a send back: what goes to whom, by which methods.
 */
import { ensureStyle } from '../../editor/builder/dom';
import { Lookups } from '../../editor/builder/lookups';
import { chips, suggest } from '../../editor/builder/widgets';
import { dialog } from '../../editor/dialog/dialog';
import { forType, type EditorNode } from '../../editor/dialog/for-type';
import { blank, items } from '../../editor/dialog/predicates';
import { DELIVERY_METHODS } from '../../protocol/notifications';
import { label } from './label';
import { MIGRATIONS } from './migrations';
import { TB_NOTIFY } from './settings';

const E = forType('tb-notify');
const t = E.t;

function action(node: EditorNode): string {
  return String(E.value(node, 'action') || TB_NOTIFY.settings.action.default);
}
function content(node: EditorNode): string {
  return String(E.value(node, 'content') || TB_NOTIFY.settings.content.default);
}
function sends(this: EditorNode): boolean {
  return action(this) === 'send';
}
function writes(this: EditorNode): boolean {
  return action(this) === 'send' && content(this) === 'text';
}

/** What a send does, in one line: the content, the targets, the methods and the wait for the stats. */
function summary(node: EditorNode): string {
  const s = (key: string, opts?: Record<string, unknown>) => t(`tb-notify.summary.${key}`, opts);
  const own = (prop: string) => String(E.value(node, prop) ?? '').trim();
  const what =
    content(node) === 'template'
      ? own('template')
        ? s('template', { name: own('template') })
        : s('templateMsg')
      : own('subject') && own('text')
        ? s('bothHere')
        : s('text', {
            subject: own('subject') ? s('subjectHere') : s('subjectMsg'),
            text: own('text') ? s('textHere') : s('textMsg'),
          });
  const names = blank(own('targets')) ? [] : items(own('targets'));
  const to = names.length ? s('targets', { names: names.join(', ') }) : s('targetsMsg');
  const methods = items(own('methods')).map((m) => t(`tb-notify.method.${m}`));
  // A template carries its own delivery methods: none are chosen here.
  const listed =
    methods.length > 1 ? `${methods.slice(0, -1).join(', ')}${s('and')}${methods[methods.length - 1]}` : methods[0];
  const by = content(node) === 'template' ? '' : listed ? s('by', { methods: listed }) : s('noMethod');
  const wait = own('statsWait');
  return s('send', {
    what,
    to,
    by,
    wait:
      wait === '0' || wait === '0s' ? s('noWait') : s('wait', { wait: wait || TB_NOTIFY.settings.statsWait.default }),
  });
}

export default dialog(E, {
  declaration: TB_NOTIFY,
  migrations: MIGRATIONS,
  // What the kinds of the settings do not say (the choices and the duration are checked by their kind).
  validators: {
    targets: E.when(sends, E.keyList('tb-notify.errors.targets')),
    methods: E.when(writes, function (v) {
      if (v === undefined) return true;
      const list = items(v);
      const ok = list.length > 0 && list.every((m) => (DELIVERY_METHODS as readonly string[]).indexOf(m) !== -1);
      return ok ? true : t('tb-notify.errors.methods');
    }),
  },
  unnamed: label,
  oneditprepare() {
    const node = this;
    ensureStyle();
    const lookups = new Lookups(() => E.input('connection').val() as string | undefined);

    // Send to: chips of target names, suggested from the server.
    const targetsInput = E.input('targets');
    const drawTargets = (): void => {
      const box = $('#tb-notify-targets').empty();
      const names = blank(targetsInput.val()) ? [] : items(targetsInput.val());
      const write = (list: string[]) => {
        targetsInput.val(list.join(', ')).trigger('change');
        drawTargets();
      };
      box.append(
        chips({
          field: 'targets',
          items: names.map((n) => ({ value: n })),
          placeholder: t('tb-notify.placeholder.targets'),
          suggest: async (text) => {
            const list = await lookups.notificationTargets(text);
            return list
              ? list.filter((x) => names.indexOf(x.name) === -1).map((x) => ({ value: x.name, label: x.name }))
              : null;
          },
          known: async (i) => {
            const list = await lookups.notificationTargets(names[i]);
            return list ? list.some((x) => x.name === names[i]) : null;
          },
          add: (v) => {
            if (names.indexOf(v) === -1) write([...names, v]);
          },
          remove: (i) => write(names.filter((_, j) => j !== i)),
        }),
      );
    };
    drawTargets();

    // Template: suggested from the server.
    suggest(E.input('template'), async (text) => {
      const list = await lookups.notificationTemplates(text);
      return list ? list.map((x) => ({ value: x.name, label: x.name })) : null;
    });

    // Delivery: one check box per method the server offers (and any chosen that it does not offer now, marked).
    const methodsInput = E.input('methods');
    const drawMethods = (offered: string[] | null): void => {
      const box = $('#tb-notify-methods').empty();
      const chosen = items(methodsInput.val());
      const shown = DELIVERY_METHODS.filter(
        (m) => (offered ? offered.indexOf(m) !== -1 : true) || chosen.indexOf(m) !== -1,
      );
      for (const m of shown) {
        const lab = $('<label style="display: inline-flex; width: auto; margin-right: 10px;">').appendTo(box);
        const off = offered !== null && offered.indexOf(m) === -1;
        $('<input type="checkbox" style="width: auto; margin: 0 4px 0 0;">')
          .attr('data-tb-method', m)
          .prop('checked', chosen.indexOf(m) !== -1)
          .appendTo(lab)
          .on('change', () => {
            const on = box
              .find('input:checked')
              .map(function () {
                return String($(this).attr('data-tb-method'));
              })
              .get();
            methodsInput.val(on.join(',')).trigger('change');
          });
        const text = $('<span>')
          .text(t(`tb-notify.method.${m}`))
          .appendTo(lab);
        if (off) {
          text.css('text-decoration', 'line-through');
          lab.attr('title', t('tb-notify.method.notOffered')).attr('data-tb-not-offered', 'true');
        }
      }
      if (offered === null)
        $('<div class="form-tips" style="margin-top: 4px;" data-tb-methods-unknown>')
          .text(t('tb-notify.method.unknown'))
          .appendTo(box);
    };
    drawMethods(DELIVERY_METHODS.slice());
    const readMethods = (): void => {
      void lookups.deliveryMethods().then((offered) => drawMethods(offered));
    };
    readMethods();
    E.input('connection').on('change', readMethods);

    E.showRows(() => {
      const a = action(node);
      const c = content(node);
      return {
        '.tb-row-send': a === 'send',
        '.tb-row-template': a === 'send' && c === 'template',
        '.tb-row-text': a === 'send' && c === 'text',
        '.tb-tip-text': a === 'send' && c === 'text',
        '.tb-tip-send': a === 'send',
        '.tb-tip-markRead': a === 'markRead',
        '.tb-tip-markAllRead': a === 'markAllRead',
        '[data-tb-notify-summary]': a === 'send',
      };
    }, ['action', 'content']);
    const line = $('[data-tb-notify-summary]');
    E.follow(
      () => line.text(summary(node)),
      ['action', 'content', 'targets', 'template', 'subject', 'text', 'methods', 'statsWait'],
    );
  },
  oneditsave() {
    E.trim(['template', 'subject', 'statsWait']);
  },
});
