/** tb-notify's settings, declared once: the dialog, the runtime and the reference page read them. */
import { choice, connection, declareNode, duration, formatted, text } from '../../settings/declare';

/** What the node does with each message: send through the notification center, or mark the user's inbox read. */
export const NOTIFY_ACTIONS = ['send', 'markRead', 'markAllRead'] as const;
export type NotifyAction = (typeof NOTIFY_ACTIONS)[number];

/** What is sent: a subject and a text written in the node, or a template saved in ThingsBoard. */
export const CONTENT_SOURCES = ['text', 'template'] as const;

export const TB_NOTIFY = declareNode({
  type: 'tb-notify',
  inputs: 1,
  outputs: 1,
  version: 1,
  settings: {
    name: text(),
    connection: connection(),
    action: choice(NOTIFY_ACTIONS, 'send'),
    // The targets by name (or id), comma-separated; empty: msg.targets.
    targets: text('', { fromMessage: 'msg.targets' }),
    content: choice(CONTENT_SOURCES, 'text'),
    // A template by name (or id); empty: msg.template.
    template: text('', { fromMessage: 'msg.template' }),
    // The subject and the text may hold {{msg...}} placeholders; empty: msg.topic and msg.payload.
    subject: text('', { fromMessage: 'msg.topic' }),
    text: text('', { fromMessage: 'msg.payload' }),
    methods: formatted('list', 'WEB'),
    // How long the node reads the request for its stats (0: it sends them as the send's answer has them).
    statsWait: duration('10s', { min: 0 }),
  },
});

export type NotifySettings = import('../../settings/declare').Values<typeof TB_NOTIFY.settings>;
